"""Persona chat plans: single-use, in memory, state-matched, replied to (P-CHAT-PLAN-4..9).

The registry is plain state owned by one actor (the Owner): no locks. A plan is accepted
only when (1) this registry issued it, (2) for the same session, (3) it is unused, (4) at
least one user message arrived after it was shown, and (5) the state digest still matches
— the caller re-prepares the change and passes the fresh digest. The assistant judges
whether that message is a yes; the runtime enforces only the intervening reply (P-CHAT-PLAN-8).
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from persona_mind.persona._errors import PlanRefused

__all__ = ("MAX_PLANS_PER_SESSION", "Plan", "PlanRegistry")

MAX_PLANS_PER_SESSION = 16
"""Outstanding plans kept per session; the oldest is forgotten first (memory bound)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """One issued plan."""

    plan_id: str
    session_id: str
    action: str
    args: dict[str, Any]
    digest: str
    summary: str
    shown_at: int
    """The session's user-message count when the plan was shown."""
    reload: bool = False


@dataclass(slots=True)
class PlanRegistry:
    """The plans one runtime issued, per session."""

    runtime_id: str = field(default_factory=lambda: secrets.token_hex(3))
    _plans: dict[str, OrderedDict[str, Plan]] = field(default_factory=dict)
    _used: set[str] = field(default_factory=set)

    def issue(
        self,
        session_id: str,
        action: str,
        args: dict[str, Any],
        digest: str,
        summary: str,
        shown_at: int,
        *,
        reload: bool = False,
    ) -> Plan:
        """Record a new plan and return it (nothing else changes)."""
        plan = Plan(
            plan_id=f"pp-{self.runtime_id}-{secrets.token_hex(5)}",
            session_id=session_id,
            action=action,
            args=dict(args),
            digest=digest,
            summary=summary,
            shown_at=shown_at,
            reload=reload,
        )
        plans = self._plans.setdefault(session_id, OrderedDict())
        plans[plan.plan_id] = plan
        while len(plans) > MAX_PLANS_PER_SESSION:
            plans.popitem(last=False)
        return plan

    def check(self, plan_id: str, session_id: str, user_messages: int) -> Plan:
        """The plan if rules 1-4 hold (rule 5 is the caller's digest compare)."""
        if plan_id in self._used:
            raise PlanRefused(
                "used", f"plan {plan_id} was already used; plans are single-use — ask for a new one"
            )
        owner = next((s for s, ps in self._plans.items() if plan_id in ps), None)
        if owner is None:
            raise PlanRefused(
                "unknown",
                f"plan {plan_id} was not issued by this runtime (it may predate a restart or "
                "come from elsewhere); ask for a fresh plan",
            )
        if owner != session_id:
            raise PlanRefused(
                "other-session", f"plan {plan_id} belongs to another session; plan it here"
            )
        plan = self._plans[owner][plan_id]
        if user_messages <= plan.shown_at:
            raise PlanRefused(
                "no-reply",
                f"plan {plan_id} needs the user's reply first: show the plan, wait for their "
                "answer, then confirm",
            )
        return plan

    def consume(self, plan: Plan) -> None:
        """Mark the plan used (after a successful check, whatever the digest outcome)."""
        self._used.add(plan.plan_id)
        self._plans.get(plan.session_id, OrderedDict()).pop(plan.plan_id, None)

    def drop_session(self, session_id: str, action_prefix: str | None = None) -> int:
        """Forget a session's plans (all, or those whose action starts with a prefix)."""
        plans = self._plans.get(session_id)
        if not plans:
            return 0
        doomed = [
            pid
            for pid, p in plans.items()
            if action_prefix is None or p.action.startswith(action_prefix)
        ]
        for pid in doomed:
            del plans[pid]
        return len(doomed)

    def outstanding(self, session_id: str) -> tuple[Plan, ...]:
        """The session's unused plans, oldest first."""
        return tuple(self._plans.get(session_id, OrderedDict()).values())
