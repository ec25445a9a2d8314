"""The demo's consolidation section (issue 11): inspect, stage, apply, history, undo.

Manual consolidation only: no model is involved (applying never spawns one). The worker
review needs a model answering strict JSON, which the demo's fake pi does not script.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_mind.sim import SimHost

__all__ = ("optimize_section",)

Say = Callable[[str], object]


def _head(text: str, lines: int = 4) -> str:
    return "\n   ".join(text.splitlines()[:lines])


async def optimize_section(host: SimHost, say: Say) -> None:
    say("\n-- mind: consolidation (inspect -> stage -> apply -> history -> undo) --")
    ids = []
    for text in ("Deploys happen on Fridays", "We deploy every Friday"):
        saved = await host.call_tool(
            "memory", {"action": "remember", "kind": "convention", "text": text, "tier": "stm"}
        )
        ids.append((saved.details or {}).get("id"))
    page = await host.call_tool("memory", {"action": "inspect", "tier": "stm"})
    say("memory inspect (stm):\n   " + _head(page.text, 6))
    staged = await host.call_tool(
        "memory",
        {
            "action": "stage",
            "tier": "stm",
            "operations": [{"sources": ids, "text": "Deploys happen every Friday"}],
        },
    )
    say("memory stage (the full proposal):\n   " + _head(staged.text, 6))
    if staged.is_error:
        return
    say(f"activity row: {host.status.get('persona-mind-activity')}")
    plan = (staged.details or {}).get("plan")
    applied = await host.command(f"/mind optimize apply {plan}")
    say(f"/mind optimize apply {plan}:\n   " + _head(applied.text, 6))
    history = await host.command("/mind optimize history stm")
    say("/mind optimize history stm:\n   " + _head(history.text, 4))
    receipt = [*applied.text.split("receipt "), ""][1].split(" ")[0]
    undone = await host.command(f"/mind optimize undo {receipt}")
    say(f"/mind optimize undo {receipt}:\n   " + _head(undone.text, 3))
