"""The model edge: loads the embedding model in the background and answers similarities.

Lifecycle: :meth:`SemanticEdge.start` (called when the first session event builds the Mind
session) hands the load to the edge's one thread (``_worker.EdgeWorker``), which imports
and loads the model, each step waiting while a ``before_agent_start`` turn is in flight
(:class:`~persona_mind.embedding._gate.TurnGate`); until it finishes, :meth:`for_prompt`
returns no semantic ranker and a :class:`RankerStatus` saying the ranking is lexical and
why, so a turn never waits for the model and a failure to load never blocks one.

Per-fact vectors are derived data (:mod:`persona_mind.embedding._vectors`): :meth:`bind`
gives a tier's :class:`FactIndex` its matrix (rows aligned to index slots) from the cache
file beside the store, embedding only rows the cache lacks.  An index produced by
``FactIndex.updated`` keeps the old slots and appends new ones, so its matrix extends the
previous one instead of being rebuilt: remembering one fact costs one embedding and one
appended record.

Nothing large runs on the event loop (issue 15 item 9): with ``wait=False`` (the sidecar),
a bind that has more than :data:`INLINE_ROWS` rows or :data:`INLINE_CHARS` characters to
look up — a store's first bind, a full rebuild, a cache file to read — is handed to that
same thread (after the load, in order) and the turn is ranked lexically, saying "semantic ranking
warming up", until the vectors for that index are in; the next turn picks them up.  Small
binds (the few rows a remember adds) still run in place, so a turn right after a remember
stays hybrid.  The one-shot CLI, tests and benchmarks bind with ``wait=True`` (in place,
whatever the size). :meth:`SemanticEdge.close` ends the thread: its job stops at the next
step and the thread is joined within a bound (the shared edge closes at interpreter exit).
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from persona_mind._quietgc import no_full_collections
from persona_mind.embedding._errors import EmbeddingUnavailable, install_semantic_hint
from persona_mind.embedding._gate import TurnGate, yield_gil
from persona_mind.embedding._similarity import IndexVectors as _IndexVectors
from persona_mind.embedding._similarity import PromptSimilarity, shared_prefix
from persona_mind.embedding._worker import EdgeWorker
from persona_mind.mind.recall._ranker import RankerStatus, Semantic, warming_up
from persona_mind.mind.recall._retrieval import FactIndex

if TYPE_CHECKING:
    from persona_mind.embedding._encoder import Encoder, Matrix
    from persona_mind.embedding._vectors import VectorFile, Writer

__all__ = ("ENCODE_BATCH", "INLINE_CHARS", "INLINE_ROWS", "SemanticEdge")

log = logging.getLogger(__name__)

_MEMO = 50_000
"""Vectors kept in memory for indexes without a cache file (session notes, backlog)."""

INLINE_ROWS = 256
"""A bind with at most this many rows to look up (of at most :data:`INLINE_CHARS`, and a
cache file of at most twice that many records) runs in place even with ``wait=False``: the
price of keeping the turn after a remember hybrid."""

INLINE_CHARS = 15_000
"""The text a bind in place may have to embed: persona-mind's tokenizer (``_bpe``) costs
~0.6 µs a character for words it has not seen yet and ~0.05 µs for cached ones, so at most
~9 ms on the loop, and usually nothing (a remember adds one fact).  (20,000 when the
``tokenizers`` library, ~0.4 µs a character, did the work.)"""


ENCODE_BATCH = 64
"""Texts embedded per encoder call when a bind computes vectors; between two calls the
edge calls its ``pause`` (``time.sleep(0)``: the GIL is released and the OS may run the
event loop), so a cold bind of 19,000 facts is ~300 short calls, never one long hold."""


class EdgeClosed(EmbeddingUnavailable):
    """The edge was closed while it loaded or bound (the process is ending)."""


def _default_loader(
    turns: TurnGate, closing: threading.Event | None = None, *, stepwise: bool = True
) -> Encoder:
    """Load WordLlama, waiting before each step (the numpy import, the tokenizer read, the
    weights read) until no turn is in flight (issue 15 item 9), and stopping there once the
    edge is closing; ``stepwise=False`` parses each file in one call
    (:meth:`SemanticEdge.load_now`: nothing waits on the load)."""
    budget = turns.budget()  # one cap for all the load's waits

    def wait() -> None:
        if closing is not None and closing.is_set():
            raise EdgeClosed("the semantic model's load was stopped: the edge is closing")
        budget()

    wait()
    try:
        from persona_mind.embedding._encoder import WordLlamaEncoder  # noqa: PLC0415
    except ImportError as exc:  # numpy missing: the semantic extra is not installed
        raise EmbeddingUnavailable(f"numpy is not installed; {install_semantic_hint()}") from exc
    return WordLlamaEncoder.load(between_steps=wait, stepwise=stepwise)


@dataclass(slots=True)
class _StoreVectors:
    """One store's vectors.  Owned by the event loop, except while :attr:`job` is pending:
    then the worker owns :attr:`file` and :attr:`last` and the loop does not touch them (the
    future's completion is the hand-back)."""

    store: Path
    file: VectorFile | None = None
    last: _IndexVectors | None = None
    job: concurrent.futures.Future[_IndexVectors] | None = None
    job_index: weakref.ref[FactIndex] | None = None
    """The index the job binds (weak: the job must not decide where an old index dies)."""
    job_rows: int = 0
    """Live facts of that index (for the "warming up" disclosure)."""


class SemanticEdge:
    """One process-wide model and its vector caches.

    Used from the event loop; :meth:`_load` runs on the edge's thread (one, named
    ``persona-mind-embedding``) and hands its result over by writing the fields *before*
    setting :attr:`settled` — the event is the publication point.  Large binds run on the
    same thread after it and hand back through their future, which the loop collects at the
    next bind; no lock is shared with the loop.
    """

    def __init__(
        self,
        loader: Callable[[], Encoder] | None = None,
        *,
        pause: Callable[[], None] = yield_gil,
        turns: TurnGate | None = None,
    ) -> None:
        """``pause`` runs between two :data:`ENCODE_BATCH` encoder calls of one bind;
        ``turns`` is the gate the default loader waits on before its GIL-holding parse (the
        process-wide one for :func:`~persona_mind.embedding.shared_edge`)."""
        self.turns = turns if turns is not None else TurnGate()
        self._worker = EdgeWorker()
        self._loader = (
            loader
            if loader is not None
            else functools.partial(_default_loader, self.turns, self._worker.closing)
        )
        self._load_at_once = (  # load_now's: its caller waits for the model anyway
            loader
            if loader is not None
            else functools.partial(
                _default_loader, self.turns, self._worker.closing, stepwise=False
            )
        )
        self._pause = pause
        self._state = "idle"
        self._reason = "semantic model not started"
        self._encoder: Encoder | None = None
        self._loading_in_background = False
        self.settled = threading.Event()
        """Set when loading finished, ready or not (tests and benchmarks wait on it)."""
        self._stores: dict[Path, _StoreVectors] = {}
        self._bound: weakref.WeakKeyDictionary[FactIndex, _IndexVectors] = (
            weakref.WeakKeyDictionary()
        )
        self._memo: dict[bytes, Matrix] = {}
        self._hybrid: RankerStatus | None = None  # the status of a hybrid turn, made once

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Begin loading on the edge's thread (idempotent; returns at once; loop side)."""
        if self._state != "idle":
            return
        self._state = "loading"
        self._reason = "semantic model loading"
        self._loading_in_background = True
        self._worker.submit(self._load_in_background)

    def load_now(self) -> RankerStatus:
        """Load synchronously (a one-shot command, a library before its first ranking,
        benchmarks); the status says how it went.  The files are parsed in one go, not in
        GIL-yielding steps: here the caller waits for the model anyway."""
        if self._state == "idle":
            self._state, self._reason = "loading", "semantic model loading"
        if self._state == "loading" and not self._loading_in_background:
            self._load(self._load_at_once)
        self.settled.wait()
        return self.status()

    def close(self, timeout: float = 2.0) -> bool:
        """End the edge's thread: a load or bind stops at its next step, the thread is
        joined within ``timeout`` (``False`` if a step that cannot be cut outlasted it).
        Ranking stays lexical from then on."""
        ended = self._worker.close(timeout)
        if self._state == "loading":
            self._state, self._reason = "unavailable", "the semantic model's edge was closed"
            self.settled.set()
        return ended

    def _load_in_background(self) -> None:
        time.sleep(self.turns.settle)  # let a prompt sent at once enter the gate first
        self._load()

    def _step(self) -> None:
        """Between two encoder calls of a bind: give the GIL away, or stop when closing."""
        if self._worker.closing.is_set():
            raise EdgeClosed("a vector bind was stopped: the edge is closing")
        self._pause()

    def _load(self, loader: Callable[[], Encoder] | None = None) -> None:
        try:
            encoder = (loader or self._loader)()
        except EmbeddingUnavailable as exc:
            self._state, self._reason = "unavailable", str(exc)
        except Exception as exc:  # a broken install must not take the runtime down
            log.exception("semantic model failed to load")
            self._state = "unavailable"
            self._reason = f"semantic model failed to load ({exc!r}); {install_semantic_hint()}"
        else:
            self._encoder, self._reason = encoder, ""
            self._state = "ready"  # last: readers see a ready state only with its encoder
        finally:
            self.settled.set()

    def status(self) -> RankerStatus:
        """The ranker a turn gets now (``/mind doctor``): lexical while the model loads or
        while vectors are still being computed on the worker, and why."""
        encoder = self.encoder
        if encoder is None:
            return RankerStatus(hybrid=False, reason=self._reason)
        self._collect()
        warming = sum(sv.job_rows for sv in self._stores.values() if sv.job is not None)
        if warming:
            return RankerStatus(hybrid=False, reason=warming_up(warming))
        return RankerStatus(hybrid=True, reason=encoder.model_id)

    @property
    def encoder(self) -> Encoder | None:
        return self._encoder if self._state == "ready" else None

    # -- vectors ---------------------------------------------------------------------------

    def bind(self, index: FactIndex, store: Path | None, *, wait: bool = True) -> bool:
        """Give ``index`` its vectors, from the cache beside ``store`` when there is one.

        Returns whether ``index`` has them now.  With ``wait=False`` a large bind is started
        on the worker thread and this returns ``False`` at once (the caller ranks lexically
        and says so); a later call collects the result.
        """
        encoder = self.encoder
        if encoder is None:
            return False
        self._collect()
        if index in self._bound:
            return True
        if store is None:
            self._bound[index] = self._compute(encoder, index, None)
            return True
        sv = self._stores.get(store)
        if sv is None:
            sv = self._stores[store] = _StoreVectors(store)
        if sv.job is not None:  # the worker owns this store's vectors until it is done
            if not wait:
                return False
            concurrent.futures.wait([sv.job])
            self._collect()
            return self.bind(index, store, wait=True)
        start = shared_prefix(sv.last, index)
        if wait:
            self._bound[index] = self._compute(encoder, index, sv, start)
            return True
        if self._small(sv, index, start, encoder):  # in place, on the loop: no fsync here
            self._bound[index] = self._compute(encoder, index, sv, start, self._worker.submit)
            return True
        sv.job = self._worker.submit(functools.partial(self._compute, encoder, index, sv, start))
        sv.job_index = weakref.ref(index)
        sv.job_rows = len(index)
        return False

    def pending(self) -> list[concurrent.futures.Future[_IndexVectors]]:
        """The binds running on the worker (tests and benchmarks wait on them)."""
        return [sv.job for sv in self._stores.values() if sv.job is not None]

    def writes(self) -> list[concurrent.futures.Future[None]]:
        """The cache-file writes binds in place handed to the worker, not yet done (a test
        that looks at the file waits on them)."""
        return [
            sv.file.queued
            for sv in self._stores.values()
            if sv.job is None and sv.file is not None and sv.file.queued is not None
        ]

    def _collect(self) -> None:
        """Take in the worker's finished binds (loop side)."""
        for sv in self._stores.values():
            job = sv.job
            if job is None or not job.done():
                continue
            ref, sv.job, sv.job_index = sv.job_index, None, None
            if job.cancelled():  # the edge closed before it ran
                continue
            try:
                iv = job.result()
            except Exception as exc:  # derived data: the next bind tries again
                log.warning("semantic vectors for %s not computed: %r", sv.store, exc)
                continue
            index = ref() if ref is not None else None
            if index is not None:
                self._bound[index] = iv

    def _small(self, sv: _StoreVectors, index: FactIndex, start: int, encoder: Encoder) -> bool:
        rows = index.facts[start:]
        if len(rows) > INLINE_ROWS:
            return False
        if sum(len(f.text) + sum(len(t) + 1 for t in f.tags) for f in rows) > INLINE_CHARS:
            return False
        if sv.file is not None:  # a pending rewrite of a large file is no small bind
            return not sv.file.rewrite or len(sv.file.vectors) <= 2 * INLINE_ROWS
        from persona_mind.embedding._vectors import vectors_path  # noqa: PLC0415

        record = 16 + 4 * encoder.dim + 4
        try:
            size = vectors_path(sv.store, encoder.model_id).stat().st_size
        except OSError:
            return True  # no cache yet (or unreadable: the load will say so and rebuild)
        return size <= 2 * INLINE_ROWS * record + 4096

    def _compute(
        self,
        encoder: Encoder,
        index: FactIndex,
        sv: _StoreVectors | None,
        start: int = 0,
        writer: Writer | None = None,
    ) -> _IndexVectors:
        """The vectors of ``index`` (on the loop for small binds, else on the worker).

        ``writer`` (a small bind on the event loop): the cache file's fsync'd rewrite runs
        there (the worker), not here — a store's first bind wrote its new cache file on the
        loop, 17-77 ms of blocking IO inside a turn."""
        import numpy as np  # noqa: PLC0415 - present whenever an encoder loaded

        from persona_mind.embedding._encoder import fact_text  # noqa: PLC0415
        from persona_mind.embedding._vectors import VectorFile, content_key, vectors_path  # noqa: PLC0415

        with no_full_collections():  # a large bind allocates a row object per fact
            vf: VectorFile | None = None
            if sv is not None:
                vf = sv.file
                if vf is None:
                    vf = VectorFile(
                        vectors_path(sv.store, encoder.model_id), encoder.model_id, encoder.dim
                    )
                    vf.load()
                    sv.file = vf
            elif len(self._memo) > _MEMO:
                self._memo.clear()
            known = vf.vectors if vf is not None else self._memo
            prev = sv.last if sv is not None else None
            facts = index.facts
            keys = [content_key(fact_text(f.text, f.tags)) for f in facts[start:]]
            # in index order (deterministic): no sort, one C call of ~10 ms for 19,000 keys
            missing = list({k: i for i, k in enumerate(keys) if k not in known}.items())
            new: dict[bytes, Matrix] = {}
            if missing:
                todo = [facts[start + i] for _, i in missing]
                texts = [fact_text(f.text, f.tags) for f in todo]
                rows = self._encode(encoder, texts)
                new = {k: rows[j] for j, (k, _) in enumerate(missing)}
            if vf is not None:
                if new or vf.rewrite:
                    live = [keys[s] for s in index.slot_of.values()] if start == 0 else None
                    vf.add(new, live, writer=writer)
            else:
                self._memo.update(new)
            got = known  # the cache's (or the memo's) dict now holds every key
            # row by row, not np.stack: stacking 19,000 rows is one ~10 ms GIL hold, a Python
            # loop lets the event loop in at every switch interval
            rows_new = np.empty((len(keys), encoder.dim), dtype=np.float32)
            for i, k in enumerate(keys):
                rows_new[i] = got[k]
            matrix = rows_new if start == 0 or prev is None else np.vstack([prev.matrix, rows_new])
            live_mask = np.zeros(len(facts), dtype=bool)
            if index.slot_of:
                live_mask[np.fromiter(index.slot_of.values(), dtype=np.intp)] = True
            iv = _IndexVectors(list(facts), matrix, live_mask, bool(live_mask.all()))
            if sv is not None:
                sv.last = iv
            return iv

    def _encode(self, encoder: Encoder, texts: list[str]) -> Matrix:
        """``encoder.encode(texts)`` in batches of :data:`ENCODE_BATCH`, pausing between
        them (issue 15 item 9: a background bind never holds the GIL for long)."""
        if len(texts) <= ENCODE_BATCH:
            return encoder.encode(texts)
        import numpy as np  # noqa: PLC0415 - present whenever an encoder loaded

        parts: list[Matrix] = []
        for at in range(0, len(texts), ENCODE_BATCH):
            if at:
                self._step()
            parts.append(encoder.encode(texts[at : at + ENCODE_BATCH]))
        return np.concatenate(parts)

    def for_prompt(self, prompt: str) -> tuple[Semantic | None, RankerStatus]:
        """A semantic ranker bound to ``prompt``, or ``None`` and why ranking is lexical."""
        encoder = self.encoder
        if encoder is None:
            return None, RankerStatus(hybrid=False, reason=self._reason)
        status = self._hybrid
        if status is None or status.reason != encoder.model_id:  # one per model, not per turn
            status = self._hybrid = RankerStatus(hybrid=True, reason=encoder.model_id)
        if not prompt.strip():
            return None, status
        query = encoder.encode([prompt])[0]
        return PromptSimilarity(self.vectors, query), status

    def vectors(self, index: FactIndex) -> _IndexVectors:
        hit = self._bound.get(index)
        if hit is None:
            self.bind(index, None)
            hit = self._bound[index]
        return hit
