"""Automatic review: host-event handling with the Scheduler in the path vs switched off.

One row, ``session_1000_turns``: a simulated session on the real runtime (SimHost, real
Store files, the ChildRunner with an instant scripted worker) runs N turns — each turn is
input, before_agent_start, agent_start, agent_end and agent_settled with 20,000 input
tokens, a remember every 25 turns, and 3 s of virtual time after each settle so every
coalescing window elapses and the token gate opens about every 50 turns (the cooldown
allows a launch at most every 100 turns). Only the host calls are timed; a launched
review is let finish (untimed) before the next prompt, as a user's next prompt comes
seconds later — otherwise every attempt would be cancelled by the next turn's input.
The floor is the same session with the Scheduler switched off (none wired into Mind).
Target <= 1.2x. Value and floor are medians of alternating samples, in ms per session.

``--json`` prints exactly one JSON object; otherwise a table.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

if __package__ in (None, ""):  # run as `python bench/scheduler.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit
from persona_mind.actors import ActorRef
from persona_mind.feature import Feature, Peers
from persona_mind.features import (
    ChildrenFeature,
    FeatureFactory,
    MindFeature,
    PersonaFeature,
    Ports,
)
from persona_mind.messages.host import Usage
from persona_mind.messages.scheduler import AutoSetting
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost

TURN_TOKENS = 20_000
REMEMBER_EVERY = 25


async def _session(root: Path, turns: int, *, scheduler: bool) -> tuple[float, str]:
    ws = root / "ws"
    (ws / ".git").mkdir(parents=True)
    clock = ManualClock()
    model = ScriptedModel(clock).on(phase="worker", reply='{"operations": []}')
    features = None if scheduler else _without_scheduler()
    async with SimHost(
        agent_dir=root / "agent", cwd=ws, clock=clock, child_backend=model, features=features
    ) as host:
        await host.start()
        for line in ("/persona pack install software-team", "/persona team select software-team"):
            await host.command(line)
        await host.command("/persona use architect")
        ref = host.runtime.scheduler if scheduler else None
        elapsed = 0.0
        for n in range(turns):
            start = time.perf_counter()
            if n % REMEMBER_EVERY == 0:
                await host.call_tool(
                    "memory",
                    {
                        "action": "remember",
                        "kind": "convention",
                        "text": f"convention {n}: run the checks of module {n} before merging",
                        "tier": "stm",
                    },
                )
            await host.turn(f"turn {n}", usage=Usage(input_tokens=TURN_TOKENS))
            elapsed += time.perf_counter() - start
            clock.advance(3.0)
            if ref is not None:  # untimed: a launched review finishes before the next prompt
                await _idle(ref)
        status = (await host.command("/mind optimize auto status")).text
    return elapsed * 1000.0, status


def _without_scheduler() -> tuple[FeatureFactory, ...]:
    """The product's features with a Mind half whose ports name no Scheduler."""

    def mind(ports: Ports, peers: Peers) -> Feature:
        return MindFeature(msgspec.structs.replace(ports, scheduler=None), peers)

    return (PersonaFeature, mind, ChildrenFeature)


async def _idle(ref: ActorRef[Any]) -> None:
    """Wait (bounded) until the Scheduler has no attempt in flight."""
    for _ in range(1000):
        lines = await ref.ask(AutoSetting(verb="status"))
        if "in flight: none" in lines:
            return
        await asyncio.sleep(0.001)
    raise RuntimeError("the scheduler's attempt did not finish")


def bench(turns: int, samples: int) -> tuple[float, float, str]:
    on: list[float] = []
    off: list[float] = []
    status = ""
    with tempfile.TemporaryDirectory() as tmp:
        for flag in (True, False):  # warm-up (imports, pack install caches): not counted
            asyncio.run(_session(Path(tmp) / f"warm-{flag}", min(turns, 50), scheduler=flag))
        for k in range(samples):
            for flag in (True, False) if k % 2 == 0 else (False, True):
                ms, text = asyncio.run(_session(Path(tmp) / f"{k}-{flag}", turns, scheduler=flag))
                (on if flag else off).append(ms)
                if flag:
                    status = text
    return statistics.median(on), statistics.median(off), status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--quick", action="store_true", help="fewer samples (smoke run)")
    ap.add_argument("--turns", type=int, default=1_000, help="turns per simulated session")
    args = ap.parse_args(argv)
    value, floor, status = bench(args.turns, 1 if args.quick else 3)
    ratio = value / floor
    results = [
        Result(
            name=f"session_{args.turns}_turns",
            value=value,
            unit="ms",
            floor=floor,
            ratio=ratio,
            target="<= 1.2x",
            ok=ratio <= 1.2,
        )
    ]
    if not args.json:
        print(status)
    emit(results, args.json)
    return 0 if all(r.ok is not False for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
