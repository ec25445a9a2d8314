"""Mind's per-session preferences: capture mode, nudges and the write
policy (M-SCOPE-8..12, M-CAPTURE-12).

They are a *snapshot* taken at session start from the companion's canonical
``<agentDir>/persona/settings.json`` (its ``"mind"`` object); Mind never writes that file
and never migrates it (Persona owns it).  ``/mind capture`` and ``/mind nudge`` change only
the running session's snapshot.  :meth:`MindSettings.contribution` is what Mind answers to
the companion's settings-collect request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from persona_mind.mind._policy import DEFAULT_POLICY, WritePolicy, parse_policy
from persona_mind.mind.capture._cues import CaptureMode

__all__ = ("MAX_SETTINGS_BYTES", "MindSettings", "load_persona_settings")

MAX_SETTINGS_BYTES = 256 * 1024


@dataclass(slots=True)
class MindSettings:
    """The session's effective Mind preferences."""

    capture: CaptureMode = "auto"
    nudge: bool = True
    write_policy: WritePolicy = DEFAULT_POLICY
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
        raw = mind.get("writePolicy", DEFAULT_POLICY)
        policy = parse_policy(raw)
        if policy is None:
            out.warnings.append(
                f"settings.json mind.writePolicy={raw!r} is invalid; using {DEFAULT_POLICY}"
            )
        else:
            out.write_policy = policy
        return out

    def contribution(self) -> dict[str, Any]:
        """Effective preferences for the companion's settings:collect:v1."""
        return {
            "mind": {
                "capture": self.capture,
                "nudge": self.nudge,
                "writePolicy": self.write_policy,
            }
        }


def load_persona_settings(agent_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    """Read ``<agentDir>/persona/settings.json`` once (read-only; Persona owns the file).

    Returns (settings, warning).  A missing file is ``(None, None)``; an unreadable,
    oversized or malformed one is ``(None, reason)`` — Mind then uses its defaults and
    says so in ``/mind status``; it never repairs or rewrites the file (M-SCOPE-10/12).
    The retired ``state.json`` and ``PI_PERSONA_STATE_FILE`` are never read (M-SCOPE-9).
    """
    path = agent_dir / "persona" / "settings.json"
    try:
        if path.stat().st_size > MAX_SETTINGS_BYTES:
            return None, f"{path} is larger than {MAX_SETTINGS_BYTES} bytes; defaults used"
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, f"{path} could not be read ({exc}); defaults used"
    if not isinstance(data, dict):
        return None, f"{path} is not a JSON object; defaults used"
    return data, None
