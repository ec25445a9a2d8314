"""The embedding model: WordLlama's static token embeddings, loaded from its wheel.

Why WordLlama: its wheel carries the weights (``l2_supercat_256.safetensors``, 16 MB) and
the tokenizer config, so loading needs no hub and no network; embedding is a token lookup
and a mean (about 20 µs per fact), which fits the injection deadline at 10,000 facts.
Downloads are disabled explicitly, and the package directory is passed as the cache
directory because WordLlama 0.4 looks for the tokenizer under ``tokenizer/`` while the wheel
ships it under ``tokenizers/``.

:class:`Encoder` is the seam tests use: any object that maps texts to unit float32 rows.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from persona_mind.embedding._errors import INSTALL_HINT, EmbeddingUnavailable

__all__ = ("Encoder", "Matrix", "WordLlamaEncoder", "fact_text", "unit_rows")

Matrix = npt.NDArray[np.float32]


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


class WordLlamaEncoder:
    """WordLlama ``l2_supercat``: the wheel's 256-d weights, truncated to 128 dimensions.

    WordLlama is trained Matryoshka-style, so a prefix of each vector is itself an embedding.
    128 dimensions measured the same recall as 256 on the coding-agent set at the production
    caps (0.942 both; 0.994 vs 0.988 within 1,000 tokens) at half the similarity cost and
    half the cache size; 64 lost 0.6 points.
    """

    CONFIG = "l2_supercat"
    WEIGHTS_DIM = 256
    DIM = 128

    def __init__(self, model: Any) -> None:
        self._model = model
        tokenizer = model.tokenizer
        if getattr(tokenizer, "padding", None) is not None:
            # the wheel's tokenizer pads batches to their longest text; our pooling wants
            # each text's own ids, so batches are tokenized unpadded (same ids as one by one)
            tokenizer.no_padding()
        self._tokenizer = tokenizer
        self._table = np.ascontiguousarray(model.embedding[:, : self.DIM], dtype=np.float32)

    @property
    def model_id(self) -> str:
        return f"wordllama-{self.CONFIG}-{self.WEIGHTS_DIM}t{self.DIM}"

    @property
    def dim(self) -> int:
        return self.DIM

    @classmethod
    def load(cls, between_steps: Callable[[], object] | None = None) -> WordLlamaEncoder:
        """Load from the wheel (raises :class:`EmbeddingUnavailable` with what to do).

        ``between_steps`` runs before wordllama's import and again right before
        ``WordLlama.load`` (the tokenizer parse, one GIL-holding call, and the weights
        read): the edge passes a :meth:`TurnGate.budget
        <persona_mind.embedding._gate.TurnGate.budget>` wait, so those steps fall between
        turns, not inside one (issue 15 item 9).
        """
        if between_steps is not None:
            between_steps()
        try:
            import wordllama  # noqa: PLC0415 - optional, heavy: only off the event loop
        except ImportError as exc:
            raise EmbeddingUnavailable(f"wordllama is not installed; {INSTALL_HINT}") from exc
        # encode_batch tokenizes with the GIL released; without this it would also fan out
        # to a thread per core, competing with the event loop for this 2-core budget
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        root = Path(wordllama.__file__).parent
        if between_steps is not None:
            between_steps()
        try:
            model = wordllama.WordLlama.load(
                config=cls.CONFIG, dim=cls.WEIGHTS_DIM, disable_download=True, cache_dir=root
            )
        except Exception as exc:  # any loader failure means: rank lexically, say why
            raise EmbeddingUnavailable(
                f"wordllama could not load its bundled weights ({exc}); reinstall it: "
                f"{INSTALL_HINT}"
            ) from exc
        return cls(model)

    def encode(self, texts: Sequence[str]) -> Matrix:
        """Mean of the texts' token embeddings, unit length — WordLlama's own pooling.

        One text (a prompt, on the event loop) is tokenized directly: the cheapest call
        (WordLlama's own batch path wakes a thread pool, which costs more than the work for
        a one-line prompt on a busy machine).  Several (the edge's background batches) go
        through the tokenizer's ``encode_batch``, which tokenizes with the GIL released, so
        the event loop runs while a batch is tokenized instead of waiting for a switch
        between ~250 µs calls that each hold it (issue 15 item 9; with
        ``TOKENIZERS_PARALLELISM=false`` it stays on the calling thread).

        Each row is pooled in place in the output (one gather with the ids clipped to the
        table, one reduction, two in-place divisions): a turn encodes its prompt with this,
        and the per-call overhead of the general path (an id array, a clip, a temporary per
        step, ``np.linalg.norm``) cost more than the arithmetic.  The operations and their
        order are those of the general path — sum over the tokens, divide by their count,
        divide by the row's norm — so every vector is bit-for-bit what it was (vectors
        cached on disk stay valid; ``tests/mind/test_encoder_pooling.py``).
        """
        tokenizer = self._tokenizer
        table = self._table
        out = np.zeros((len(texts), self.DIM), dtype=np.float32)
        if len(texts) == 1:
            encodings = [tokenizer.encode(texts[0], add_special_tokens=False)]
        else:
            encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        for i, encoding in enumerate(encodings):
            ids = encoding.ids
            if not ids:
                continue
            row = out[i]
            np.add.reduce(table.take(ids, axis=0, mode="clip"), axis=0, out=row)
            row /= np.float32(len(ids))
            norm = np.sqrt(np.add.reduce(row * row))
            if norm:
                row /= norm
        return out
