"""The embedding model: WordLlama's static 256-d token embeddings, loaded from its wheel.

Why WordLlama: its wheel carries the weights (``l2_supercat_256.safetensors``, 16 MB) and
the tokenizer config, so loading needs no hub and no network; embedding is a token lookup
and a mean (about 20 µs per fact), which fits the injection deadline at 10,000 facts.
Downloads are disabled explicitly, and the package directory is passed as the cache
directory because WordLlama 0.4 looks for the tokenizer under ``tokenizer/`` while the wheel
ships it under ``tokenizers/``.

:class:`Encoder` is the seam tests use: any object that maps texts to unit float32 rows.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    """WordLlama ``l2_supercat`` at 256 dimensions, from the installed package only."""

    CONFIG = "l2_supercat"
    DIM = 256

    def __init__(self, model: Any) -> None:
        self._model = model

    @property
    def model_id(self) -> str:
        return f"wordllama-{self.CONFIG}-{self.DIM}"

    @property
    def dim(self) -> int:
        return self.DIM

    @classmethod
    def load(cls) -> WordLlamaEncoder:
        """Load from the wheel (raises :class:`EmbeddingUnavailable` with what to do)."""
        try:
            import wordllama  # noqa: PLC0415 - optional, heavy: only off the event loop
        except ImportError as exc:
            raise EmbeddingUnavailable(f"wordllama is not installed; {INSTALL_HINT}") from exc
        root = Path(wordllama.__file__).parent
        try:
            model = wordllama.WordLlama.load(
                config=cls.CONFIG, dim=cls.DIM, disable_download=True, cache_dir=root
            )
        except Exception as exc:  # any loader failure means: rank lexically, say why
            raise EmbeddingUnavailable(
                f"wordllama could not load its bundled weights ({exc}); reinstall it: "
                f"{INSTALL_HINT}"
            ) from exc
        return cls(model)

    def encode(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.DIM), dtype=np.float32)
        out = self._model.embed(list(texts), norm=False, return_np=True)
        return unit_rows(out)
