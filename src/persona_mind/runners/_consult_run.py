"""Running ``persona_consult``: validate, start one leaf child per consultant, return provenance.

Sibling consults are independent: :func:`consult_many` starts them together and returns
each result or its typed error, in the order asked (P-CONSULT-5); one failing consult does
not cancel its siblings (unlike a round-table phase), because the requester synthesises
whatever came back and says what did not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from persona_mind.actors import ActorRef
from persona_mind.actors.child_runner import run_child
from persona_mind.errors import ChildError
from persona_mind.messages.child import ChildTeam
from persona_mind.runners._consult_logic import (
    CONSULT_DEADLINE,
    ConsultResult,
    build_consult_request,
    consult_result,
    resolve_consultant,
)

__all__ = ("consult", "consult_many")

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
