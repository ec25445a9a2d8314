"""The demo's product sections: Persona, Mind, and child runs on the fake ``pi``.

Children here are real processes (the fake ``pi`` shipped in ``persona_mind.sim``,
speaking Pi's RPC protocol), so the demo exercises spawn, the protocol and teardown
exactly as a real Pi child would, offline.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from persona_mind.persona import SECTIONS, SELECT_MARKER, SYNTHESIS_MARKER
from persona_mind.sim import SCRIPT_ENV, SimHost

__all__ = ("children_section", "fake_children_env", "memory_section", "persona_section")

Say = Callable[[str], object]


# The demo's round-table question is fixed ("Should the store move to SQLite?"), so its
# scripted answers can be real ones: what a panel would say, in the moderator's sections.
_ARCHITECT = (
    "Keep the JSON files for now. One writer per file under a lock is simple and crash-safe; "
    "SQLite pays off only when queries span files. Put the store behind its port so the "
    "switch is one adapter."
)
_TESTER = (
    "Whatever we pick, the crash tests must keep passing: kill -9 mid-write, torn files, two "
    "writers. SQLite's WAL mode passes them; our own format already does."
)
_SQLITE_SYNTHESIS = "\n\n".join(
    f"## {title}\n{text}"
    for (title, _), text in zip(
        SECTIONS,
        (
            "- architect: JSON files with one writer per file are simple and crash-safe; "
            "SQLite helps only for cross-file queries.\n"
            "- test-engineer: either choice must pass the same kill -9 and two-writer tests.",
            "- When: the architect would wait for a real cross-file query; the test engineer "
            "would move once the fault tests cover WAL mode.",
            "- JSON files: readable, diffable, no dependency; every query reads whole files.\n"
            "- SQLite: indexed queries and one file; a binary format and a migration.",
            "Stay on JSON files now, keep the store behind its port, and write the SQLite "
            "adapter when recall needs a query across projects.",
            "How large memories grow in real use: measure file sizes and recall times for a "
            "month before deciding again.",
        ),
        strict=True,
    )
)


_PICKS = [
    {"name": "architect", "reason": "design the module boundary"},
    {"name": "test-engineer", "reason": "say what proves the change works"},
]


def fake_children_env(workdir: Path) -> dict[str, str]:
    """A fake-pi script for the demo's consult and round-table (written to ``workdir``)."""
    script = {
        "rules": [
            {"prompt_contains": SELECT_MARKER, "reply": json.dumps({"specialists": _PICKS})},
            {"prompt_contains": SYNTHESIS_MARKER, "reply": _SQLITE_SYNTHESIS},
            {"system_contains": "security", "reply": "Scope the token to read-only; rotate it."},
            {"system_contains": "ARCHITECT", "reply": _ARCHITECT},
            {"system_contains": "architect", "reply": _ARCHITECT},
            {"system_contains": "test", "reply": _TESTER},
        ],
        "default": {"reply": _TESTER},
    }
    path = workdir / "fake-pi-script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return {SCRIPT_ENV: str(path)}


async def persona_section(host: SimHost, say: Say) -> None:
    say("\n-- persona: install -> bind -> activate -> plan -> confirm --")
    for line in (
        "/persona pack install software-team",
        "/persona team select software-team",
        "/persona use architect",
    ):
        result = await host.command(line)
        say(f"{line}\n   {result.text.splitlines()[0]}")
    owner = await host.runtime.owner()
    say(f"memory is now keyed by {owner.active_persona} (generation {owner.generation})")
    plan = await host.call_tool(
        "persona_pack", {"action": "default", "op": "set", "pack": "software-team"}
    )
    plan_id = (plan.details or {}).get("planId")
    say(f"persona_pack default set -> plan {plan_id}: {plan.text.splitlines()[0]}")
    early = await host.call_tool("persona_pack", {"action": "confirm", "planId": plan_id})
    say(f"confirm in the same turn: refused ({early.text.splitlines()[0]})")
    await host.turn("yes, make it the default")
    done = await host.call_tool("persona_pack", {"action": "confirm", "planId": plan_id})
    say(f"confirm after the user's reply: {done.text.splitlines()[0]}")


async def memory_section(host: SimHost, say: Say) -> None:
    say("\n-- mind: remember -> injection -> recall -> promotion --")
    turn = await host.turn("remember that integration tests must run against a real database")
    captured = [text for _, text in host.notifications if "remembered" in text]
    say(f"capture before the model starts: {captured[-1] if captured else 'nothing'}")
    saved = await host.call_tool(
        "memory",
        {
            "action": "remember",
            "kind": "convention",
            "text": "Record boundary decisions as ADRs",
            "tier": "stm",
        },
    )
    say(f"memory remember (stm): {saved.text.splitlines()[0]}")
    turn = await host.turn("how do we test and record the storage decision?")
    block = turn.system_prompt[turn.system_prompt.find("<persona-mind-memory>") :]
    say("injected into the next system prompt:\n   " + "\n   ".join(block.splitlines()[:8]))
    recall = await host.call_tool("memory", {"action": "recall", "query": "ADR decision"})
    say("recall:\n   " + "\n   ".join(recall.text.splitlines()[:3]))
    fact_id = (saved.details or {}).get("id")
    promoted = await host.call_tool("memory", {"action": "promote", "id": fact_id})
    say(
        "promote the STM fact to project memory:\n   "
        + "\n   ".join(promoted.text.splitlines()[:2])
    )
    files = sorted(
        p.relative_to(host.agent_dir) for p in (host.agent_dir / "persona-mind").rglob("*.json")
    )
    say("durable files: " + ", ".join(str(f) for f in files))


async def children_section(host: SimHost, say: Say) -> None:
    say("\n-- children on the fake pi (real processes): consult and round-table --")
    consult = await host.call_tool(
        "persona_consult",
        {"consultant": "security-reviewer", "question": "Is the deploy token safe?"},
    )
    say("persona_consult security-reviewer:\n   " + "\n   ".join(consult.text.splitlines()[:4]))
    question = "Should the store move to SQLite?"
    asked = await host.command(f"/persona-roundtable {question}")
    say(f"/persona-roundtable {question}\n   {asked.text}")
    await host.next_user_message()  # what Pi's lead reads; the demo plays the lead
    result = await host.call_tool("persona_roundtable", {"query": question, "specialists": _PICKS})
    say(f"the lead's persona_roundtable call: {len(host.tool_updates)} live progress updates")
    say("/persona-roundtable synthesis (in full):\n   " + "\n   ".join(result.text.splitlines()))
    status = await host.command("/persona-roundtable status")
    say("progress view:\n   " + "\n   ".join(status.text.splitlines()[:8]))
    say(f"children left running: {_children_alive()}")


def _children_alive() -> int:
    """This process's child processes that are fake pi children (0 means no orphans)."""
    me = str(os.getpid())
    count = 0
    for entry in Path("/proc").iterdir() if Path("/proc").exists() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = stat.rsplit(")", 1)[1].split()[1]  # field 4: ppid (after the comm field)
        count += parent == me and b"_fake_pi" in cmdline
    return count
