"""The embedding model: WordLlama's static token embeddings, loaded from its wheel.

Why WordLlama: its wheel carries the weights (``l2_supercat_256.safetensors``, 16 MB) and
the tokenizer config, so loading needs no hub and no network; embedding is a token lookup
and a mean (about 20 µs per fact), which fits the injection deadline at 10,000 facts.
persona-mind reads those two files itself (``_bpe``, ``_weights``) and falls back to
``WordLlama.load`` (downloads disabled, the package directory as its cache directory,
because WordLlama 0.4 looks for the tokenizer under ``tokenizer/`` while the wheel ships it
under ``tokenizers/``) only for files in a shape its readers do not implement.

:class:`Encoder` is the seam tests use: any object that maps texts to unit float32 rows.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from persona_mind._quietgc import freeze_survivors, no_full_collections
from persona_mind.embedding._errors import (
    EmbeddingUnavailable,
    UnsupportedModelFile,
    install_semantic_hint,
)
from persona_mind.embedding._gate import yield_gil as _yield_gil

__all__ = ("Encoder", "Matrix", "WordLlamaEncoder", "fact_text", "unit_rows")

Matrix = npt.NDArray[np.float32]


def _no_pause() -> None:
    """A one-shot load's pause between steps: none."""


log = logging.getLogger(__name__)


class Encoder(Protocol):
    """Texts in, one unit-length float32 row per text out."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> Matrix: ...


def unit_rows(m: npt.NDArray[Any]) -> Matrix:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(m / norms, dtype=np.float32)


def fact_text(text: str, tags: Sequence[str]) -> str:
    """What is embedded for a fact: its text, then its tags (the author's own labels)."""
    return f"{text} {' '.join(tags)}" if tags else text


Tokenize = Callable[[str], Sequence[int]]
"""One text to its token ids (no special tokens added)."""

TokenizeBatch = Callable[[list[str]], list[Sequence[int]]]
"""Several texts to their ids in one call (the ``tokenizers`` fallback releases the GIL)."""

TOKENIZER_FILE = ("tokenizers", "l2_supercat_tokenizer_config.json")
WEIGHTS_FILE = ("weights", "l2_supercat_256.safetensors")
"""Where the wheel keeps the two files, relative to the ``wordllama`` package."""


class WordLlamaEncoder:
    """WordLlama ``l2_supercat``: the wheel's 256-d weights, truncated to 128 dimensions.

    WordLlama is trained Matryoshka-style, so a prefix of each vector is itself an embedding.
    128 dimensions measured the same recall as 256 on the coding-agent set at the production
    caps (0.942 both; 0.994 vs 0.988 within 1,000 tokens) at half the similarity cost and
    half the cache size; 64 lost 0.6 points.

    :meth:`load` reads the wheel's two files with persona-mind's own readers
    (``_bpe.LlamaBPE``, ``_weights.read_f16_table``): the same ids and the same table as
    ``WordLlama.load``, so the same vectors bit for bit, but loaded in short steps that give
    the GIL back instead of one 45–70 ms tokenizer parse (issue 15 item 9).  A file they do
    not recognise falls back to ``WordLlama.load`` itself.
    """

    CONFIG = "l2_supercat"
    WEIGHTS_DIM = 256
    DIM = 128

    def __init__(
        self,
        tokenize: Tokenize,
        table: npt.NDArray[np.float32 | np.float16],
        batch: TokenizeBatch | None = None,
    ) -> None:
        """``table``: one row of at least :attr:`DIM` values per token id — float32, or
        float16 (a table mapped from the weights file: kept whole, the gathered rows cut to
        :attr:`DIM` columns and cast to float32, which is exact, so the vectors are the
        same bit for bit)."""
        self._tokenize = tokenize
        self._batch = batch
        self._table: npt.NDArray[np.float32 | np.float16]
        if table.dtype == np.float16:
            self._table = table  # contiguous: a gather from a column slice copies the table
        else:
            self._table = np.ascontiguousarray(table[:, : self.DIM], dtype=np.float32)
        self.via = "persona-mind readers"
        """How it was loaded: ``persona-mind readers`` or ``wordllama`` (the fallback)."""

    @property
    def model_id(self) -> str:
        return f"wordllama-{self.CONFIG}-{self.WEIGHTS_DIM}t{self.DIM}"

    @property
    def dim(self) -> int:
        return self.DIM

    @classmethod
    def load(
        cls,
        between_steps: Callable[[], object] | None = None,
        *,
        root: Path | None = None,
        stepwise: bool = True,
    ) -> WordLlamaEncoder:
        """Load from the wheel (raises :class:`EmbeddingUnavailable` with what to do).

        ``between_steps`` runs before each step that may hold the GIL in one long call
        (here: the tokenizer's and the weights' reads, and wordllama's own load if it comes
        to that): the edge passes a :meth:`TurnGate.budget
        <persona_mind.embedding._gate.TurnGate.budget>` wait, so those steps fall between
        turns, not inside one (issue 15 item 9).  ``root`` replaces the installed
        ``wordllama`` package directory (tests).  ``stepwise=False`` reads the files in one
        go, without giving the GIL away between slices: for a load nothing waits on (a
        one-shot command), where the steps only cost time.
        """
        wait = between_steps if between_steps is not None else (lambda: None)
        if root is None:
            spec = importlib.util.find_spec("wordllama")  # locates it without importing it
            if spec is None or not spec.submodule_search_locations:
                raise EmbeddingUnavailable(f"wordllama is not installed; {install_semantic_hint()}")
            root = Path(next(iter(spec.submodule_search_locations)))
        from persona_mind.embedding._bpe import LlamaBPE  # noqa: PLC0415 - loader thread
        from persona_mind.embedding._weights import map_f16_table, read_f16_table  # noqa: PLC0415

        wait()
        try:
            with no_full_collections():
                pause = _yield_gil if stepwise else _no_pause
                path = root.joinpath(*TOKENIZER_FILE)
                bpe = LlamaBPE.from_file(path, pause, stepwise=stepwise)
                wait()
                weights, rows = root.joinpath(*WEIGHTS_FILE), len(bpe.vocab)
                table: npt.NDArray[np.float32 | np.float16]
                if stepwise:
                    table = read_f16_table(
                        weights, "embedding.weight", cls.DIM, rows=rows, pause=pause
                    )
                else:  # nothing waits on the loop: map the file, read only the rows used
                    table = map_f16_table(weights, "embedding.weight", cls.DIM, rows=rows)
            freeze_survivors()  # the tables live as long as the process
        except UnsupportedModelFile as exc:
            log.info("loading WordLlama through its own loader: %s", exc)
            return cls._load_with_wordllama(wait)
        except (OSError, ValueError) as exc:
            raise EmbeddingUnavailable(
                f"wordllama's bundled files could not be read ({exc}); "
                f"reinstall it: {install_semantic_hint()}"
            ) from exc
        return cls(bpe.encode, table)

    @classmethod
    def _load_with_wordllama(cls, wait: Callable[[], object]) -> WordLlamaEncoder:
        """The fallback: ``WordLlama.load`` and the ``tokenizers`` library (its parse holds
        the GIL for 45–70 ms; ``wait`` keeps it out of a turn in flight)."""
        try:
            import wordllama  # noqa: PLC0415 - optional, heavy: only off the event loop
        except ImportError as exc:
            hint = install_semantic_hint()
            raise EmbeddingUnavailable(f"wordllama is not installed; {hint}") from exc
        # encode_batch tokenizes with the GIL released; without this it would also fan out
        # to a thread per core, competing with the event loop for this 2-core budget
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        root = Path(wordllama.__file__).parent
        wait()
        try:
            model = wordllama.WordLlama.load(
                config=cls.CONFIG, dim=cls.WEIGHTS_DIM, disable_download=True, cache_dir=root
            )
        except Exception as exc:  # any loader failure means: rank lexically, say why
            raise EmbeddingUnavailable(
                f"wordllama could not load its bundled weights ({exc}); reinstall it: "
                f"{install_semantic_hint()}"
            ) from exc
        tokenizer = model.tokenizer
        if getattr(tokenizer, "padding", None) is not None:
            # the wheel's tokenizer pads batches to their longest text; our pooling wants
            # each text's own ids, so batches are tokenized unpadded (same ids as one by one)
            tokenizer.no_padding()

        def tokenize(text: str) -> Sequence[int]:
            return tokenizer.encode(text, add_special_tokens=False).ids  # type: ignore[no-any-return]

        def batch(texts: list[str]) -> list[Sequence[int]]:
            return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]

        encoder = cls(tokenize, model.embedding, batch)
        encoder.via = "wordllama"
        return encoder

    def encode(self, texts: Sequence[str]) -> Matrix:
        """Mean of the texts' token embeddings, unit length — WordLlama's own pooling.

        Each text is tokenized by the encoder's tokenizer: persona-mind's BPE
        (``_bpe.LlamaBPE``) caches each word's ids, so a prompt on the event loop is a few
        dictionary lookups, and a background batch is plain Python that gives the GIL back
        at every switch interval.  Through the ``tokenizers`` fallback a batch goes through
        ``encode_batch``, which tokenizes with the GIL released (``TOKENIZERS_PARALLELISM
        =false`` keeps it on the calling thread).

        Each row is pooled in place in the output (one gather with the ids clipped to the
        table, one reduction, two in-place divisions): a turn encodes its prompt with this,
        and the per-call overhead of the general path (an id array, a clip, a temporary per
        step, ``np.linalg.norm``) cost more than the arithmetic.  The operations and their
        order are those of the general path — sum over the tokens, divide by their count,
        divide by the row's norm — so every vector is bit-for-bit what it was (vectors
        cached on disk stay valid; ``tests/mind/test_encoder_pooling.py``).
        """
        table = self._table
        out = np.zeros((len(texts), self.DIM), dtype=np.float32)
        if self._batch is not None and len(texts) > 1:
            encodings = self._batch(list(texts))
        else:
            tokenize = self._tokenize
            encodings = [tokenize(text) for text in texts]
        for i, ids in enumerate(encodings):
            if not ids:
                continue
            row = out[i]
            rows = table.take(ids, axis=0, mode="clip")
            if rows.dtype != np.float32:  # a mapped float16 table: its columns, exact cast
                rows = rows[:, : self.DIM].astype(np.float32)
            np.add.reduce(rows, axis=0, out=row)
            row /= np.float32(len(ids))
            norm = np.sqrt(np.add.reduce(row * row))
            if norm:
                row /= norm
        return out
