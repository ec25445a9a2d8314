"""Persona chat plans: single-use, state-matched, replied to (P-CHAT-PLAN-4..9).

The plans are an immutable :class:`PlanBook` value; the Owner actor holds the runtime's
book (checkpointed, so a plan survives an Owner or Companion restart) and changes it with
the pure functions here. A plan is accepted only when (1) this runtime's book issued it,
(2) for the same session, (3) it is unused, (4) at least one user message arrived after it
was shown, and (5) the state digest still matches — the caller re-prepares the change and
compares the fresh digest. The assistant judges whether that message is a yes; the runtime
enforces only the intervening reply (P-CHAT-PLAN-8).

The handlers (``run_tool``, ``run_command``) are synchronous and run off the event loop, so
they cannot ask the Owner themselves. They talk to a :class:`PlanDesk`:

- :class:`LocalPlans` holds a book in place, for a caller that is its own owner (the CLI,
  the tour, the domain's tests);
- :class:`OwnerPlans` is the runtime's per-call desk: the Persona feature fills it with the
  Owner's answers before the call (:func:`plan_needs` says which) and sends what the call
  issued or dropped to the Owner afterwards. It keeps nothing between calls.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from persona_mind.messages.owner import Plan
from persona_mind.persona._errors import PlanRefused

__all__ = (
    "MAX_PLANS_PER_SESSION",
    "MAX_USED_REMEMBERED",
    "LocalPlans",
    "OwnerPlans",
    "Plan",
    "PlanBook",
    "PlanDesk",
    "PlanNeed",
    "new_plan",
)

MAX_PLANS_PER_SESSION = 16
"""Outstanding plans kept per session; the oldest is forgotten first (memory bound)."""

MAX_USED_REMEMBERED = 1024
"""Used plan ids remembered so a replay says "already used"; older ones read as unknown
(still refused: the book no longer holds them)."""


def new_plan(
    session_id: str,
    action: str,
    args: Mapping[str, Any],
    digest: str,
    summary: str,
    shown_at: int,
    *,
    reload: bool = False,
) -> Plan:
    """A fresh plan value with an unguessable id (nothing is recorded yet)."""
    return Plan(
        plan_id=f"pp-{secrets.token_hex(6)}",
        session_id=session_id,
        action=action,
        params=tuple(sorted(args.items())),
        digest=digest,
        summary=summary,
        shown_at=shown_at,
        reload=reload,
    )


class PlanBook(msgspec.Struct, frozen=True, kw_only=True):
    """Every outstanding plan of a runtime (oldest first) and the ids already used."""

    plans: tuple[Plan, ...] = ()
    used: tuple[str, ...] = ()

    def issue(self, plan: Plan) -> PlanBook:
        """The book with ``plan`` recorded (the session's oldest beyond the cap forgotten)."""
        plans = (*(p for p in self.plans if p.plan_id != plan.plan_id), plan)
        mine = [p for p in plans if p.session_id == plan.session_id]
        if len(mine) > MAX_PLANS_PER_SESSION:
            doomed = {p.plan_id for p in mine[: len(mine) - MAX_PLANS_PER_SESSION]}
            plans = tuple(p for p in plans if p.plan_id not in doomed)
        return msgspec.structs.replace(self, plans=plans)

    def check(self, plan_id: str, session_id: str, user_messages: int) -> Plan:
        """The plan if rules 1-4 hold (rule 5 is the caller's digest compare)."""
        if plan_id in self.used:
            raise PlanRefused(
                "used", f"plan {plan_id} was already used; plans are single-use — ask for a new one"
            )
        plan = next((p for p in self.plans if p.plan_id == plan_id), None)
        if plan is None:
            raise PlanRefused(
                "unknown",
                f"plan {plan_id} was not issued by this runtime (it may predate a restart or "
                "come from elsewhere); ask for a fresh plan",
            )
        if plan.session_id != session_id:
            raise PlanRefused(
                "other-session", f"plan {plan_id} belongs to another session; plan it here"
            )
        if user_messages <= plan.shown_at:
            raise PlanRefused(
                "no-reply",
                f"plan {plan_id} needs the user's reply first: show the plan, wait for their "
                "answer, then confirm",
            )
        return plan

    def take(self, plan_id: str, session_id: str, user_messages: int) -> tuple[PlanBook, Plan]:
        """Check rules 1-4 and mark the plan used (whatever the caller's digest outcome)."""
        plan = self.check(plan_id, session_id, user_messages)
        used = (*self.used, plan_id)[-MAX_USED_REMEMBERED:]
        plans = tuple(p for p in self.plans if p.plan_id != plan_id)
        return msgspec.structs.replace(self, plans=plans, used=used), plan

    def drop(self, session_id: str, action_prefix: str | None = None) -> tuple[PlanBook, int]:
        """Forget a session's plans (all, or those whose action starts with a prefix)."""
        kept = tuple(
            p
            for p in self.plans
            if p.session_id != session_id
            or (action_prefix is not None and not p.action.startswith(action_prefix))
        )
        return msgspec.structs.replace(self, plans=kept), len(self.plans) - len(kept)

    def outstanding(self, session_id: str) -> tuple[Plan, ...]:
        """The session's unused plans, oldest first."""
        return tuple(p for p in self.plans if p.session_id == session_id)


class PlanDesk(Protocol):
    """What a Persona handler may do with plans (see the module docstring)."""

    def issue(self, plan: Plan) -> None: ...

    def take(self, plan_id: str, session_id: str, user_messages: int) -> Plan: ...

    def drop(self, session_id: str, action_prefix: str | None = None) -> int: ...


@dataclass(slots=True)
class LocalPlans:
    """A desk that is its own owner: holds one book and replaces it on every change."""

    book: PlanBook = field(default_factory=PlanBook)

    def issue(self, plan: Plan) -> None:
        self.book = self.book.issue(plan)

    def take(self, plan_id: str, session_id: str, user_messages: int) -> Plan:
        self.book, plan = self.book.take(plan_id, session_id, user_messages)
        return plan

    def drop(self, session_id: str, action_prefix: str | None = None) -> int:
        self.book, dropped = self.book.drop(session_id, action_prefix)
        return dropped

    def outstanding(self, session_id: str) -> tuple[Plan, ...]:
        return self.book.outstanding(session_id)


@dataclass(frozen=True, slots=True)
class PlanNeed:
    """What a call needs from the Owner's book before it runs: a plan taken, or a count
    of plans dropped (``kind`` ``take`` or ``drop``)."""

    kind: str
    plan_id: str = ""
    action_prefix: str | None = None


@dataclass(slots=True)
class OwnerPlans:
    """The runtime's per-call desk: the Owner's answers in, the call's changes out.

    ``taken`` and ``dropped`` are filled by the caller from the Owner's answers to
    ``TakePlan`` / ``DropPlans`` (a refusal is kept and raised at the handler's ``take``);
    ``issued`` and ``drops`` are what the handler did, for the caller to send on.
    """

    taken: dict[str, Plan | PlanRefused] = field(default_factory=dict)
    dropped: dict[tuple[str, str | None], int] = field(default_factory=dict)
    issued: list[Plan] = field(default_factory=list)
    drops: list[tuple[str, str | None]] = field(default_factory=list)

    def issue(self, plan: Plan) -> None:
        self.issued.append(plan)

    def take(self, plan_id: str, session_id: str, user_messages: int) -> Plan:
        answer = self.taken.get(plan_id)
        if answer is None:  # the caller did not ask: never guess from a local copy
            raise PlanRefused(
                "unknown",
                f"plan {plan_id} could not be looked up in the runtime's plans; try again",
            )
        if isinstance(answer, PlanRefused):
            raise answer
        return answer

    def drop(self, session_id: str, action_prefix: str | None = None) -> int:
        known = self.dropped.get((session_id, action_prefix))
        if known is not None:
            return known
        self.drops.append((session_id, action_prefix))  # sent after the call
        return 0
