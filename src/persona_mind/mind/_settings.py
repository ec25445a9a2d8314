"""Mind's per-session preferences: capture mode and nudges (M-SCOPE-8..12, M-CAPTURE-12).

They are a *snapshot* taken at session start from the companion's canonical
``<agentDir>/persona/settings.json`` (its ``"mind"`` object); Mind never writes that file
and never migrates it (Persona owns it).  ``/mind capture`` and ``/mind nudge`` change only
the running session's snapshot.  :meth:`MindSettings.contribution` is what Mind answers to
the companion's settings-collect request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from persona_mind.mind._capture import CaptureMode

__all__ = ("MindSettings",)


@dataclass(slots=True)
class MindSettings:
    """The session's effective Mind preferences."""

    capture: CaptureMode = "auto"
    nudge: bool = True
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def from_persona_settings(cls, data: Mapping[str, Any] | None) -> MindSettings:
        """Read the ``mind`` object of Persona's settings; bad values keep defaults + warn."""
        out = cls()
        mind = (data or {}).get("mind")
        if mind is None:
            return out
        if not isinstance(mind, Mapping):
            out.warnings.append("settings.json 'mind' is not an object; defaults used")
            return out
        capture = mind.get("capture", "auto")
        if capture in get_args(CaptureMode):
            out.capture = capture
        else:
            out.warnings.append(f"settings.json mind.capture={capture!r} is invalid; using auto")
        nudge = mind.get("nudge", True)
        if isinstance(nudge, bool):
            out.nudge = nudge
        else:
            out.warnings.append(f"settings.json mind.nudge={nudge!r} is invalid; using true")
        return out

    def contribution(self) -> dict[str, Any]:
        """Effective preferences for the companion's settings:collect:v1."""
        return {"mind": {"capture": self.capture, "nudge": self.nudge}}
