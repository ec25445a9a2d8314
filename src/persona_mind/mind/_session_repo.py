"""A session's side of memory that follows the repository (``mind/_follow.py``).

After :meth:`MindSession.start` (synchronous, no IO: M-SCOPE-4/5) the Mind feature awaits
:func:`follow`: the repository identity is asked of ``git`` on the runtime's IO executor,
recorded, and the session is rebound to the project files of its approved link, if any.
``/mind link …`` and the memory tool's ``link`` action land here (the plan rules are
``mind/_link_plans.py``); a link rebinds the session's service at once, so the next turn
injects the shared project memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import CommandResult, ToolCall, ToolResult
from persona_mind.mind._cards import Card, clip, sanitize
from persona_mind.mind._errors import InvalidArgument, MindRefusal
from persona_mind.mind._follow import RepoState, approve_link, follow_repository, unlink
from persona_mind.mind._link_plans import is_link_plan
from persona_mind.mind._links import Candidate

if TYPE_CHECKING:
    from persona_mind.mind._session import MindSession

__all__ = ("follow", "is_link_call", "link_command", "link_tool")


async def follow(session: MindSession) -> None:
    """Bind ``session`` to its approved link and learn the link offers (best effort)."""
    service = session.service
    if service is None or session.leg:
        return
    try:
        scope, repo = await follow_repository(
            session.store, service.scope, session.clock.wall(), run_blocking=session.offload
        )
    except PersonaMindError:  # a damaged registry: the path's own memory, as before
        return
    if session.service is not service:  # rebound meanwhile: that binding follows itself
        return
    session.links.repo = repo
    if scope != service.scope:
        session.bind_scope(scope)
    if repo.offers and repo.linked is None:  # offered once per binding, never linked here
        where = clip(sanitize(repo.offers[0].root), 200)
        session.hint_once(
            f"This checkout is a clone of the repository whose project memory is kept at "
            f"{where}. Offer the user to share it: memory action 'link' with id '{where}' "
            "returns a plan; confirm it only after the user says yes."
        )


async def _link(session: MindSession, to: str) -> Candidate:
    assert session.service is not None
    scope, chosen = await approve_link(
        session.store,
        session.service.scope,
        to,
        session.clock.wall(),
        approved=True,  # only callers that hold the user's approval get here
        run_blocking=session.offload,
    )
    session.bind_scope(scope)
    repo = session.links.repo
    offers = tuple(c for c in repo.offers if c.root != chosen.root)
    session.links.repo = RepoState(repo.identity, chosen.root, offers)
    return chosen


async def _unlink(session: MindSession) -> str | None:
    assert session.service is not None
    scope, was = await unlink(session.store, session.service.scope)
    if was is not None:
        session.bind_scope(scope)
        session.links.repo = RepoState(session.links.repo.identity, None, session.links.repo.offers)
    return was


async def link_command(session: MindSession, words: list[str]) -> CommandResult:
    """``/mind link [ROOT|--unlink]``: the user's own command is the approval."""
    try:
        card = await session.links.command(
            words, lambda to: _link(session, to), lambda: _unlink(session)
        )
    except (MindRefusal, PersonaMindError) as exc:
        return CommandResult(text=str(exc), level="error")
    return CommandResult(text=card.full())


def is_link_call(call: ToolCall) -> bool:
    """``link``, or ``confirm`` of a link plan (its ``planId`` has the link prefix)."""
    args = call.arguments
    if call.name != "memory" or not isinstance(args, Mapping):
        return False
    action = args.get("action")
    return action == "link" or (action == "confirm" and is_link_plan(args.get("planId")))


async def link_tool(session: MindSession, args: Mapping[str, Any]) -> ToolResult:
    """The memory tool's ``link``: ``id`` (a root) returns a plan; ``confirm`` with its
    ``planId`` and ``accept`` (or the older ``link`` with ``plan``) answers it."""
    try:
        confirming = args.get("action") == "confirm"
        allowed = {"action", "planId", "accept"} if confirming else {"action", "id", "plan"}
        extra = sorted(set(args) - allowed)
        if extra:
            raise InvalidArgument(
                "args.unknown_field",
                f"confirm takes planId and accept, not {extra}"
                if confirming
                else f"link takes id or plan, not {extra}",
            )
        plan_id, target = args.get("planId" if confirming else "plan"), args.get("id")
        if confirming and not isinstance(args.get("accept"), bool):
            raise InvalidArgument("args.missing", "confirm needs planId and accept true/false")
        if confirming and args["accept"] is False:
            session.links.decline(str(plan_id))
            card = Card("Not linked", ("the user declined; nothing changed",))
        elif isinstance(plan_id, str) and plan_id:
            chosen = await _link(session, session.links.take(plan_id))
            card = Card(
                f"Linked to {chosen.root}",
                ("this path now shares that project's memory, STM and backlog",),
                data={"linkedTo": chosen.root},
            )
        elif isinstance(target, str) and target:
            card = session.links.plan(target)
        else:
            card = Card("Repository", session.links.status_lines())
    except (MindRefusal, PersonaMindError) as exc:
        rule = getattr(exc, "rule", "store.error")
        card = Card(f"Refused ({rule})", (str(exc),))
        return ToolResult(
            text=card.compact(), details=card.details() | {"rule": rule}, is_error=True
        )
    return ToolResult(text=card.full(), details=card.details())
