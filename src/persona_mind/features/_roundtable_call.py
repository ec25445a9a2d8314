"""The lead's ``persona_roundtable`` tool call, run on the RoundtableDesk with a live display.

In Pi, ``/persona-roundtable <q>`` asks the session's lead (a user message) to select
specialists; the lead answers with exactly one ``persona_roundtable`` call whose arguments
are the selection (P-ROUNDTABLE-2, -4). :func:`run_roundtable_call` runs that accepted call:
it asks the desk for the round-table (Round 1, Round 2, synthesis on children) with a
display that sends each progress snapshot to the host as a partial result of the call
(``HostPort.tool_update`` → Pi's ``onUpdate``; P-ROUNDTABLE-17) — the desk runs that
display as its own work, so nothing here starts a task. Once the synthesis passed its
check, ``record`` writes the decision record (one Store mutation) and says what it wrote.

The answer is the synthesis in full, with the instruction to present it without
paraphrasing (P-ROUNDTABLE-16), ending with the dissent line, the same-model warning when
it applies and the record's id; it carries the children's total ``usage``, which Pi adds
to the session's totals. A failed phase is an error result that says so (and carries what
the finished children spent).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.child_errors import RoundtableBusy
from persona_mind.errors import ChildError
from persona_mind.messages.host import ToolResult
from persona_mind.messages.roundtable_desk import RoundtableStatus, StartRoundtable
from persona_mind.messages.roundtable_progress import RoundtableProgress, RoundtableResult
from persona_mind.persona.children._costs import usage_text
from persona_mind.persona.children._decision import dissent_line
from persona_mind.persona.children._progress import render_live
from persona_mind.persona.children._verdict import model_warning

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef
    from persona_mind.feature import UntrustedText
    from persona_mind.host import HostPort
    from persona_mind.messages.child import ChildUsage

__all__ = ("PRESENT_IN_FULL", "Record", "display_text", "result_text", "run_roundtable_call")

PRESENT_IN_FULL = (
    "Present the synthesis below to the user in full and word for word, as your answer: "
    "do not paraphrase, shorten or summarize it into a second, shorter answer."
)

Record = Callable[[RoundtableResult], Awaitable[str]]
"""Writes a finished round-table's decision record; returns the line that says so."""


def result_text(result: RoundtableResult, recorded: str = "") -> str:
    """The tool's answer to the lead: totals, the instruction, the whole synthesis, then
    the dissent line, the same-model warning and the record line (see the module doc)."""
    roster = ", ".join(name for name, _ in result.roster)
    tail = [dissent_line(result)]
    if result.same_model:
        tail.append(model_warning(result.same_model))
    if recorded:
        tail.append(recorded)
    return (
        f"Round-table finished: moderator {result.lead}; specialists {roster}; "
        f"{result.children} children, {usage_text(result.usage)}, {result.elapsed:.1f}s.\n"
        f"{PRESENT_IN_FULL}\n\n{result.synthesis}\n\n" + "\n".join(tail)
    )


def _positions(result: RoundtableResult) -> list[str]:
    return [f"{p.name}: {p.reason}\n{p.round1}\n{p.final}" for p in result.positions]


def display_text(text: str) -> str:
    """The answer as the user's box shows it: the instruction meant for the lead left out.

    Pi renders the tool result the model reads; the extension shows ``details.display``
    instead for the round-table, so the user never reads "Present the synthesis …"."""
    return text.replace(f"{PRESENT_IN_FULL}\n", "", 1)


def _display(host: HostPort, call_id: str) -> Callable[[RoundtableProgress], Awaitable[None]]:
    async def show(progress: RoundtableProgress) -> None:
        await host.tool_update(
            call_id, render_live(progress), {"roundtable": msgspec.to_builtins(progress)}
        )

    return show


async def _spent(desk: ActorRef[Any]) -> ChildUsage | None:
    """What the children of the run that just ended had spent (its last snapshot)."""
    try:
        status = await desk.ask(RoundtableStatus())
    except Exception:  # the error result matters more than its usage
        return None
    return None if status.progress is None else status.progress.usage


async def run_roundtable_call(
    desk: ActorRef[Any],
    host: HostPort,
    call_id: str,
    start: StartRoundtable,
    record: Record | None = None,
    sink: UntrustedText | None = None,
) -> ToolResult:
    """Run the accepted selection; see the module doc. Cancelling it stops the run.

    ``sink`` receives the whole answer — the synthesis and every specialist's stated
    position — as a peer's text for the session's taint ledger: Pi forwards only the head
    of a tool result, and a model write copying any part of it must still be tainted."""
    start = msgspec.structs.replace(start, on_progress=_display(host, call_id))
    try:
        result: RoundtableResult = await desk.ask(start, timeout=math.inf)
    except RoundtableBusy:
        return ToolResult(
            text="persona_roundtable: another round-table is already running; tell the user "
            "to wait for it (/persona-roundtable status) and ask again",
            is_error=True,
        )
    except ChildError as exc:
        return ToolResult(
            text=f"persona_roundtable: the round-table stopped: {exc}. Tell the user it "
            "failed and why; do not write a synthesis of your own.",
            is_error=True,
            usage=await _spent(desk),
        )
    recorded = await record(result) if record is not None else ""
    text = result_text(result, recorded)
    if sink is not None:
        sink("peer", "\n".join([text, *_positions(result)]))
    return ToolResult(
        text=text,
        details={
            "display": display_text(text),
            "query": result.query,
            "lead": result.lead,
            "roster": [list(r) for r in result.roster],
            "children": result.children,
            "tokens": result.usage.total_tokens,
            "usage": msgspec.to_builtins(result.usage),
            "elapsed": result.elapsed,
            "positions": msgspec.to_builtins(result.positions),
            "decision": result.decision,
            "same_model": result.same_model,
            "recorded": recorded,
        },
        usage=result.usage,
    )
