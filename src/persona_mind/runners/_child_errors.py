"""Old home of the child errors: a re-export of :mod:`persona_mind.child_errors`.

The same classes (names and messages unchanged), kept so older imports still resolve;
product code imports ``persona_mind.child_errors`` (``lint-imports`` forbids actors this
module).
"""

from __future__ import annotations

from persona_mind.child_errors import (
    ChildCancelled,
    ChildDeadlineExceeded,
    ChildDied,
    ChildExited,
    ChildModelError,
    ChildProtocolError,
    ChildSpawnFailed,
    ConsultRefused,
    PersonaNotInTeam,
    RequesterNotActive,
    RoundtableBusy,
    RoundtableFailed,
    RoundtableQueryEmpty,
    SelectionInvalid,
    SelfConsult,
    SynthesisIncomplete,
)

__all__ = (
    "ChildCancelled",
    "ChildDeadlineExceeded",
    "ChildDied",
    "ChildExited",
    "ChildModelError",
    "ChildProtocolError",
    "ChildSpawnFailed",
    "ConsultRefused",
    "PersonaNotInTeam",
    "RequesterNotActive",
    "RoundtableBusy",
    "RoundtableFailed",
    "RoundtableQueryEmpty",
    "SelectionInvalid",
    "SelfConsult",
    "SynthesisIncomplete",
)
