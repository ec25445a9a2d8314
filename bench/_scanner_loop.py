"""Scanner rows that need more than the corpus: the learned layer alone, the event loop's
worst ping while a 4 MB text is scanned, and the withheld share of the evidence turns of a
LongMemEval-format file.

The ping is measured in-process: a ticker task sleeps 1 ms at a time on the running loop
and records how late each wake-up is, while ``verdict_async`` scans the 4 MB text on the
same loop in bounded steps (one pass or one pattern search over one 1.5 KiB window per
step, steps run for at most a 1 ms budget before the loop's other tasks get a pass).

The 4 MB rows' floor is the ticker's worst lateness beside :func:`busy_steps` on the loop
for as long: CPU-bound work already cut into 0.1 ms steps.  That is the machine's own
noise for any work that keeps a core busy: on a shared, loaded 2-core machine the
scheduler takes the core away for whole time slices (often 10-20 ms), which a ticker beside
a *sleeping* thread — the "idle floor" in the row's name, for information — never sees.
The row's name also gives the longest stretch the scan itself held the loop between two
pauses (the bound the code controls) and the ticker's 99th percentile.

``--loop-executor`` rows run ``verdict`` on a one-thread executor instead, for comparison:
there the worker holds the interpreter until the switch interval (5 ms) forces it out, and
on a loaded machine the loop thread then also waits for a core; their floor is the idle
one.  The capture-cue row times ``decide_capture`` on the same 4 MB prompt (the Mind
feature's own cue search, outside the trust domain), for information.

The rows run with the heap the process had before them frozen (``gc.collect()`` then
``gc.freeze()``, undone after): a stepped verdict of 4 MB triggers no collection of its own
(it allocates no lasting containers), but the ticker and the bench's earlier rows do, and a
full collection landing inside a row then walks the bench's whole heap (the corpus
verdicts' cache, TR39's tables, the weights: 6-8 ms of CPU on this machine) with the loop
held.  That pause is the process's heap size, not the scan, and where it lands depends on
the collector's counters the earlier rows left (a row alone never saw it); the sidecar
freezes its own long-lived heap the same way (``persona_mind._quietgc.freeze_survivors``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench._report import Result
from persona_mind.mind.capture._cues import decide_capture
from persona_mind.mind.trust._learned import load_model
from persona_mind.mind.trust._verdict import _BIG, model_form, verdict, verdict_async, warm

__all__ = (
    "PING_TARGET_MS",
    "Ping",
    "busy_steps",
    "evidence_withheld",
    "learned_only",
    "loop_rows",
    "worst_ping",
)

PING_TARGET_MS = 10.0
BIG = 4 * 1024 * 1024


def learned_only(text: str) -> float:
    """The learned layer's whole cost for one text: fold, features, weights."""
    return load_model().probability(model_form(text))


def evidence_withheld(path: Path) -> tuple[int, int]:
    """(evidence turns a rule refuses, evidence turns) of a LongMemEval-format file: turns
    marked ``has_answer`` in every instance's haystack sessions (abstention instances,
    ``question_id`` ending ``_abs``, skipped — the same turns ``bench/recall.py`` stores)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    hit = total = 0
    for inst in data:
        if str(inst.get("question_id", "")).endswith("_abs"):
            continue
        for session in inst.get("haystack_sessions", []):
            for turn in session:
                if turn.get("has_answer") and str(turn.get("content", "")).strip():
                    total += 1
                    hit += verdict(str(turn["content"])).refused
    return hit, total


@dataclass(frozen=True, slots=True)
class Ping:
    """One ticker run: the worst and 99th-percentile lateness (ms) and how long it ran."""

    worst: float
    p99: float
    took: float


async def _ping_while(
    work: Callable[[], object], on_loop: Callable[[], Awaitable[object]] | None = None
) -> Ping:
    """The 1 ms ticker's lateness with ``work`` on an executor, or ``on_loop`` awaited on
    the loop itself."""
    loop = asyncio.get_running_loop()
    late: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(0.001)
            late.append((time.perf_counter() - t0 - 0.001) * 1000)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        tick = asyncio.create_task(ticker())
        await asyncio.sleep(0.01)
        late.clear()
        start = time.perf_counter()
        if on_loop is not None:
            await on_loop()
        else:
            await loop.run_in_executor(pool, work)
        took = time.perf_counter() - start
        done.set()
        await tick
    late.sort()
    return Ping(late[-1], late[int(len(late) * 0.99)], took) if late else Ping(0.0, 0.0, took)


def worst_ping(
    work: Callable[[], object], on_loop: Callable[[], Awaitable[object]] | None = None
) -> Ping:
    return asyncio.run(_ping_while(work, on_loop))


async def busy_steps(seconds: float, step: float = 0.0001) -> None:
    """CPU-bound work on the loop in 0.1 ms steps for ``seconds``: a scan perfectly cut into
    steps.  The ticker's worst lateness beside it is the machine's own floor for any work
    that keeps a core busy — on a loaded 2-core machine the scheduler takes the core away
    for whole time slices, which a ticker beside a *sleeping* thread never sees."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        until = time.perf_counter() + step
        while time.perf_counter() < until:
            pass
        await asyncio.sleep(0)


class _Stretch:
    """A ``pause`` for :func:`verdict_async` that records the longest stretch the scan held
    the loop between two pauses, in wall time and in the thread's CPU time (ms): the CPU
    figure is the scan's own bound, whatever the scheduler does meanwhile."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0
        self._since, self._cpu = time.perf_counter(), time.thread_time()

    async def __call__(self) -> None:
        self.wall = max(self.wall, (time.perf_counter() - self._since) * 1000)
        self.cpu = max(self.cpu, (time.thread_time() - self._cpu) * 1000)
        await asyncio.sleep(0)
        self._since, self._cpu = time.perf_counter(), time.thread_time()


_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN")
_EVENTS = (
    "processed job {n} in {ms} ms",
    "cache hit for key build-{n}",
    "retrying upload {n} (attempt 2)",
    "GET /api/v1/items/{n} 200 {ms}ms",
    "flushed {n} metrics",
    "worker idle for {ms} ms",
    "compiled module pkg_{n}.core",
    "connection pool at {n}/64",
)


def _big_input() -> str:
    """About 4 MB of service log lines (fixed seed): the long paste a user most often makes."""
    rng = random.Random(27)
    lines: list[str] = []
    size = 0
    while size < BIG:
        n, ms = rng.randrange(100_000), rng.randrange(1, 900)
        line = (f"2026-01-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00Z {rng.choice(_LEVELS)} "
                f"worker-{n % 8} " + rng.choice(_EVENTS).format(n=n, ms=ms))  # fmt: skip
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def loop_rows(*, executor: bool = False) -> list[Result]:
    """The 4 MB input (a pasted log) and the 4 MB prompt (a capture cue, then the same log:
    what a strong cue would save).  Value: the ticker's worst lateness; floor: its worst
    lateness beside :func:`busy_steps` for as long; the name adds the verdict, the scan's
    time, its longest stretch on the loop (CPU and wall), the ticker's 99th percentile and
    the idle floor (beside a sleeping thread).  ``executor``: also the two scans with
    ``verdict`` on a worker thread.  The heap before the rows is frozen while they run (see
    the module docstring)."""
    warm()
    gc.collect()
    gc.freeze()
    try:
        return _loop_rows(executor)
    finally:
        gc.unfreeze()


def _loop_rows(executor: bool) -> list[Result]:
    big_input = _big_input()
    big_prompt = "Remember that the build cache lives in /var/cache/ci. " + big_input
    rows: list[Result] = []
    for name, text in (("loop[4 MB input]", big_input), ("loop[4 MB prompt]", big_prompt)):
        _BIG.clear()  # every row scans afresh
        stretch = _Stretch()
        ping = worst_ping(lambda: None, partial(verdict_async, text, pause=stretch))
        busy = worst_ping(lambda: None, partial(busy_steps, ping.took))
        idle = worst_ping(partial(time.sleep, ping.took))  # as long, with the GIL released
        label = (
            f"{name} [{verdict(text).level}] (scan {ping.took:.2f} s, longest stretch "
            f"{stretch.cpu:.2f} ms CPU / {stretch.wall:.2f} ms wall, p99 {ping.p99:.2f} ms, "
            f"idle floor {idle.worst:.2f} ms)"
        )
        rows.append(_row(label, ping.worst, busy.worst, PING_TARGET_MS))
    cases: list[tuple[str, str, Callable[[], object]]] = []
    if executor:
        cases += [
            ("loop[4 MB input, executor]", big_input, lambda: verdict(big_input)),
            ("loop[4 MB prompt, executor]", big_prompt, lambda: verdict(big_prompt)),
        ]
    cue = "loop[4 MB prompt, capture cues]"
    cases.append((cue, big_prompt, lambda: decide_capture(big_prompt, direct=True)))
    for name, text, work in cases:
        _BIG.clear()
        ping = worst_ping(work)
        idle = worst_ping(partial(time.sleep, ping.took))
        capture = "capture" in name
        label = name if capture else f"{name} [{verdict(text).level}]"
        rows.append(_row(f"{label} (scan {ping.took:.2f} s)", ping.worst, idle.worst,
                         None if capture else PING_TARGET_MS))  # fmt: skip
    return rows


def _row(name: str, worst: float, floor: float, target: float | None) -> Result:
    return Result(name, round(worst, 2), "ms", round(floor, 2),
                  round(worst / floor, 2) if floor else None,
                  f"<= {target}" if target is not None else "-",
                  worst <= target if target is not None else True)  # fmt: skip
