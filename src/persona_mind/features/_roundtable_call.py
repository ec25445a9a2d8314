"""The lead's ``persona_roundtable`` tool call, run on the RoundtableDesk with a live display.

In Pi, ``/persona-roundtable <q>`` asks the session's lead (a user message) to select
specialists; the lead answers with exactly one ``persona_roundtable`` call whose arguments
are the selection (P-ROUNDTABLE-2, -4). :func:`run_roundtable_call` runs that accepted call:
it asks the desk for the round-table (Round 1, Round 2, synthesis on children) and, while
it runs, long-polls the desk's progress (``WatchRoundtable``) and streams each snapshot to
the host as a partial result of the call (``HostPort.tool_update`` → Pi's ``onUpdate``;
P-ROUNDTABLE-17). The answer is the synthesis in full, with the instruction to present it
without paraphrasing (P-ROUNDTABLE-16); a failed phase is an error result that says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.child_errors import RoundtableBusy
from persona_mind.errors import ChildError
from persona_mind.messages.host import ToolResult
from persona_mind.messages.roundtable_desk import StartRoundtable, WatchRoundtable
from persona_mind.messages.roundtable_progress import RoundtableResult
from persona_mind.persona.children._progress import render_live

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef
    from persona_mind.host import HostPort

__all__ = ("PRESENT_IN_FULL", "result_text", "run_roundtable_call")

PRESENT_IN_FULL = (
    "Present the synthesis below to the user in full and word for word, as your answer: "
    "do not paraphrase, shorten or summarize it into a second, shorter answer."
)


def result_text(result: RoundtableResult) -> str:
    """The tool's answer to the lead: totals, the instruction, then the whole synthesis."""
    tokens = result.usage.input_tokens + result.usage.output_tokens
    roster = ", ".join(name for name, _ in result.roster)
    return (
        f"Round-table finished: moderator {result.lead}; specialists {roster}; "
        f"{result.children} children, {tokens} tokens, {result.elapsed:.1f}s.\n"
        f"{PRESENT_IN_FULL}\n\n{result.synthesis}"
    )


async def _relay(desk: ActorRef[Any], host: HostPort, call_id: str) -> None:
    """Stream the desk's progress snapshots of the running round-table to the call."""
    seen = 0
    while True:
        news = await desk.ask(WatchRoundtable(after=seen), timeout=math.inf)
        seen = news.version
        if news.running and news.progress is not None:
            await host.tool_update(
                call_id,
                render_live(news.progress),
                {"roundtable": msgspec.to_builtins(news.progress)},
            )


async def run_roundtable_call(
    desk: ActorRef[Any], host: HostPort, call_id: str, start: StartRoundtable
) -> ToolResult:
    """Run the accepted selection; see the module doc. Cancelling it stops the run."""
    relay = asyncio.ensure_future(_relay(desk, host, call_id))
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
        )
    finally:
        relay.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await relay
    return ToolResult(
        text=result_text(result),
        details={
            "query": result.query,
            "lead": result.lead,
            "roster": [list(r) for r in result.roster],
            "children": result.children,
            "tokens": result.usage.input_tokens + result.usage.output_tokens,
            "elapsed": result.elapsed,
        },
    )
