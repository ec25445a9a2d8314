"""Old home of round-table progress: a re-export, nothing more.

The snapshot and result values moved to :mod:`persona_mind.messages.roundtable_progress`,
the tracker and its renderings to :mod:`persona_mind.persona._roundtable_progress` (issue
10 scope 4). The same objects are kept here so older imports still resolve; product code
imports the new homes (``lint-imports`` forbids actors this module).
"""

from __future__ import annotations

from persona_mind.messages.roundtable_progress import (
    PersonaState,
    Phase,
    RoundtableProgress,
    RoundtableResult,
    State,
)
from persona_mind.persona._roundtable_progress import (
    NEXT,
    PURPOSE,
    RoundtableTracker,
    render_live,
    render_progress,
)

__all__ = (
    "NEXT",
    "PURPOSE",
    "PersonaState",
    "Phase",
    "RoundtableProgress",
    "RoundtableResult",
    "RoundtableTracker",
    "State",
    "render_live",
    "render_progress",
)
