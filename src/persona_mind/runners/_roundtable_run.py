"""Running one round-table end to end for a host command, a tool or the CLI.

:func:`run_roundtable` spawns a :class:`RoundtableCoordinator` for the run, reports each
changed progress snapshot to ``on_progress`` (pushed by the coordinator on every change;
snapshots never contain opinions), stops the coordinator when the run
ends and returns the one synthesis — or raises the run's typed error. Cancelling the caller
cancels the run (children stopped, no synthesis).
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections.abc import Callable
from typing import Any

from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.actors.roundtable import PHASE_DEADLINE, RoundtableCoordinator
from persona_mind.child_errors import RoundtableQueryEmpty
from persona_mind.messages.child import ChildTeam
from persona_mind.messages.roundtable_progress import RoundtableProgress, RoundtableResult
from persona_mind.messages.runner import AwaitRoundtable, CancelRoundtable, GetRoundtableProgress

__all__ = ("run_roundtable",)

_runs = itertools.count(1)


def _key(p: RoundtableProgress) -> tuple[object, ...]:
    return (
        p.phase,
        p.lead_state,
        tuple((s.name, s.state, s.activity) for s in p.roster),
        p.children_started,
        p.children_finished,
    )


async def run_roundtable(
    system: ActorSystem,
    runner: ActorRef[Any],
    team: ChildTeam,
    query: str,
    model: str,
    *,
    on_progress: Callable[[RoundtableProgress], None] | None = None,
    injection: str = "",
    phase_deadline: float = PHASE_DEADLINE,
    cwd: str | None = None,
    run_id: str | None = None,
    selection: tuple[tuple[str, str], ...] | None = None,
) -> RoundtableResult:
    """One round-table on ``team`` with children on ``runner``; see the module docstring.

    An empty query is refused before any child starts (it would only spend tokens).
    ``selection`` is the lead's validated ``(name, reason)`` roster when the session's lead
    chose by tool call; without it a child lead selects (the CLI/library path)."""
    if not query.strip():
        raise RoundtableQueryEmpty()
    rid = run_id or f"rt{next(_runs)}"
    last: list[tuple[object, ...]] = []

    def changed(snapshot: RoundtableProgress) -> None:
        if on_progress is not None and (not last or last[-1] != _key(snapshot)):
            last.append(_key(snapshot))
            on_progress(snapshot)

    coord = system.spawn(
        lambda: RoundtableCoordinator(
            runner,
            team,
            query,
            model,
            run_id=rid,
            injection=injection,
            phase_deadline=phase_deadline,
            cwd=cwd,
            on_change=changed,
            selection=selection,
        ),
        name=f"roundtable-{rid}",
    )
    result = asyncio.ensure_future(coord.ask(AwaitRoundtable(), timeout=math.inf))
    try:
        if on_progress is not None:
            changed(await coord.ask(GetRoundtableProgress()))
        return await asyncio.shield(result)
    except asyncio.CancelledError:
        # Stop the children before the cancellation goes on (bounded by the ladders).
        coord.tell_if_alive(CancelRoundtable(reason="the caller was cancelled"))
        if not result.done():
            await asyncio.wait({result}, timeout=60.0)
        raise
    finally:
        if result.done() and not result.cancelled():
            result.exception()  # retrieved: the caller saw it, or went away
        await coord.stop()
