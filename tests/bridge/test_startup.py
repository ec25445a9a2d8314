"""Sidecar start-up stays lean and honest (docs/bridge.md, performance).

The runtime answers ``ready`` with its whole actor tree spawned but without importing the
domain packages (Persona, Mind, the storage engine, the child-process layer): each actor
builds its services at its first message. It offers exactly the tools and commands the full
runtime offers, and a session that starts afterwards gets everything it had before. The
spec copies that make this possible are pinned to their originals here. No timing: these
tests assert *what* is loaded when, which is deterministic; ``bench/bridge.py`` times it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from persona_mind import children as child
from persona_mind.features import _child_specs
from persona_mind.features._mind import UNBOUND_COMMANDS
from persona_mind.messages import owner as owner_messages
from persona_mind.messages._base import Ask, Msg
from persona_mind.mind._commands import command_specs

#: Imported only once a session, a pack or a child needs them.
HEAVY = (
    "persona_mind.persona",
    "persona_mind.mind",
    "persona_mind.storage._engine",
    "persona_mind.children",
    "persona_mind.runners._child_process",
    "persona_mind.actors.optimizer._consolidator",
    "persona_mind.actors.optimizer._review",
    "portalocker",
    "yaml",
    "importlib.metadata",
)

PROBE = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path

    from persona_mind.clock import MonotonicClock
    from persona_mind.messages.host import SessionStart
    from persona_mind.bridge.sidecar import LazyPiBackend
    from persona_mind.runtime import Runtime

    HEAVY = json.loads(sys.argv[2])


    class Host:
        async def register_tools(self, tools): pass
        async def register_commands(self, commands): pass
        async def append_entry(self, custom_type, data): pass
        async def branch_entries(self): return ()
        async def notify(self, text, level="info"): pass
        async def set_status(self, key, text): pass
        async def display(self, message): pass
        async def send_user_message(self, text): pass
        async def request_reload(self): pass


    def snapshot(rt):
        return {
            "actors": [c.name for c in rt.system.root.children],
            "tools": sorted(t.name for t in rt.tool_specs()),
            "commands": sorted(c.name for c in rt.command_specs()),
            "loaded": sorted(m for m in HEAVY if m in sys.modules),
        }


    async def main():
        agent = Path(sys.argv[1])
        clock = MonotonicClock()
        backend = LazyPiBackend(["pi"], clock=clock)
        out = {}
        async with Runtime(Host(), agent_dir=agent, clock=clock, child_backend=backend) as rt:
            out["ready"] = snapshot(rt)
            await rt.event(SessionStart(reason="startup", session_id="s1", cwd=str(agent)))
            await rt.specs()
            out["session"] = snapshot(rt)
        print(json.dumps(out))


    asyncio.run(main())
    """
)


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One runtime start and session start in a fresh interpreter (shared by the tests)."""
    tmp_path = tmp_path_factory.mktemp("startup")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    env.pop("PERSONA_MIND_LEG", None)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "agent"), json.dumps(HEAVY)],
        capture_output=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def test_ready_loads_no_domain_package_yet_offers_every_command(probe: dict[str, Any]) -> None:
    out = probe
    assert out["ready"]["loaded"] == []
    assert out["ready"]["commands"] == [
        "mind",
        "persona",
        "persona-list",
        "persona-mind",
        "persona-roundtable",
    ]
    assert out["ready"]["tools"] == []  # no session yet: no tool (M-COMPANION-2)
    # the whole tree is there already (issue 22): nothing is spawned at first use
    assert out["ready"]["actors"] == [
        "host-proxy",
        "store",
        "owner",
        "reminder",
        "child-runner",
        "roundtables",
        "optimizer",
        "scheduler",
        "companion",
    ]
    assert out["session"]["actors"] == out["ready"]["actors"]


def test_a_started_session_has_its_tools_and_still_no_child_process_layer(
    probe: dict[str, Any],
) -> None:
    out = probe
    session = out["session"]
    assert "persona_consult" in session["tools"]
    assert session["commands"] == out["ready"]["commands"]
    # the session needed Persona, Mind and the Store; children load at the first consult
    assert "persona_mind.persona" in session["loaded"]
    assert "persona_mind.mind" in session["loaded"]
    assert "persona_mind.children" not in session["loaded"]
    assert "persona_mind.runners._child_process" not in session["loaded"]


def test_offered_specs_are_the_implementations_specs() -> None:
    """The children specs have one definition; Mind's pre-session copy equals the real one."""
    assert child.CONSULT_TOOL is _child_specs.CONSULT_TOOL
    assert child.ROUNDTABLE_COMMAND is _child_specs.ROUNDTABLE_COMMAND
    assert command_specs() == UNBOUND_COMMANDS


def test_ask_classes_are_built_without_typing_generics() -> None:
    """``Ask[R]`` names the answer for the type checker only: at run time it is ``Ask``, so
    the ~60 ask classes defined before ``ready`` skip ``typing``'s generic alias and
    parameter collection (issue 24), and an ask is still a tagged, frozen message."""
    assert Ask[int] is Ask
    ask = owner_messages.GetOwner
    assert ask.__mro__[1:3] == (Ask, Msg)
    assert all(base.__module__ != "typing" for base in ask.__mro__)
    assert not hasattr(ask, "__orig_bases__")
    assert ask.__struct_config__.tag == "GetOwner"
    assert ask.__struct_config__.frozen
