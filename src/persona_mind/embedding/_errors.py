"""Errors of the model edge: the embedding model could not be had.

Never raised into a turn: the edge catches it, ranks lexically and says why
(``/mind doctor`` and the injection's disclosures show the message).
"""

from __future__ import annotations

from persona_mind.errors import MindError
from persona_mind.install import install_hint

__all__ = ("EmbeddingUnavailable", "UnsupportedModelFile")

INSTALL_HINT = f"install the semantic extra: {install_hint('semantic')}"


class EmbeddingUnavailable(MindError):
    """The static embedding model is not installed or failed to load; ranking stays lexical."""


class UnsupportedModelFile(EmbeddingUnavailable):
    """A file of the wheel is not in the shape persona-mind's own readers implement (a
    different tokenizer configuration or tensor layout); the encoder then loads through
    wordllama itself, which reads any shape it ships."""
