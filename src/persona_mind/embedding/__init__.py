"""The model edge of persona-mind: a static embedding model and its derived-vector caches.

Mind's planner knows only the :class:`~persona_mind.mind.recall._ranker.Semantic` port; this
package implements it with WordLlama (the optional ``semantic`` extra;
:func:`persona_mind.install.install_hint` names its install command).  Nothing here is
imported eagerly with numpy: the facade is cheap, and the model loads on the edge's one
thread after :meth:`SemanticEdge.start`
(``_worker.py`` says why that thread is not the Store's IO thread).
"""

from __future__ import annotations

import atexit
from collections.abc import Mapping

from persona_mind.embedding._edge import SemanticEdge as SemanticEdge
from persona_mind.embedding._errors import EmbeddingUnavailable as EmbeddingUnavailable
from persona_mind.embedding._gate import TurnGate as TurnGate

__all__ = (
    "EmbeddingUnavailable",
    "SemanticEdge",
    "TurnGate",
    "default_semantic",
    "shared_edge",
    "turn_gate",
)

_SHARED: SemanticEdge | None = None
_TURNS = TurnGate()


def turn_gate() -> TurnGate:
    """The process-wide turn gate: the Mind feature holds it for each ``before_agent_start``
    turn, and the shared edge's load waits for no turn in flight before each of its steps
    (issue 15 item 9)."""
    return _TURNS


def shared_edge() -> SemanticEdge:
    """The process-wide edge (one model per process, however many sessions)."""
    global _SHARED  # noqa: PLW0603 - one model per process is the point
    if _SHARED is None:
        _SHARED = SemanticEdge(turns=_TURNS)
        atexit.register(_SHARED.close)  # the process owns it: its thread is joined at exit
    return _SHARED


def default_semantic(env: Mapping[str, str]) -> SemanticEdge | None:
    """The process-wide model edge with its background load started, or ``None``.

    Called when the first session event builds the Mind session (later calls are
    no-ops), so the load's one-off GIL holds fall while a person types the first prompt
    (issue 15 item 9), and when the prompt comes at once they wait on :func:`turn_gate`
    until that turn is answered; loading never delays start-to-ready or a session event's
    answer, it returns at once and turns rank lexically (and say so) until the model is in.
    ``PERSONA_MIND_RANKER=lexical``
    opts out.  It lives here, at the edge, not in ``mind/`` (domain code starts no threads).
    """
    if env.get("PERSONA_MIND_RANKER", "").strip().lower() == "lexical":
        return None
    edge = shared_edge()
    edge.start()
    return edge
