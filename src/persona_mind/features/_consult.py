"""Running ``persona_consult``: the children feature's consult glue on the ChildRunner actor.

:func:`consult` validates the ask with the Persona consult rules (``persona/children/_consult.py``:
requester, team, self-consult, launch problems; all refused before any child starts), runs
one leaf child through the ChildRunner and returns compact provenance (P-CONSULT-2).
Sibling consults are independent: :func:`consult_many` starts them together and returns
each result or its typed error, in the order asked (P-CONSULT-5); one failing consult does
not cancel its siblings (unlike a round-table phase), because the requester synthesises
whatever came back and says what did not.

:func:`handle_consult_tool` is the tool handler the children feature calls: a refusal
becomes an error tool result whose text says what to do (the model reads it), a finished
consult the provenance text plus structured details. It never writes a summary: the
requester does (P-CONSULT-8).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import msgspec

from persona_mind.actors import ActorRef
from persona_mind.actors.child_runner import run_child
from persona_mind.errors import ChildError
from persona_mind.features._child_specs import CONSULT_TOOL
from persona_mind.messages.child import ChildTeam
from persona_mind.messages.host import ToolResult
from persona_mind.persona.children._consult import (
    CONSULT_DEADLINE,
    ConsultResult,
    build_consult_request,
    consult_result,
    render_consult,
    resolve_consultant,
)

__all__ = ("CONSULT_TOOL", "ConsultArgs", "consult", "consult_many", "handle_consult_tool")

_counter = iter(range(1, 1 << 62))


async def consult(
    runner: ActorRef[Any],
    team: ChildTeam,
    *,
    requester: str,
    active: str | None,
    consultant: str,
    question: str,
    model: str,
    context: str = "",
    injection: str = "",
    deadline: float = CONSULT_DEADLINE,
    cwd: str | None = None,
    request_id: str | None = None,
    generation: int | None = None,
) -> ConsultResult:
    """One consult. Refusals (``ConsultRefused``) are raised before any child starts."""
    asking, target = resolve_consultant(
        team, requester=requester, active=active, consultant=consultant
    )
    request = build_consult_request(
        request_id=request_id or f"consult-{next(_counter)}-{target.name}",
        requester=asking,
        consultant=target,
        question=question,
        model=model,
        context=context,
        injection=injection,
        deadline=deadline,
        cwd=cwd,
    )
    reply = await run_child(runner, request, generation=generation)
    return consult_result(asking, question, reply, target)


async def consult_many(
    runner: ActorRef[Any],
    team: ChildTeam,
    *,
    requester: str,
    active: str | None,
    asks: Sequence[tuple[str, str]],
    model: str,
    injection: str = "",
    deadline: float = CONSULT_DEADLINE,
) -> list[ConsultResult | ChildError]:
    """Several sibling consults ``[(consultant, question), ...]`` in parallel."""
    for name, _ in asks:  # refuse the whole batch before anything starts
        resolve_consultant(team, requester=requester, active=active, consultant=name)

    async def one(name: str, question: str) -> ConsultResult | ChildError:
        try:
            return await consult(
                runner,
                team,
                requester=requester,
                active=active,
                consultant=name,
                question=question,
                model=model,
                injection=injection,
                deadline=deadline,
            )
        except ChildError as exc:
            return exc

    return list(await asyncio.gather(*(one(n, q) for n, q in asks)))


class ConsultArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    consultant: str
    question: str
    context: str = ""
    requester: str | None = None


async def handle_consult_tool(
    runner: ActorRef[Any],
    team: ChildTeam,
    arguments: dict[str, Any],
    *,
    active: str | None,
    model: str,
    injection: str = "",
    deadline: float = CONSULT_DEADLINE,
    cwd: str | None = None,
    generation: int | None = None,
) -> ToolResult:
    """Run one ``persona_consult`` call; refusals and failures become error results."""
    try:
        args = msgspec.convert(arguments, ConsultArgs)
    except msgspec.ValidationError as exc:
        return ToolResult(text=f"persona_consult: bad arguments ({exc})", is_error=True)
    if not args.question.strip():
        return ToolResult(text="persona_consult: the question is empty", is_error=True)
    try:
        result = await consult(
            runner,
            team,
            requester=args.requester or active or "",
            active=active,
            consultant=args.consultant,
            question=args.question,
            context=args.context,
            model=model,
            injection=injection,
            deadline=deadline,
            cwd=cwd,
            generation=generation,
        )
    except ChildError as exc:
        return ToolResult(text=f"persona_consult: {exc}", is_error=True)
    return ToolResult(
        text=render_consult(result), details=msgspec.to_builtins(result), usage=result.usage
    )
