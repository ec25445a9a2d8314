"""Old home of the child values and the backend interface: a re-export, nothing more.

The values moved to :mod:`persona_mind.messages.child` (messages import nothing from
``runners/``) and the interface to :mod:`persona_mind.runners._child_backend`. The names
here are the very same objects, kept so older imports still resolve; product code imports
the new homes (``lint-imports`` forbids actors and messages this module).
"""

from __future__ import annotations

from persona_mind.messages.child import (
    DEFAULT_CHILD_TOOLS,
    ChildKind,
    ChildPersona,
    ChildProgress,
    ChildReply,
    ChildRequest,
    ChildTeam,
    ChildUsage,
    ProgressEvent,
    Role,
)
from persona_mind.runners._child_backend import ChildBackend, ProgressFn

__all__ = (
    "DEFAULT_CHILD_TOOLS",
    "ChildBackend",
    "ChildKind",
    "ChildPersona",
    "ChildProgress",
    "ChildReply",
    "ChildRequest",
    "ChildTeam",
    "ChildUsage",
    "ProgressEvent",
    "ProgressFn",
    "Role",
)
