"""Errors of the model edge: the embedding model could not be had.

Never raised into a turn: the edge catches it, ranks lexically and says why
(``/mind doctor`` and the injection's disclosures show the message).
"""

from __future__ import annotations

from persona_mind.errors import MindError

__all__ = ("EmbeddingUnavailable",)

INSTALL_HINT = "install the semantic extra: pip install 'persona-mind[semantic]'"


class EmbeddingUnavailable(MindError):
    """The static embedding model is not installed or failed to load; ranking stays lexical."""
