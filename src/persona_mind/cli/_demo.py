"""The offline demo: a simulated session on the embedded defaults, narrated.

The user's story comes first — install a persona pack and pick a persona, remember and
recall, consult a peer, ask the round-table — then the internals that make it trustworthy
(supervised restarts, lifecycle generations, fan-out), then what to try next. Everything
runs on real parts (real actors, real files in the agent directory, real child processes on
the shipped fake ``pi``). The agent directory is the one given (kept) or a temporary one;
the demo's workspace and fake-``pi`` script live in a temporary directory either way, so a
user-given agent directory gets nothing beside it. ``tests/runtime/test_demo_and_cli.py``
runs it.
"""

from __future__ import annotations

import asyncio
import functools
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from persona_mind.actors import Actor, ActorRef, RestartPolicy, fan_out
from persona_mind.clock import MonotonicClock
from persona_mind.errors import ActorStopped, FanOutFailed
from persona_mind.messages._base import Msg
from persona_mind.runtime import Runtime
from persona_mind.sim import SimHost, fake_pi_command

__all__ = ("run_demo",)

Say = Callable[[str], object]


class Work(Msg, frozen=True, kw_only=True):
    job: str


class Flaky(Actor[Work]):
    """Crashes on its first job after each start, to show one-for-one restarts."""

    crashed_once = False

    async def receive(self, message: Work) -> object:
        if not Flaky.crashed_once:
            Flaky.crashed_once = True
            raise RuntimeError(f"disk hiccup while doing {message.job}")
        return f"{message.job} done"


class Index(Msg, frozen=True, kw_only=True):
    job: str


IndexerMsg = Index


class Indexer(Actor[IndexerMsg]):
    """Compares no generation itself: the kernel drops work stamped with a replaced one."""

    def __init__(self) -> None:
        self.done: list[str] = []

    async def receive(self, message: IndexerMsg) -> object:
        self.done.append(message.job)
        return list(self.done)


async def _supervision(runtime: Runtime, say: Say) -> None:
    say("\n-- supervised actors --")
    sup = runtime.system.supervisor("demo-workers", RestartPolicy(max_restarts=3, within=5.0))
    flaky = sup.spawn(Flaky, name="flaky-worker")
    try:
        await flaky.ask(Work(job="job-1"))
    except ActorStopped as err:
        say(f"job-1 failed: {err}")
    say(
        f"retry after restart: {await flaky.ask(Work(job='job-1'))} "
        f"(restarts: {flaky.statistics().restarts})"
    )


async def _generations(host: SimHost, say: Say) -> None:
    say("\n-- lifecycle generations --")
    runtime = host.runtime
    indexer: ActorRef[IndexerMsg] = runtime.system.spawn(Indexer, name="indexer")
    old = (await runtime.owner()).generation
    indexer.tell(Index(job="index notes of session 1"), generation=old)
    await host.start("new")
    new = (await runtime.owner()).generation
    say(f"session replaced: generation {old} -> {new}")
    indexer.tell(Index(job="late result from session 1"), generation=old)
    done = await indexer.ask(Index(job="index notes of session 2"), generation=new)
    say(f"work applied: {done}")
    say(
        f"stale work dropped: {indexer.statistics().dropped_stale} "
        "(a late result can never reach a replaced session)"
    )


async def _fanout(say: Say) -> None:
    say("\n-- fan-out / fan-in --")

    async def specialist(name: str, seconds: float, fail: bool = False) -> str:
        await asyncio.sleep(seconds)
        if fail:
            raise RuntimeError(f"{name} could not answer")
        return f"{name}: considered"

    started = time.perf_counter()
    answers = await fan_out(
        {n: functools.partial(specialist, n, 0.05) for n in ("architect", "tester", "reviewer")},
        timeout=5,
    )
    elapsed = (time.perf_counter() - started) * 1000
    say(f"3 legs in parallel in {elapsed:.0f} ms (each 50 ms): {list(answers.values())}")
    try:
        await fan_out(
            {
                "architect": lambda: specialist("architect", 1.0),
                "tester": lambda: specialist("tester", 0.01, fail=True),
                "reviewer": lambda: specialist("reviewer", 1.0),
            },
            timeout=5,
        )
    except FanOutFailed as err:
        say(f"a failing leg: {err}")


def _next_steps(agent_dir: Path, kept: bool, say: Say) -> None:
    say("\n== next steps ==")
    where = f" --agent-dir {agent_dir}" if kept else ""
    if kept:
        say(f"The demo's agent directory is kept: {agent_dir}")
    say(
        f'  persona-mind memory{where} remember "The build needs Docker" --kind gotcha\n'
        f"  persona-mind memory{where} recall docker --json\n"
        f"  persona-mind pack list{where}\n"
        '  persona-mind roundtable "Queue or cron for nightly jobs?" --fake\n'
        '  persona-mind pi-extension install     # then start `pi` (README, "Use it in Pi")'
    )


async def run_demo(agent_dir: Path, trace: Path | None, say: Say, *, kept: bool = False) -> int:
    """Run the whole demo; returns the process exit code."""
    with tempfile.TemporaryDirectory(prefix="persona-mind-demo-work-") as tmp:
        return await _run_demo(agent_dir, Path(tmp), trace, say, kept)


async def _run_demo(
    agent_dir: Path, scratch: Path, trace: Path | None, say: Say, kept: bool
) -> int:
    workspace = scratch / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / ".git").mkdir(exist_ok=True)
    say("== persona-mind demo (offline, simulated session) ==")
    say(f"agent dir: {agent_dir}{' (kept afterwards)' if kept else ' (temporary)'}")
    from persona_mind.children import PiBackend  # noqa: PLC0415
    from persona_mind.cli._demo_product import (  # noqa: PLC0415
        children_section,
        fake_children_env,
        memory_section,
        persona_section,
    )

    clock = MonotonicClock()
    backend = PiBackend(fake_pi_command(), clock=clock, env=fake_children_env(scratch))
    async with SimHost(
        agent_dir=agent_dir, cwd=workspace, trace_path=trace, clock=clock, child_backend=backend
    ) as host:
        await host.start()
        owner = await host.runtime.owner()
        say(f"session {owner.session_id} started (generation {owner.generation})")
        say("\n===== what you get =====")
        await persona_section(host, say)
        await memory_section(host, say)
        from persona_mind.cli._demo_optimize import optimize_section  # noqa: PLC0415

        await optimize_section(host, say)  # issue 11: consolidation
        await children_section(host, say)
        say("\n===== how it stays trustworthy (internals) =====")
        await _supervision(host.runtime, say)
        await _generations(host, say)
        await _fanout(say)
        await host.shutdown()
    if trace is not None:
        say(f"\ntrace written to {trace}; view it with: persona-mind trace {trace} --mermaid")
    say("\ndemo finished")
    _next_steps(agent_dir, kept, say)
    return 0
