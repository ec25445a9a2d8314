"""Persona chat plans are the Owner's (P-CHAT-PLAN): the feature's side of that.

A plan the Persona half shows is issued to the Owner, and confirming one takes it there
(single use, the user's reply counted there); the Persona service never keeps plans between
calls. Per call, :class:`OwnerPlanDesk` asks the Owner for what the call needs (the plan it
confirms, or the drop it makes) and hands the service a desk holding those answers; after
the call it sends what the call issued or dropped back, before the host sees the answer.
Between calls the service's desk is :class:`HeldByOwner`, which refuses every use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from persona_mind.errors import PersonaMindError
from persona_mind.messages.owner import DropPlans, IssuePlan, OwnerMsg, Plan, TakePlan

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef
    from persona_mind.persona import OwnerPlans, PlanNeed, SessionContext

__all__ = ("HeldByOwner", "OwnerPlanDesk")


class HeldByOwner:
    """The service's plan desk between calls: the plans live in the Owner, so any use
    outside a call that was given the Owner's answers is a bug, reported as one."""

    def _refuse(self) -> PersonaMindError:
        return PersonaMindError("persona plans are held by the Owner; ask it (IssuePlan/TakePlan)")

    def issue(self, plan: Plan) -> None:
        raise self._refuse()

    def take(self, plan_id: str, session_id: str, user_messages: int) -> Plan:
        raise self._refuse()

    def drop(self, session_id: str, action_prefix: str | None = None) -> int:
        raise self._refuse()


class OwnerPlanDesk:
    """Asks the Owner for a call's plans and sends the call's changes back."""

    def __init__(self, owner: ActorRef[OwnerMsg]) -> None:
        self.owner = owner

    async def for_call(self, need: PlanNeed | None, ctx: SessionContext | None) -> OwnerPlans:
        """A per-call plan desk holding the Owner's answer to what the call needs."""
        from persona_mind.persona import OwnerPlans, PlanRefused  # noqa: PLC0415

        plans = OwnerPlans()
        if need is None or ctx is None:
            return plans
        sid = ctx.session_id
        if need.kind == "take":
            ask = TakePlan(plan_id=need.plan_id, session_id=sid, user_messages=ctx.user_messages)
            try:
                plans.taken[need.plan_id] = await self.owner.ask(ask)
            except PlanRefused as exc:  # raised where the handler takes it, as before
                plans.taken[need.plan_id] = exc
        else:
            key = (sid, need.action_prefix)
            drop = DropPlans(session_id=sid, action_prefix=key[1])
            plans.dropped[key] = await self.owner.ask(drop)
        return plans

    async def send(self, plans: OwnerPlans) -> None:
        """What the call issued or dropped, to the Owner (before the host sees the answer)."""
        for plan in plans.issued:
            await self.owner.ask(IssuePlan(plan=plan))
        for session_id, prefix in plans.drops:
            await self.owner.ask(DropPlans(session_id=session_id, action_prefix=prefix))
