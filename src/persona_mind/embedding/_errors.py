"""Errors of the model edge: the embedding model could not be had.

Never raised into a turn: the edge catches it, ranks lexically and says why
(``/mind doctor`` and the injection's disclosures show the message).
"""

from __future__ import annotations

import functools

from persona_mind.errors import MindError

__all__ = ("EmbeddingUnavailable", "UnsupportedModelFile", "install_semantic_hint")


@functools.cache
def install_semantic_hint() -> str:
    """What to run to install the semantic extra, worked out when a message needs it: the
    answer reads the distribution's metadata (``importlib.metadata``, ~10 ms of imports),
    which every command that builds a memory service would otherwise pay at import."""
    from persona_mind.install import install_hint  # noqa: PLC0415 - only for a message

    return f"install the semantic extra: {install_hint('semantic')}"


class EmbeddingUnavailable(MindError):
    """The static embedding model is not installed or failed to load; ranking stays lexical."""


class UnsupportedModelFile(EmbeddingUnavailable):
    """A file of the wheel is not in the shape persona-mind's own readers implement (a
    different tokenizer configuration or tensor layout); the encoder then loads through
    wordllama itself, which reads any shape it ships."""
