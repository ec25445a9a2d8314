"""The model edge of persona-mind: a static embedding model and its derived-vector caches.

Mind's planner knows only the :class:`~persona_mind.mind._ranker.Semantic` port; this
package implements it with WordLlama (an optional extra: ``pip install
'persona-mind[semantic]'``).  Nothing here is imported eagerly with numpy: the facade is
cheap, and the model loads in a background thread after :meth:`SemanticEdge.start`.
"""

from __future__ import annotations

from persona_mind.embedding._edge import SemanticEdge as SemanticEdge
from persona_mind.embedding._errors import EmbeddingUnavailable as EmbeddingUnavailable

__all__ = ("EmbeddingUnavailable", "SemanticEdge", "shared_edge")

_SHARED: SemanticEdge | None = None


def shared_edge() -> SemanticEdge:
    """The process-wide edge (one model per process, however many sessions)."""
    global _SHARED  # noqa: PLW0603 - one model per process is the point
    if _SHARED is None:
        _SHARED = SemanticEdge()
    return _SHARED
