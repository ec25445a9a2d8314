"""Pi's side of a pending write: the card's planId, confirmed by the user's reply.

The write policy holds a model write as a durable proposal (``mind._pending``).  In Pi the
user decides by replying to the pending card; the runtime enforces the chat-plan rule
(P-CHAT-PLAN-4..9) with the persona plan book (:class:`~persona_mind.persona.LocalPlans`,
one per session, held in memory): the card carries a fresh ``planId``; the model's
``memory confirm`` call is accepted only with that planId, in the same session, after at
least one user message arrived since the card was shown, and once.  The assistant judges
whether the reply was a yes (P-CHAT-PLAN-8); without a reply the model cannot confirm
anything alone.  A session that ends forgets its plans; the proposals stay durable and the
user can still resolve them with ``persona-mind memory pending``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import ToolResult
from persona_mind.messages.memory import origin_label

if TYPE_CHECKING:
    from persona_mind.mind import MemoryService
    from persona_mind.persona import LocalPlans

__all__ = ("PendingPlans", "is_pending_confirm")

ACTION = "mind.pending"


def is_pending_confirm(name: str, args: Any) -> bool:
    """A ``memory confirm`` answered here: every plan id but a repository link plan's
    (``pl-…``, answered by Mind's session like ``link``)."""
    if name != "memory" or not isinstance(args, dict) or args.get("action") != "confirm":
        return False
    from persona_mind.mind._link_plans import is_link_plan  # noqa: PLC0415 - after ready

    return not is_link_plan(args.get("planId"))


class PendingPlans:
    """The session's pending-card plans and its count of user messages."""

    __slots__ = ("_desk", "session_id", "user_messages")

    def __init__(self) -> None:
        self._desk: LocalPlans | None = None
        self.session_id = ""
        self.user_messages = 0

    @property
    def desk(self) -> LocalPlans:
        """The plan book, built at first use: ``ready`` loads no domain package."""
        if self._desk is None:
            from persona_mind.persona import LocalPlans  # noqa: PLC0415 - after ready

            self._desk = LocalPlans()
        return self._desk

    def start(self, session_id: str) -> None:
        """A new session: plans of the previous one can no longer be confirmed."""
        if self._desk is not None:
            self._desk.drop(self.session_id, ACTION)
        self.session_id = session_id
        self.user_messages = 0

    def user_message(self) -> None:
        self.user_messages += 1

    def card(self, result: ToolResult) -> ToolResult:
        """Give a pending card its planId (other results pass through)."""
        details = result.details if isinstance(result.details, dict) else None
        if result.is_error or details is None or not details.get("pending"):
            return result
        from persona_mind.persona.plans._chat import new_plan  # noqa: PLC0415 - after ready

        pid = str(details["id"])
        plan = new_plan(
            self.session_id, ACTION, {"id": pid}, pid, f"store {pid}", self.user_messages
        )
        self.desk.issue(plan)
        text = (
            f"{result.text}\nplanId: {plan.plan_id} — show this to the user and wait for "
            "their reply; then call memory confirm with this planId and accept true or false."
        )
        return ToolResult(text=text, details={**details, "planId": plan.plan_id})

    async def confirm(self, service: MemoryService | None, args: dict[str, Any]) -> ToolResult:
        """The model relays the user's decision on a shown card (checked, single use)."""
        plan_id, accept = args.get("planId"), args.get("accept")
        if not isinstance(plan_id, str) or not isinstance(accept, bool):
            return ToolResult(text="memory confirm needs planId and accept", is_error=True)
        if service is None:
            return ToolResult(text="Mind is inactive; nothing was confirmed", is_error=True)
        from persona_mind.mind._pending import approve, drop  # noqa: PLC0415 - after ready

        try:
            plan = self.desk.take(plan_id, self.session_id, self.user_messages)
            pid = str(dict(plan.params)["id"])
            if not accept:
                await drop(service, pid)
                return ToolResult(text=f"Dropped {pid}; it was never stored", details={"id": pid})
            fact = await approve(service, pid)
        except PersonaMindError as exc:
            return ToolResult(text=f"not confirmed: {exc}", is_error=True)
        label = origin_label(fact.origin, confirmed=fact.confirmed)
        return ToolResult(
            text=f"Saved {fact.kind} {fact.id} ({label})\n  {fact.text}",
            details={"id": fact.id, "origin": fact.origin, "confirmed": fact.confirmed},
        )
