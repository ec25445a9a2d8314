"""Consolidation's own typed refusals (the rest reuse Mind's ``InvalidArgument`` & co.).

Each names the rule it enforces (``MindRefusal.rule``) and what to do instead; none is
ever raised after a byte was written.
"""

from __future__ import annotations

from persona_mind.mind._errors import MindRefusal

__all__ = ("MalformedStore", "PlanConflict", "PlanExpired", "StaleSnapshot")


class StaleSnapshot(MindRefusal):
    """Raised when a store's raw bytes changed since the inspection or plan (-13, -36)."""


class PlanExpired(MindRefusal):
    """Raised when a plan is past its ten-minute lifetime, discarded or already applied."""


class PlanConflict(MindRefusal):
    """Raised when operations overlap or a replacement collides with another row (-21, -24)."""


class MalformedStore(MindRefusal):
    """Raised when the store's rows break an invariant the plan relies on (-26)."""
