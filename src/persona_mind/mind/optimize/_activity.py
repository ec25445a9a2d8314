"""``pi-persona:activity:v1``: the closed activity payload of local consolidation work.

Only actual inspect / stage / apply work publishes (M-ACTIVITY-1), never a delegated leg
(-10). The payload is closed — session identity, activity identity, phase, state and
target, nothing else (-2): no memory text, paths, model or token claims (-3); the struct
forbids unknown fields so a later edit cannot widen it silently. A staged plan is shown
as ``staged``, not running (-6). :class:`ActivityBoard` keeps the rows of the current
owner only: an event of a replaced owner or scope is dropped (-7), and finished rows are
bounded (-8: the seed leaves the bound open; we keep the last 8).

The runtime projects the rows as one Mind status line (``persona-mind-activity``): a
cooperative display, not an agent — it cannot be steered or stopped and is not counted
or exported as agent telemetry (-4, -5, -9).
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = (
    "ACTIVITY_VERSION",
    "MAX_FINISHED_ROWS",
    "Activity",
    "ActivityBoard",
    "Phase",
    "State",
)

ACTIVITY_VERSION = "pi-persona:activity:v1"
MAX_FINISHED_ROWS = 8

Phase = Literal["inspect", "stage", "apply"]
State = Literal["running", "staged", "done", "failed"]
Target = Literal["persona", "shared", "project", "stm"]


class Activity(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One activity event (the whole payload)."""

    v: Literal["pi-persona:activity:v1"] = "pi-persona:activity:v1"
    session: str
    activity: str
    phase: Phase
    state: State
    target: Target

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed")


class ActivityBoard:
    """The current owner's rows: running and staged first, then the last finished ones."""

    def __init__(self) -> None:
        self.owner: str | None = None
        self.rows: dict[str, Activity] = {}

    def bind(self, owner: str | None) -> None:
        """A new owner or scope: every row of the old one goes, late events are dropped."""
        if owner != self.owner:
            self.owner = owner
            self.rows.clear()

    def publish(self, owner: str, event: Activity) -> bool:
        """Record ``event`` if it belongs to the current owner; ``False`` when suppressed."""
        if owner != self.owner or self.owner is None:
            return False
        self.rows.pop(event.activity, None)
        self.rows[event.activity] = event
        finished = [k for k, row in self.rows.items() if row.finished]
        for key in finished[: max(0, len(finished) - MAX_FINISHED_ROWS)]:
            del self.rows[key]
        return True

    def line(self) -> str | None:
        """The status line (targets, phases and states only), or ``None`` when empty."""
        if not self.rows:
            return None
        live = [r for r in self.rows.values() if not r.finished]
        shown = live or list(self.rows.values())[-1:]
        parts = [f"{r.target} {r.phase} {r.state}" for r in shown]
        return "Mind activity: " + "; ".join(parts)
