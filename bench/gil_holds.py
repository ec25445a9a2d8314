"""The longest GIL holds of the sidecar's background jobs on the largest store (issue 24 item 6).

Why: the limits bench's pings (``bench/_bridge_limits.py``) are wall times, and on a shared
two-core machine they follow the load more than the code.  What the code controls is how
long one thread keeps the GIL without giving it back: a C call with no Python inside it (a
sort, a split, a dict built from an iterator, a garbage collection) holds it throughout, and
the event loop's ping waits as long.  Here each job runs on a thread with ``sys.setprofile``
hooked on it: a C call's thread CPU time is recorded unless a Python frame ran inside it
(the interpreter then gave the GIL back at switch intervals); GC pauses come from
``gc.callbacks``.  Calls that release the GIL around a system call (reads, writes, fsync,
sleeps, waits) are left out.  Thread CPU barely depends on the machine's load, so the rows
compare across runs; the profiler slows Python code, not the C calls it times.

Jobs: the Store's decode and index build of the 13.7 MiB / 19,000-fact store, a cold bind of
its vectors (the cache file written from scratch, as a first session does), and the semantic
model's stepwise load (after one load in this process, so the numpy import, which cannot be
split, is not counted).  Target: no hold over 5 ms (half the pings' 10 ms).  Floor, same
run: the longest hold the same profiler records over a reference job of short C calls (sorting
a 2,000-item list for 0.2 s of thread CPU), which is the measurement's own noise (its hooks,
the GC, the machine); the ratio says how far a job's worst hold is above it.
"""

from __future__ import annotations

import functools
import gc
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

if __package__ in (None, ""):  # run as `python bench/gil_holds.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._bigstore import big_target, build_big_index, write_big_store
from bench._report import Result, emit, parse_args
from persona_mind.mind.recall._retrieval import FactIndex, retire

__all__ = ("longest_hold",)

_RELEASING = frozenset(
    {"read", "readinto", "write", "fsync", "sleep", "select", "wait", "acquire", "join"}
    | {"open", "replace", "stat", "unlink", "mkdir", "poll", "_acquire_restore"}
)
"""C functions that release the GIL around their system call or wait."""


def longest_hold(job: Callable[[], object]) -> tuple[float, str]:
    """Run ``job`` on a thread; the longest pure C call or GC pause in ms, and its name."""
    worst: list[tuple[float, str]] = [(0.0, "-")]
    calls: list[list[Any]] = []  # [thread CPU at entry, pure, function] of C calls in progress
    collecting: list[float] = []
    ident = [0]
    clock = time.thread_time

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() != ident[0]:  # C calls only: no Python frame inside a hold
            return
        if phase == "start":
            collecting.append(clock())
        elif collecting:
            worst.append(((clock() - collecting.pop()) * 1e3, f"gc gen{info['generation']}"))

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "c_call":
            calls.append([clock(), True, arg])
        elif event == "call" and frame.f_code is not on_gc.__code__:
            for entry in calls:
                entry[1] = False
        elif event in ("c_return", "c_exception") and calls:
            while len(calls) > 1 and calls[-1][2] is not arg:  # one whose return was not seen
                calls.pop()
            started, pure, _ = calls.pop()
            name = getattr(arg, "__name__", "")
            if pure and name not in _RELEASING:
                where = f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno}"
                worst.append(((clock() - started) * 1e3, f"{name} ({where})"))

    def run() -> None:
        ident[0] = threading.get_ident()
        sys.setprofile(profile)
        try:
            job()
        finally:
            sys.setprofile(None)

    runner = threading.Thread(target=run, name="gil-holds")
    gc.callbacks.append(on_gc)
    try:
        runner.start()
        runner.join()
    finally:
        gc.callbacks.remove(on_gc)
    return max(worst)


def _reference() -> None:
    """Short C calls for 0.2 s of thread CPU: the floor's job."""
    data = list(range(2000))
    end = time.thread_time() + 0.2
    while time.thread_time() < end:
        sorted(data, reverse=True)


def _row(name: str, hold: tuple[float, str], floor: float) -> Result:
    ms, what = hold
    ratio = ms / floor if floor > 0 else None
    return Result(f"{name}, longest GIL hold: {what}", ms, "ms", floor, ratio, "<= 5 ms", ms <= 5.0)


def main() -> None:
    args = parse_args(__doc__ or "")
    results: list[Result] = []
    floor = longest_hold(_reference)[0]
    with tempfile.TemporaryDirectory() as tmp:
        agent, repo = Path(tmp) / "agent", Path(tmp) / "repo"
        repo.mkdir()
        write_big_store(agent, repo)
        target = big_target(agent, repo)
        built: list[FactIndex] = []

        def load() -> None:
            built.append(build_big_index(agent, target))

        results.append(_row("decode and index the 19,000-fact store", longest_hold(load), floor))
        from persona_mind.embedding import SemanticEdge  # noqa: PLC0415 - loads numpy
        from persona_mind.embedding._edge import _default_loader  # noqa: PLC0415
        from persona_mind.embedding._gate import TurnGate  # noqa: PLC0415

        edge = SemanticEdge()
        if edge.load_now().hybrid:
            bind = functools.partial(edge.bind, built[0], target.path)
            results.append(_row("cold bind of its vectors", longest_hold(bind), floor))
            step_load = functools.partial(_default_loader, TurnGate(settle=0.0))
            results.append(_row("the model's stepwise load", longest_hold(step_load), floor))
        retire(built.pop())()
    emit(results, args.json)


if __name__ == "__main__":
    main()
