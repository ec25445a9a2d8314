"""The model edge: loads the embedding model in the background and answers similarities.

Lifecycle: :meth:`SemanticEdge.start` (called once the runtime is ready) spawns one daemon
thread that imports and loads the model; until it finishes, :meth:`for_prompt` returns no
semantic ranker and a :class:`RankerStatus` saying the ranking is lexical and why, so a
turn never waits for the model and a failure to load never blocks one.

Per-fact vectors are derived data (:mod:`persona_mind.embedding._vectors`): :meth:`bind`
gives a tier's :class:`FactIndex` its matrix (rows aligned to index slots) from the cache
file beside the store, embedding only rows the cache lacks.  An index produced by
``FactIndex.updated`` keeps the old slots and appends new ones, so its matrix extends the
previous one instead of being rebuilt: remembering one fact costs one embedding and one
appended record.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from persona_mind.embedding._errors import INSTALL_HINT, EmbeddingUnavailable
from persona_mind.mind._ranker import SIM_DECIMALS, RankerStatus, Semantic
from persona_mind.mind._retrieval import FactIndex

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from persona_mind.embedding._encoder import Encoder, Matrix
    from persona_mind.embedding._vectors import VectorFile

__all__ = ("SemanticEdge",)

log = logging.getLogger(__name__)

_MEMO = 50_000
"""Vectors kept in memory for indexes without a cache file (session notes, backlog)."""


def _default_loader() -> Encoder:
    try:
        from persona_mind.embedding._encoder import WordLlamaEncoder  # noqa: PLC0415
    except ImportError as exc:  # numpy missing: the semantic extra is not installed
        raise EmbeddingUnavailable(f"numpy is not installed; {INSTALL_HINT}") from exc
    return WordLlamaEncoder.load()


@dataclass(slots=True)
class _IndexVectors:
    facts: list[object]
    matrix: Matrix
    live: npt.NDArray[np.bool_]
    """Which slots are live (an updated index keeps dead slots until its next rebuild)."""
    all_live: bool = False


class SemanticEdge:
    """One process-wide model and its vector caches.

    Used from the event loop; only :meth:`_load` runs on the loading thread, and it hands
    its result over by writing the fields *before* setting :attr:`settled` — the event is the
    publication point, so no lock is needed (mailbox order and events, never locks, in this
    runtime).
    """

    def __init__(self, loader: Callable[[], Encoder] = _default_loader) -> None:
        self._loader = loader
        self._state = "idle"
        self._reason = "semantic model not started"
        self._encoder: Encoder | None = None
        self._thread: threading.Thread | None = None
        self.settled = threading.Event()
        """Set when loading finished, ready or not (tests and benchmarks wait on it)."""
        self._files: dict[Path, VectorFile] = {}
        self._last: dict[Path, _IndexVectors] = {}
        self._bound: weakref.WeakKeyDictionary[FactIndex, _IndexVectors] = (
            weakref.WeakKeyDictionary()
        )
        self._memo: dict[bytes, Matrix] = {}

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Begin loading in a daemon thread (idempotent; returns at once; loop side)."""
        if self._state != "idle":
            return
        self._state = "loading"
        self._reason = "semantic model loading"
        self._thread = threading.Thread(
            target=self._load, name="persona-mind-embedding", daemon=True
        )
        self._thread.start()

    def load_now(self) -> RankerStatus:
        """Load synchronously (benchmarks, the CLI); the status says how it went."""
        if self._state == "idle":
            self._state, self._reason = "loading", "semantic model loading"
        if self._state == "loading" and self._thread is None:
            self._load()
        self.settled.wait()
        return self.status()

    def _load(self) -> None:
        try:
            encoder = self._loader()
        except EmbeddingUnavailable as exc:
            self._state, self._reason = "unavailable", str(exc)
        except Exception as exc:  # a broken install must not take the runtime down
            log.exception("semantic model failed to load")
            self._state = "unavailable"
            self._reason = f"semantic model failed to load ({exc!r}); {INSTALL_HINT}"
        else:
            self._encoder, self._reason = encoder, ""
            self._state = "ready"  # last: readers see a ready state only with its encoder
        finally:
            self.settled.set()

    def status(self) -> RankerStatus:
        encoder = self._encoder
        if self._state == "ready" and encoder is not None:
            return RankerStatus(hybrid=True, reason=encoder.model_id)
        return RankerStatus(hybrid=False, reason=self._reason)

    @property
    def encoder(self) -> Encoder | None:
        return self._encoder if self._state == "ready" else None

    # -- vectors ---------------------------------------------------------------------------

    def _file(self, store: Path, encoder: Encoder) -> VectorFile:
        from persona_mind.embedding._vectors import VectorFile, vectors_path  # noqa: PLC0415

        path = vectors_path(store, encoder.model_id)
        vf = self._files.get(path)
        if vf is None:
            vf = VectorFile(path, encoder.model_id, encoder.dim)
            vf.load()
            self._files[path] = vf
        return vf

    def bind(self, index: FactIndex, store: Path | None) -> None:
        """Give ``index`` its vectors, from the cache beside ``store`` when there is one."""
        encoder = self.encoder
        if encoder is None or index in self._bound:
            return
        import numpy as np  # noqa: PLC0415 - present whenever an encoder loaded

        from persona_mind.embedding._encoder import fact_text  # noqa: PLC0415
        from persona_mind.embedding._vectors import content_key  # noqa: PLC0415

        vf = self._file(store, encoder) if store is not None else None
        if vf is None and len(self._memo) > _MEMO:
            self._memo.clear()
        known = vf.vectors if vf is not None else self._memo
        prev = self._last.get(vf.path) if vf is not None else None
        facts = index.facts
        start = 0
        if prev is not None and len(prev.facts) <= len(facts):
            n = len(prev.facts)
            if all(facts[i] is prev.facts[i] for i in range(n)):
                start = n
        keys = [content_key(fact_text(f.text, f.tags)) for f in facts[start:]]
        missing = sorted({k: i for i, k in enumerate(keys) if k not in known}.items())
        new: dict[bytes, Matrix] = {}
        if missing:
            texts = [fact_text(facts[start + i].text, facts[start + i].tags) for _, i in missing]
            rows = encoder.encode(texts)
            new = {k: rows[j] for j, (k, _) in enumerate(missing)}
        if vf is not None:
            if new or vf.rewrite:
                live = None
                if start == 0:
                    live = [keys[s] for s in index.slot_of.values()]
                vf.add(new, live)
        else:
            self._memo.update(new)
        got = known  # the cache's (or the memo's) dict now holds every key
        rows_new = (
            np.stack([got[k] for k in keys])
            if keys
            else np.zeros((0, encoder.dim), dtype=np.float32)
        )
        matrix = rows_new if start == 0 or prev is None else np.vstack([prev.matrix, rows_new])
        live_mask = np.zeros(len(facts), dtype=bool)
        if index.slot_of:
            live_mask[np.fromiter(index.slot_of.values(), dtype=np.intp)] = True
        iv = _IndexVectors(list(facts), matrix, live_mask, bool(live_mask.all()))
        self._bound[index] = iv
        if vf is not None:
            self._last[vf.path] = iv

    def for_prompt(self, prompt: str) -> tuple[Semantic | None, RankerStatus]:
        """A semantic ranker bound to ``prompt``, or ``None`` and why ranking is lexical."""
        status = self.status()
        encoder = self.encoder
        if encoder is None or not prompt.strip():
            return None, status
        query = encoder.encode([prompt])[0]
        return _PromptSimilarity(self, query), status

    def vectors(self, index: FactIndex) -> _IndexVectors:
        hit = self._bound.get(index)
        if hit is None:
            self.bind(index, None)
            hit = self._bound[index]
        return hit


class _PromptSimilarity:
    """:class:`Semantic` for one prompt vector."""

    def __init__(self, edge: SemanticEdge, query: Matrix) -> None:
        self._edge = edge
        self._query = query.copy()  # owned and contiguous, not a view into the batch

    def similarities(
        self, index: FactIndex, slots: Collection[int], top: int
    ) -> Mapping[int, float]:
        import numpy as np  # noqa: PLC0415

        iv = self._edge.vectors(index)
        n = len(iv.facts)
        if not n:
            return {}
        # einsum, not BLAS: BLAS's threaded matrix-vector path was measured 10-80x slower on
        # a busy 2-core machine (its threads contend with the event loop); einsum runs on
        # this thread with a fixed summation order, so scores are also reproducible
        sims = np.einsum("ij,j->i", iv.matrix, self._query)
        k = min(top, len(index))
        best: list[int]
        if k <= 0:
            best = []
        elif k >= n:
            best = np.flatnonzero(iv.live).tolist()
        else:
            masked = sims if iv.all_live else np.where(iv.live, sims, -np.inf)
            best = np.argpartition(masked, n - k)[n - k :].tolist()
        # Python lists, not arrays, around the one vectorised step (gather, widen, round):
        # for the few dozen slots a turn asks about, array building and concatenation
        # cost more than the arithmetic (issue 10, before_agent_start)
        picked = best + list(slots)
        if not picked:
            return {}
        values = np.round(sims.take(picked).astype(np.float64), SIM_DECIMALS)
        return dict(zip(picked, values.tolist(), strict=True))
