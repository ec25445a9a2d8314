"""Scanner rows that need more than the corpus: the learned layer alone, the event loop's
worst ping while a 4 MB text is scanned on an executor, and the withheld share of the
evidence turns of a LongMemEval-format file.

The rows' floor is the worst ping while the executor thread merely sleeps for as long (the
machine's own scheduling noise: on a shared 2-core machine it alone is several ms).  The
capture-cue row times ``decide_capture`` on the same 4 MB prompt (the Mind feature's own
cue search, outside the trust domain), for information.

The ping is measured in-process: a ticker task sleeps 1 ms at a time on the running loop
and records how late each wake-up is, while ``verdict_async`` scans the 4 MB text on the
same loop in bounded steps (one 1 KiB window, plus its overlap, per step; the loop's other
tasks run between steps).  ``--loop-executor`` rows run ``verdict`` on a one-thread executor
instead, for comparison: there the worker holds the interpreter until the switch interval
(5 ms) forces it out, and on a loaded machine the loop thread then also waits for a core.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

from bench._report import Result
from persona_mind.mind.capture._cues import decide_capture
from persona_mind.mind.trust._learned import load_model
from persona_mind.mind.trust._verdict import _BIG, model_form, verdict, verdict_async, warm

__all__ = ("PING_TARGET_MS", "evidence_withheld", "learned_only", "loop_rows", "worst_ping")

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


async def _ping_while(
    work: Callable[[], object], on_loop: Callable[[], Awaitable[object]] | None = None
) -> tuple[float, float]:
    """(worst ticker lateness in ms, seconds the work took) with ``work`` on an executor,
    or ``on_loop`` awaited on the loop itself."""
    loop = asyncio.get_running_loop()
    worst = 0.0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal worst
        while not done.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, (time.perf_counter() - t0 - 0.001) * 1000)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        tick = asyncio.create_task(ticker())
        await asyncio.sleep(0.01)
        start = time.perf_counter()
        if on_loop is not None:
            await on_loop()
        else:
            await loop.run_in_executor(pool, work)
        took = time.perf_counter() - start
        done.set()
        await tick
    return worst, took


def worst_ping(
    work: Callable[[], object], on_loop: Callable[[], Awaitable[object]] | None = None
) -> tuple[float, float]:
    return asyncio.run(_ping_while(work, on_loop))


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
    what a strong cue would save); each row's name says the scan's time and verdict.
    ``executor``: also the same two scans with ``verdict`` on a worker thread."""
    warm()
    big_input = _big_input()
    big_prompt = "Remember that the build cache lives in /var/cache/ci. " + big_input
    rows: list[Result] = []
    cases: list[tuple[str, str, Callable[[], object], Callable[[], Awaitable[object]] | None]] = [
        ("loop[4 MB input]", big_input, lambda: None, lambda: verdict_async(big_input)),
        ("loop[4 MB prompt]", big_prompt, lambda: None, lambda: verdict_async(big_prompt)),
    ]
    if executor:
        cases += [
            ("loop[4 MB input, executor]", big_input, lambda: verdict(big_input), None),
            ("loop[4 MB prompt, executor]", big_prompt, lambda: verdict(big_prompt), None),
        ]
    cases.append(
        (
            "loop[4 MB prompt, capture cues]",
            big_prompt,
            lambda: decide_capture(big_prompt, direct=True),
            None,
        )
    )
    for name, text, work, on_loop in cases:
        _BIG.clear()  # every row scans afresh
        worst, took = worst_ping(work, on_loop)
        label = name if "capture" in name else f"{name} [{verdict(text).level}]"
        floor, _ = worst_ping(partial(time.sleep, took))  # as long, with the GIL released
        target = "-" if "capture" in name else f"<= {PING_TARGET_MS}"
        rows.append(Result(f"{label} (scan {took:.2f} s)", round(worst, 2), "ms", round(floor, 2),
                           round(worst / floor, 2) if floor else None, target,
                           worst <= PING_TARGET_MS or "capture" in name))  # fmt: skip
    return rows
