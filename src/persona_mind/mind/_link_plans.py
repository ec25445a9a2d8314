"""Linking a session's project to a clone of its repository: the exact route and the chat plan.

Two routes to one operation (P-CHAT-PLAN-1): ``/mind link ROOT`` is the user's own command,
so it is the approval; the ``memory`` tool's ``link`` action is the chat route, and there
every change first returns a plan with a ``planId`` (``pl-…``) and changes nothing
(P-CHAT-PLAN-4). The answer has the shape of every chat plan in the memory tool,
``memory {action: "confirm", planId, accept}`` (the older ``{action: "link", plan}`` is
kept as an alias of an accepting confirm); a decline drops the plan. An accepting call is
accepted only if this
session's desk issued the plan, it is unused (single use, P-CHAT-PLAN-9), at least one user
message arrived after it was shown (P-CHAT-PLAN-7: the assistant judges the yes, the runtime
enforces the reply) and the offer still stands — the target is still a known clone of the
same repository (P-CHAT-PLAN-6). Plans are held in memory and die with the session binding
(M-SCOPE-21): :class:`LinkDesk` is rebuilt at every ``MindSession.start``.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from persona_mind.mind._cards import Card
from persona_mind.mind._errors import AccessRefused, InvalidArgument
from persona_mind.mind._follow import RepoState
from persona_mind.mind._links import Candidate

__all__ = ("LINK_PLAN_PREFIX", "LinkDesk", "LinkPlan", "is_link_plan")

MAX_LINK_PLANS = 8
LINK_PLAN_PREFIX = "pl-"
"""Link plans' ids start with it; pending-write plans (``pp-``) are the persona plan book's."""


def is_link_plan(plan_id: object) -> bool:
    """Whether ``plan_id`` names a link plan (so ``confirm`` is routed here)."""
    return isinstance(plan_id, str) and plan_id.startswith(LINK_PLAN_PREFIX)


@dataclass(frozen=True, slots=True)
class LinkPlan:
    plan_id: str
    target: str
    shown_at: int


@dataclass(slots=True)
class LinkDesk:
    """One session binding's link state: the registry's answer, plans, user messages."""

    repo: RepoState = field(default_factory=RepoState)
    user_messages: int = 0
    plans: dict[str, LinkPlan] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def status_lines(self) -> tuple[str, ...]:
        return self.repo.lines()

    def _offer(self, target: str) -> Candidate:
        offer = next((c for c in self.repo.offers if c.root == target), None)
        if offer is None:
            known = ", ".join(c.root for c in self.repo.offers) or "none"
            raise InvalidArgument(
                "link.not_candidate",
                f"{target} is not a known clone of this repository (same root commit and "
                f"remote); candidates: {known}",
            )
        return offer

    def plan(self, target: str) -> Card:
        """A link plan (changes nothing): show it, wait for the user's answer, confirm."""
        offer = self._offer(target)
        plan = LinkPlan(f"{LINK_PLAN_PREFIX}{secrets.token_hex(6)}", offer.root, self.user_messages)
        self.plans[plan.plan_id] = plan
        while len(self.plans) > MAX_LINK_PLANS:
            self.plans.pop(next(iter(self.plans)))
        return Card(
            f"Plan {plan.plan_id}: share project memory with {offer.root}",
            (
                f"this checkout and {', '.join(offer.paths)} are clones of one repository "
                f"({offer.identity.describe()})",
                "after linking, both paths read and write the same project memory, STM and "
                "backlog; nothing is copied or deleted; `/mind link --unlink` undoes it",
                "nothing changed yet: show this to the user and wait for their reply; then "
                f"call memory with action 'confirm', planId '{plan.plan_id}' and accept "
                "true or false as the user decided",
            ),
            data={"planId": plan.plan_id, "target": offer.root},
        )

    def decline(self, plan_id: str) -> None:
        """The user said no: the plan is used up and nothing changes."""
        if plan_id not in self.plans:
            self.take(plan_id)  # raises the used/unknown refusal
        self.plans.pop(plan_id, None)
        self.used.add(plan_id)

    def take(self, plan_id: str) -> str:
        """The approved target of ``plan_id`` (rules in the module doc), marked used."""
        if plan_id in self.used:
            raise AccessRefused(
                "plan.used", f"plan {plan_id} was already used; plans are single-use"
            )
        plan = self.plans.get(plan_id)
        if plan is None:
            raise AccessRefused(
                "plan.unknown",
                f"plan {plan_id} was not issued in this session; ask for a fresh plan",
            )
        if self.user_messages <= plan.shown_at:
            raise AccessRefused(
                "link.unapproved",
                f"plan {plan_id} needs the user's reply first: show the plan, wait for "
                "their answer, then confirm",
            )
        del self.plans[plan_id]
        self.used.add(plan_id)
        self._offer(plan.target)  # the offer must still stand (P-CHAT-PLAN-6)
        return plan.target

    async def command(
        self,
        words: list[str],
        link: Callable[[str], Awaitable[Candidate]],
        unlink: Callable[[], Awaitable[str | None]],
    ) -> Card:
        """``/mind link`` (list), ``/mind link ROOT`` (the user's own approval),
        ``/mind link --unlink``."""
        if not words:
            return Card("Repository", self.repo.lines())
        if words == ["--unlink"]:
            was = await unlink()
            return Card("Unlinked" if was else "Not linked", ((f"from {was}",) if was else ()))
        if len(words) != 1:
            raise InvalidArgument("args.usage", "usage: /mind link [ROOT|--unlink]")
        chosen = await link(self._offer(words[0]).root)
        return Card("Linked", (f"this path now shares the project memory of {chosen.root}",))
