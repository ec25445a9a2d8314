"""The first ``SessionStart`` imports no heavy domain module on the event loop (P-PERF).

Importing the unsafe-content scanner (``persona_mind.mind.trust``) compiles its ~355 rule
regexes: about half a second of CPU. The Mind feature warms it on the Store's IO thread at
``SessionStart`` (``features/_warm.py``), but an actor handler that imported a Mind module on
the loop — the Optimizer's ``OwnerChanged``, the Scheduler's ``Activate`` — ran the eager
``persona_mind.mind`` facade, and so compiled the scanner on the loop or waited there for
the IO thread's import to finish (the module lock): the loop stalled ~0.5-1.5 s.

No timing here: a fresh interpreter runs a real :class:`~persona_mind.runtime.Runtime`
through its first ``SessionStart`` with an audit hook recording every module *imported* on
the loop's thread, and a wrapper around importlib's module-lock wait (called when a thread
imports a module another thread is still initialising) recording every *wait* there. Both
are facts about which thread ran which import, whatever the machine's speed;
``bench/bridge.py`` times the stall ("ping during the first SessionStart").
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

SRC = str(Path(__file__).parents[2] / "src")

PROBE = textwrap.dedent(
    """
    import asyncio, importlib._bootstrap as bootstrap, json, sys, threading
    from pathlib import Path

    from persona_mind.bridge.sidecar import LazyPiBackend
    from persona_mind.clock import MonotonicClock
    from persona_mind.messages.host import SessionStart
    from persona_mind.runtime import Runtime

    LOOP = threading.get_ident()  # asyncio.run runs the loop on this thread
    RECORDING = False
    imported, waited, elsewhere = [], [], []


    def audit(event, args):
        if event == "import" and RECORDING:
            (imported if threading.get_ident() == LOOP else elsewhere).append(args[0])


    sys.addaudithook(audit)
    real_wait = bootstrap._lock_unlock_module


    def wait(name):  # CPython calls this for a module another thread is initialising
        if RECORDING and threading.get_ident() == LOOP:
            waited.append(name)
        return real_wait(name)


    bootstrap._lock_unlock_module = wait


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


    async def main():
        global RECORDING
        agent = Path(sys.argv[1])
        clock = MonotonicClock()
        backend = LazyPiBackend(["pi"], clock=clock)
        async with Runtime(Host(), agent_dir=agent, clock=clock, child_backend=backend) as rt:
            RECORDING = True
            await rt.event(SessionStart(reason="startup", session_id="s1", cwd=str(agent)))
            RECORDING = False
            await rt.specs()
            tools = sorted(t.name for t in rt.tool_specs())
        print(json.dumps(
            {"imported": imported, "waited": waited, "elsewhere": elsewhere, "tools": tools}
        ))


    asyncio.run(main())
    """
)


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("PERSONA_MIND_LEG", None)
    return env


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One runtime start and first ``SessionStart`` in a fresh interpreter."""
    agent = tmp_path_factory.mktemp("loop-imports") / "agent"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(agent)],
        capture_output=True,
        timeout=120,
        env=_env(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _loads_the_scanner(module: str) -> bool:
    """Whether importing ``module`` alone (a fresh interpreter) imports the scanner."""
    code = f"import sys, {module}; print('persona_mind.mind.trust' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=_env(), check=True, timeout=60
    )
    return out.stdout.decode().strip() == "True"


def test_the_scanner_is_imported_off_the_loop(probe: dict[str, Any]) -> None:
    """Neither imported on the loop nor waited for there: the warm-up's thread did it."""
    on_loop = [m for m in probe["imported"] if m.startswith("persona_mind.mind.trust")]
    assert on_loop == []
    waits = [m for m in probe["waited"] if m.startswith("persona_mind.")]
    assert waits == []
    assert "persona_mind.mind.trust._gates" in probe["elsewhere"]
    assert "memory" in probe["tools"]  # the session really bound: Mind offers its tools


def test_what_the_loop_imports_of_mind_never_needs_the_scanner(probe: dict[str, Any]) -> None:
    """The Mind modules the loop imports itself are ones that load without the scanner: the
    facade is lazy, the handlers name only light rule modules, and the Mind session's own
    modules were imported by the warm-up (``features/_warm.py``'s ``SESSION_MODULES``)."""
    mind = sorted({m for m in probe["imported"] if m.startswith("persona_mind.mind")})
    assert mind, "the Scheduler's schedule rules are imported on the loop (light)"
    heavy = [m for m in mind if _loads_the_scanner(m)]
    assert heavy == []


def test_the_persona_domain_is_imported_off_the_loop(probe: dict[str, Any]) -> None:
    """Its packs, YAML and the catalog (~40 ms) are the Persona feature's first import."""
    assert [m for m in probe["imported"] if m.startswith("persona_mind.persona")] == []
    assert "persona_mind.persona.packs" in probe["elsewhere"]


def test_the_mind_facade_imports_nothing_until_a_name_is_used() -> None:
    """``import persona_mind.mind`` (which every ``persona_mind.mind.*`` import runs first)
    loads no submodule; a name loads its home module, and every listed name resolves."""
    code = textwrap.dedent(
        """
        import sys, persona_mind.mind as mind
        before = sorted(m for m in sys.modules if m.startswith("persona_mind.mind."))
        from persona_mind.mind import Tier
        after_tier = "persona_mind.mind.trust" in sys.modules
        names = {n: getattr(mind, n) is not None for n in mind.__all__}
        from persona_mind.mind._explain import render  # noqa
        print(before, after_tier, all(names.values()), mind.render_explanation is render)
        """
    ).replace("mind._explain", "mind.inject._explain")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=_env(), check=True, timeout=60
    )
    assert out.stdout.decode().split() == ["[]", "False", "True", "True"]
