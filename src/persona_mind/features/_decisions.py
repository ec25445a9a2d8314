"""Decision records as the children feature writes and lists them, through Mind's service.

A round-table whose synthesis passed its check gets one record: :func:`record_decision`
builds it (``persona/children/_decision.py``) and writes it with ``MemoryService.remember``
into project LTM — one Store mutation, scanned like every fact, owned by the session's
active persona, so ``memory read``, ``memory forget``, recall and injection treat it like
any fact. A refusal (home is not a project, the scanner, a session that changed) leaves
the round-table's answer intact and says why nothing was recorded.

:func:`list_decisions` answers ``/persona decisions [query]``: this project's records,
newest first, or ranked for the query by the same recall the memory tool uses.
:func:`spend_status` is the children's line of ``/persona status``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import CommandResult
from persona_mind.persona.children._costs import spend_lines
from persona_mind.persona.children._decision import (
    DECISION_KIND,
    DECISION_TAGS,
    decision_line,
    decision_source,
    decision_text,
    is_decision,
)

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef
    from persona_mind.messages.roundtable_progress import RoundtableResult
    from persona_mind.mind import MemoryService

__all__ = ("list_decisions", "record_decision", "spend_status")

LIST_LIMIT = 20


def _date(wall: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(wall))


async def record_decision(
    service: MemoryService | None,
    result: RoundtableResult,
    *,
    session_file: str | None,
    call_id: str | None,
) -> str:
    """Write ``result``'s decision record; the line that says what was recorded (or not)."""
    if service is None:
        return "Not recorded: Mind memory is not active in this session."
    from persona_mind.mind._errors import MindRefusal  # noqa: PLC0415 - Mind is loaded

    try:
        found, _created = await service.remember(
            DECISION_KIND,
            decision_text(result, date=_date(service.now())),
            tags=DECISION_TAGS,
            source=decision_source(result.run_id, session_file, call_id),
            tier="project",
            origin="roundtable",
        )
    except MindRefusal as exc:
        return f"Not recorded as a decision: {exc}"
    except PersonaMindError as exc:  # the session changed, storage trouble
        return f"Not recorded as a decision: {exc}"
    return (
        f"Recorded as decision {found.fact.id} in project memory (`/persona decisions`; "
        f"`/mind read {found.fact.id}` shows it in full, `/mind forget {found.fact.id}` "
        "removes it)."
    )


async def list_decisions(service: MemoryService | None, query: str) -> CommandResult:
    """``/persona decisions [query]`` (see the module doc)."""
    if service is None:
        return CommandResult(
            text="/persona decisions: Mind memory is not active in this session", level="error"
        )
    if service.scope.project is None:
        return CommandResult(
            text="/persona decisions: decisions live in project memory, and this folder is "
            "not a project (run Pi inside a git repository)",
            level="warning",
        )
    from persona_mind.mind.inject._shown_ids import ID_CHARS  # noqa: PLC0415

    try:
        rows = await service.list_facts("project")
        decisions = [f for f in rows if is_decision(f.kind, f.tags)]
        if query:
            hits = await service.recall(query, tiers=("project",), limit=50)
            ranked = [h.fact for h in hits if h.score > 0 and is_decision(h.fact.kind, h.fact.tags)]
            decisions = ranked
    except PersonaMindError as exc:
        return CommandResult(text=f"/persona decisions: {exc}", level="error")
    if not decisions:
        what = f" matching {query!r}" if query else ""
        return CommandResult(
            text=f"No round-table decisions{what} in this project yet. "
            "`/persona-roundtable <question>` runs one; its decision is recorded here."
        )
    prefixes = [f.id[:ID_CHARS] for f in rows]

    def shown(fact_id: str) -> str:  # the prefix the memory tool resolves, whole if shared
        short = fact_id[:ID_CHARS]
        return short if prefixes.count(short) <= 1 else fact_id

    lines = [decision_line(shown(f.id), f.text) for f in decisions[:LIST_LIMIT]]
    more = len(decisions) - LIST_LIMIT
    head = f"Round-table decisions{f' for {query!r}' if query else ''} ({len(decisions)}):"
    foot = [f"(+{more} more)"] if more > 0 else []
    foot.append("`/mind read <id>` shows one in full, with every position and its dissent.")
    return CommandResult(text="\n".join([head, *lines, *foot]))


async def spend_status(runner: ActorRef[Any] | None, since: int) -> str:
    """The children's costs in this session, per persona (``/persona status``)."""
    if runner is None:
        return "\n".join(spend_lines(()))
    from persona_mind.messages.runner import ChildTotals  # noqa: PLC0415

    try:
        rows = await runner.ask(ChildTotals(since=since))
    except Exception as exc:  # a status line never fails the status
        return f"Children this session: unknown ({exc})"
    return "\n".join(spend_lines(rows))
