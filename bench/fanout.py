"""Round-table fan-out benchmark: wall time against the ideal 3L, and per-child spawn cost.

A fake child of fixed latency L answers every Round 1, Round 2 and synthesis request; the
lead's selection answers at once. A round-table is then three sequential latency stages,
so its ideal wall time is ``3L`` whatever N (1..5 specialists), *if* each parallel phase
really runs its N children side by side. Target (issue 6): wall ≤ 1.15 × 3L + the spawn
overhead of the 4 sequential child stages: one child each for selection and synthesis, and
for each round the measured time to start N zero-latency children at once (on a 2-core
machine N process start-ups contend for CPU, so this grows with N).

Spawn overhead per backend = median wall time of one zero-latency child through the
backend, against floors measured in the same run: ``python -c pass`` (the fake pi is a
Python script) and ``node -e 0`` (the real pi is Node). Backends: the in-process scripted
model, the fake pi (process, RPC mode), and the real pi with the fake OpenAI server when
``scripts/install-pi.sh`` has installed it (otherwise reported as skipped, ok=null).

The decision record a passing round-table leaves costs one Store mutation after the
synthesis (issue 26): ``record.store_mutations`` counts the Store verbs one record asks for
(target 1); ``record.write`` is one record written (its text built, then
``MemoryService.remember`` through the Store actor into a real project file) against the
same ``remember`` of an already built record text, interleaved (target 1.2x: a record costs
what any fact of its size costs); ``record.write_vs_bare_durable_write`` (informational)
is against a bare temp+write+fsync+replace+directory-fsync of the file's bytes — the gap
is the fact scanner's pass over the record's text and the Store's mutation protocol.

    python bench/fanout.py [--json] [--quick] [--no-pi]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit
from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.roundtable import RoundtableCoordinator
from persona_mind.actors.store import spawn_store
from persona_mind.children import (
    ChildBackend,
    ChildPersona,
    ChildRequest,
    ChildTeam,
    ChildUsage,
    PiBackend,
    Position,
    RoundtableResult,
)
from persona_mind.cli._children import fake_script
from persona_mind.clock import MonotonicClock
from persona_mind.features._decisions import record_decision
from persona_mind.messages.runner import AwaitRoundtable
from persona_mind.mind import MemoryService, MindScope, find_project
from persona_mind.persona.children._decision import (
    DECISION_KIND,
    DECISION_TAGS,
    decision_source,
    decision_text,
)
from persona_mind.persona.children._roundtable import SECTIONS, SELECT_MARKER, SYNTHESIS_MARKER
from persona_mind.testing._fake_openai import FakeOpenAI, message_text, pi_agent_env
from persona_mind.testing._fake_pi import SCRIPT_ENV, fake_pi_command
from persona_mind.testing._pi import PiInstall, find_pi
from persona_mind.testing._scripted import ScriptedModel, ScriptedReply

SYNTHESIS = "\n".join(f"## {t}\nbench" for t, _ in SECTIONS)


def make_team(n: int) -> ChildTeam:
    def p(name: str, role: str) -> ChildPersona:
        return ChildPersona(
            name=name,
            qualified_id=f"bench/{name}",
            role=role,  # type: ignore[arg-type]
            system_prompt=f"You are {name}.",
            description=name,
        )

    return ChildTeam(
        pack="bench",
        personas=(p("lead", "generalist"), *(p(f"s{i}", "specialist") for i in range(n))),
    )


def selection_all(team: ChildTeam) -> str:
    return json.dumps(
        {"specialists": [{"name": s.name, "reason": "cover it"} for s in team.specialists]}
    )


class RoutedFake(FakeOpenAI):
    """Fake OpenAI server answering by request kind (parallel children arrive in any order)."""

    def __init__(self, routes: list[tuple[str, dict[str, Any]]], default: dict[str, Any]):
        super().__init__()
        self.routes = routes
        self.default = default

    def _record(self, body: dict[str, Any]) -> dict[str, Any]:
        super()._record(body)
        user = "\n".join(
            message_text(m) for m in body.get("messages", []) if m.get("role") == "user"
        )
        for marker, step in self.routes:
            if marker in user:
                return dict(step)
        return dict(self.default)


async def roundtable_wall(backend: ChildBackend, team: ChildTeam) -> float:
    clock = MonotonicClock()
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner")
        start = time.perf_counter()
        coord = system.spawn(
            lambda: RoundtableCoordinator(runner, team, "bench?", "fake/fake-model", run_id="b"),
            name="rt",
        )
        await coord.ask(AwaitRoundtable(), timeout=math.inf)
        return time.perf_counter() - start


async def one_child(backend: ChildBackend, rid: str = "one") -> float:
    persona = ChildPersona(
        name="p", qualified_id="bench/p", role="specialist", system_prompt="You are p."
    )
    request = ChildRequest(
        request_id=rid,
        kind="consult",
        persona=persona,
        prompt="hi",
        model="fake/fake-model",
        deadline=60.0,
    )
    start = time.perf_counter()
    await backend.run(request, lambda _: None)
    return time.perf_counter() - start


def floor_cmd(argv: list[str], reps: int) -> float | None:
    def once() -> float:
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        return time.perf_counter() - start

    try:
        once()
    except (OSError, subprocess.CalledProcessError):
        return None
    return statistics.median(once() for _ in range(reps))


def spawn_result(name: str, value: float, floor: float | None, limit: float | None) -> Result:
    ratio = value / floor if floor else None
    ok = None if ratio is None or limit is None else ratio <= limit
    return Result(
        name,
        value * 1000,
        "ms",
        floor * 1000 if floor else None,
        ratio,
        f"<= {limit:g}x floor" if limit else None,
        ok,
    )


def rt_result(name: str, wall: float, latency: float, one: float, wide: float) -> Result:
    """Bound: 1.15 x 3L plus the spawn overhead actually paid: selection and synthesis
    start one child each, Round 1 and Round 2 start N at once (measured as such)."""
    ideal = 3 * latency
    bound = 1.15 * ideal + 2 * one + 2 * wide
    return Result(name, wall, "s", ideal, wall / ideal, f"<= {bound:.2f}s", wall <= bound)


async def n_children(backend: ChildBackend, n: int) -> float:
    """Wall time of N zero-latency children started together (a phase's spawn cost)."""
    start = time.perf_counter()
    await asyncio.gather(*(one_child(backend, f"w{i}") for i in range(n)))
    return time.perf_counter() - start


async def bench_backend(
    label: str,
    make: Callable[[float, ChildTeam], ChildBackend],
    latency: float,
    sizes: list[int],
    reps: int,
    floor: float | None,
    limit: float | None,
    wide_reps: int = 1,
) -> list[Result]:
    overhead = statistics.median([await one_child(make(0.0, make_team(1))) for _ in range(reps)])
    out = [spawn_result(f"spawn.{label}", overhead, floor, limit)]
    for n in sizes:
        team = make_team(n)
        wide = overhead
        if wide_reps:
            wide = statistics.median(
                [await n_children(make(0.0, team), n) for _ in range(wide_reps)]
            )
            out.append(spawn_result(f"spawn.{label}.x{n}", wide, overhead, None))
        wall = await roundtable_wall(make(latency, team), team)
        out.append(rt_result(f"roundtable.{label}.n{n}", wall, latency, overhead, wide))
    return out


def _result_for_record(i: int) -> RoundtableResult:
    positions = tuple(
        Position(
            name=f"s{k}",
            reason=f"cover part {k} of the question",
            round1=f"an independent view {k}",
            final=f"a final view {k}",
            adopted=k != 1,
            model="fake/fake-model",
        )
        for k in range(3)
    )
    return RoundtableResult(
        query=f"Should service {i} move its nightly export to a queue?",
        lead="lead",
        roster=tuple((p.name, p.reason) for p in positions),
        synthesis="(shown in the session)",
        children=7,
        usage=ChildUsage(input_tokens=7000, output_tokens=700),
        elapsed=3.0,
        run_id=f"rt{i}",
        positions=positions,
        decision="Move the export to a queue behind a flag once replay tests pass.",
        disagreements="whether the broker must be hardened first",
        uncertainty="broker cost at peak load",
        lead_model="fake/fake-model",
        verdict_marked=True,
    )


def _floor_durable(directory: Path, data: bytes) -> float:
    tmp = directory / ".floor.tmp"
    start = time.perf_counter()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    os.replace(tmp, directory / "floor.json")
    dfd = os.open(directory, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)
    return time.perf_counter() - start


async def record_rows(tmp: Path, reps: int) -> list[Result]:
    """``record.*`` rows (see the module doc)."""
    agent, repo = tmp / "record-agent", tmp / "record-repo"
    (repo / ".git").mkdir(parents=True)
    clock = MonotonicClock()
    scope = MindScope(agent, "bench/lead", find_project(repo, home=tmp / "home"))
    records, plain, times, floors = 0, 0, [], []
    async with ActorSystem(clock=clock) as system:
        store = spawn_store(system, agent)
        service = MemoryService(store, clock, scope)
        asks: list[str] = []
        real_mutate = store.mutate

        async def counted(*args: Any, **kw: Any) -> Any:
            asks.append("mutate")
            return await real_mutate(*args, **kw)

        store.mutate = counted  # type: ignore[method-assign]
        await record_decision(service, _result_for_record(0), session_file=None, call_id="c0")
        mutations = len(asks)
        for _ in range(reps * 4):  # interleaved: a record, then the same write as any fact
            records += 1
            start = time.perf_counter()
            await record_decision(
                service, _result_for_record(records), session_file=None, call_id="c"
            )
            times.append(time.perf_counter() - start)
            plain -= 1
            text = decision_text(_result_for_record(plain), date="2026-01-01")
            source = decision_source("rt", None, "c")
            start = time.perf_counter()
            await service.remember(
                DECISION_KIND, text, tags=DECISION_TAGS, source=source, tier="project"
            )
            floors.append(time.perf_counter() - start)
    path = scope.fact_target("project").path
    data = path.read_bytes()
    bare = statistics.median(_floor_durable(path.parent, data) for _ in range(reps * 4))
    value, floor = statistics.median(times), statistics.median(floors)
    return [
        Result("record.store_mutations", mutations, "asks", 1, mutations, "<= 1", mutations <= 1),
        Result(
            "record.write",
            value * 1000,
            "ms",
            floor * 1000,
            value / floor,
            "<= 1.2x the same remember",
            value / floor <= 1.2,
        ),
        Result(
            "record.write_vs_bare_durable_write",
            value * 1000,
            "ms",
            bare * 1000,
            value / bare,
            None,
            None,
        ),
    ]


async def main_async(args: argparse.Namespace) -> list[Result]:
    tmp = Path(tempfile.mkdtemp(prefix="pm-bench-"))
    try:
        return await _measure(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _measure(args: argparse.Namespace, tmp: Path) -> list[Result]:
    reps = 3 if args.quick else 5
    latency = 0.3 if args.quick else 0.5
    sizes = [1, 3, 5] if args.quick else [1, 2, 3, 4, 5]
    py_floor = floor_cmd([sys.executable, "-S", "-c", "pass"], reps)
    pi = None if args.no_pi else find_pi()
    node = str(pi.node) if isinstance(pi, PiInstall) else shutil.which("node")
    node_floor = floor_cmd([node, "-e", "0"], reps) if node else None
    results = [
        Result("floor.python_c_pass", (py_floor or 0) * 1000, "ms", None, None, None, None),
        Result(
            "floor.node_e_0",
            (node_floor or 0) * 1000,
            "ms",
            None,
            None,
            "skipped: no node" if node_floor is None else None,
            None,
        ),
    ]
    clock = MonotonicClock()

    def scripted(lat: float, team: ChildTeam) -> ChildBackend:
        model = ScriptedModel(clock, default=lambda _r: ScriptedReply(text="pos", delay=lat))
        model.on(phase="select", reply=selection_all(team))
        model.on(phase="synthesis", reply=SYNTHESIS, delay=lat)
        return model

    results += await bench_backend(
        "scripted", scripted, latency, sizes, reps, None, None, wide_reps=0
    )
    results += await record_rows(tmp, reps)

    def fake(lat: float, team: ChildTeam) -> ChildBackend:
        script = tmp / f"script-{lat}-{len(team.personas)}.json"
        script.write_text(json.dumps(fake_script(team, lat)))
        return PiBackend(fake_pi_command(), clock=clock, env={SCRIPT_ENV: str(script)})

    results += await bench_backend(
        "fake_pi", fake, latency, sizes, reps, py_floor, None, wide_reps=3
    )
    # Our process layer's own cost: the same fake child run bare with subprocess.run.
    bare = floor_cmd([*fake_pi_command(), "--mode", "json", "-p", "hi"], reps)
    layered = statistics.median([await one_child(fake(0.0, make_team(1))) for _ in range(reps)])
    results.append(spawn_result("layer.fake_pi_vs_bare_process", layered, bare, 1.5))
    if not isinstance(pi, PiInstall):
        reason = "--no-pi" if args.no_pi else "skipped: run scripts/install-pi.sh"
        results.append(Result("spawn.pi", 0.0, "ms", None, None, reason, None))
        return results
    servers: list[RoutedFake] = []

    def real(lat: float, team: ChildTeam) -> ChildBackend:
        server = RoutedFake(
            [
                (SELECT_MARKER, {"text": selection_all(team)}),
                (SYNTHESIS_MARKER, {"text": SYNTHESIS, "delay": lat}),
            ],
            {"text": "position", "delay": lat},
        )
        server.start()
        servers.append(server)
        env = pi_agent_env(tmp / f"agent-{len(servers)}", server.base_url)
        return PiBackend(pi.argv, clock=clock, base_env=env)

    try:
        # Real Pi children cost ~1 s of CPU each: N = 1, 3, 5 keeps the run under a minute.
        results += await bench_backend("pi", real, latency, [1, 3, 5], 3, node_floor, None)
    finally:
        for server in servers:
            server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="smaller run (smoke)")
    parser.add_argument("--no-pi", action="store_true", help="skip the real pi backend")
    args = parser.parse_args()
    emit(asyncio.run(main_async(args)), args.json)


if __name__ == "__main__":
    main()
