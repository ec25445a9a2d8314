"""The plan registry: staged consolidation plans, their owners, lifetime and one-shot apply.

Rules (M-OPTIMIZE-MANUAL-33..35, -38, -39):

* at most four live plans per owner (a session/scope key); a fifth is refused, never
  evicts one silently — the caller applies or discards first;
* a plan lives ten minutes from staging, measured on the injected clock;
* a plan is immutable: frozen dataclasses and tuples, so the preview a caller saw is the
  exact change that is applied;
* :meth:`PlanRegistry.take` removes the plan as it hands it out, so one registry never
  applies a plan twice; across processes the fingerprint CAS does the same job;
* a session or scope change discards the owner's plans (:meth:`discard_owner`).

The registry lives in the Optimizer's memory only: an Optimizer restart loses the plans
(they are re-staged) while receipts, which are on disk, survive.

The values ``Plan`` and ``Applied`` are defined in ``persona_mind.messages.consolidation``
(the Optimizer answers them) and re-exported here unchanged.
"""

from __future__ import annotations

import secrets
from typing import Any

from persona_mind.messages.consolidation import Applied, Plan
from persona_mind.mind._errors import LimitExceeded, NotFound
from persona_mind.mind._model import Fact, Tier
from persona_mind.mind.optimize._errors import PlanExpired
from persona_mind.mind.optimize._stage import Replacement

__all__ = ("MAX_PLANS_PER_OWNER", "PLAN_LIFETIME", "Applied", "Plan", "PlanRegistry", "preview")

MAX_PLANS_PER_OWNER = 4
PLAN_LIFETIME = 600.0
"""Ten minutes, in wall seconds of the injected clock (rechecked inside the store lock)."""


def _fact_view(f: Fact) -> dict[str, Any]:
    return {
        "id": f.id,
        "kind": f.kind,
        "text": f.text,
        "tags": list(f.tags),
        "source": f.source,
        "recordedAt": f.recordedAt,
        "expiresAt": f.expiresAt,
        "derivedFrom": list(f.derivedFrom),
    }


def preview(plan: Plan) -> dict[str, Any]:
    """The full, reviewable proposal (M-OPTIMIZE-MANUAL-44): a fresh copy on every call."""
    return {
        "plan": plan.id,
        "tier": plan.tier,
        "fingerprint": plan.fingerprint,
        "expiresAt": plan.expires,
        "operations": [
            {
                "sources": [_fact_view(s) for s in r.sources],
                "replacement": _fact_view(r.new),
                "action": "rewrite" if len(r.sources) == 1 else "consolidate",
            }
            for r in plan.replacements
        ],
    }


class PlanRegistry:
    """In-memory plans keyed by id, bounded per owner (see the module doc)."""

    def __init__(self) -> None:
        self._plans: dict[str, Plan] = {}
        self._expired: dict[str, None] = {}  # recent expiries, so a late apply says why

    def _purge(self, now: float) -> None:
        for pid in [p.id for p in self._plans.values() if p.expires <= now]:
            del self._plans[pid]
            self._expired[pid] = None
        while len(self._expired) > 64:
            del self._expired[next(iter(self._expired))]

    def live(self, owner: str, now: float) -> tuple[Plan, ...]:
        """The owner's plans still within their lifetime, oldest first."""
        self._purge(now)
        return tuple(p for p in self._plans.values() if p.owner == owner)

    def check_room(self, owner: str, now: float) -> None:
        """Refuse when ``owner`` already has the maximum of live plans (-33)."""
        if len(self.live(owner, now)) >= MAX_PLANS_PER_OWNER:
            raise LimitExceeded(
                "plan.too_many_plans",
                f"{MAX_PLANS_PER_OWNER} plans are already staged; apply or discard one first "
                "(plans expire ten minutes after staging)",
            )

    def add(
        self,
        *,
        owner: str,
        tier: Tier,
        store: str,
        persona: str | None,
        fingerprint: str,
        replacements: tuple[Replacement, ...],
        now: float,
    ) -> Plan:
        """Register a validated plan; refuses a fifth live plan of one owner."""
        self.check_room(owner, now)
        plan = Plan(
            id="plan_" + secrets.token_hex(6),
            owner=owner,
            tier=tier,
            store=store,
            persona=persona,
            fingerprint=fingerprint,
            created=now,
            expires=now + PLAN_LIFETIME,
            replacements=replacements,
        )
        self._plans[plan.id] = plan
        return plan

    def get(self, plan_id: str, owner: str, now: float) -> Plan:
        """A live plan of ``owner`` (without consuming it)."""
        self._purge(now)
        plan = self._plans.get(plan_id)
        if plan is None and plan_id in self._expired:
            raise PlanExpired(
                "plan.expired",
                f"plan {plan_id} expired ten minutes after staging; inspect and stage again",
            )
        if plan is None or plan.owner != owner:
            raise NotFound(
                "plan.unknown",
                f"no staged plan {plan_id!r} for this session (applied, discarded by a session "
                "or scope change, or never staged); inspect and stage again",
            )
        return plan

    def take(self, plan_id: str, owner: str, now: float) -> Plan:
        """Hand out and remove a live plan: it can be applied once only (M-OPTIMIZE-MANUAL-38)."""
        plan = self.get(plan_id, owner, now)
        del self._plans[plan_id]
        return plan

    def discard(self, plan_id: str, owner: str, now: float) -> Plan:
        """Drop one plan of ``owner``."""
        return self.take(plan_id, owner, now)

    def discard_owner(self, owner: str) -> int:
        """Drop every plan of ``owner`` (session or scope change, M-OPTIMIZE-MANUAL-39)."""
        gone = [pid for pid, p in self._plans.items() if p.owner == owner]
        for pid in gone:
            del self._plans[pid]
        return len(gone)

    def clear(self) -> int:
        """Drop every plan (the owner generation advanced)."""
        count = len(self._plans)
        self._plans.clear()
        self._expired.clear()
        return count
