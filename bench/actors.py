"""Kernel benchmark: ask round trip, tell throughput, thread-bridge round trip.

Floors, measured in the same run: a raw ``asyncio.Queue`` + ``Future`` request/reply for
ask and tell, and ``anyio.to_thread.run_sync`` for the bridge. Targets (issue 2): ask
≤ 2× the floor, tell throughput ≥ 0.5× the floor, bridge ≤ 0.5× the to_thread round trip.

For information, the least any thread bridge can do — one ``queue.SimpleQueue`` put to a
plain thread and one ``call_soon_threadsafe`` back, nothing else — against the same
``to_thread``, and the three again with every thread on one CPU (Linux). Why: a round trip
needs two wake-ups (the worker's, then the loop's), and on this machine a wake-up across
CPUs costs ~40 µs, paid by the floor and by any bridge alike; where the kernel puts the
worker on the other CPU than the loop (an idle machine does), that fixed cost sets the ratio
whatever the bridge does, and the bare bridge shows that bound.

    python bench/actors.py [--json] [--quick]
"""

from __future__ import annotations

import asyncio
import os
import queue
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio.to_thread

if __package__ in (None, ""):  # run as `python bench/actors.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit, parse_args
from persona_mind.actors import Actor, ActorSystem, IOThread
from persona_mind.messages._base import Msg


class Echo(Msg, frozen=True, kw_only=True):
    n: int


class Echoer(Actor[Echo]):
    def __init__(self) -> None:
        self.count = 0

    async def receive(self, message: Echo) -> object:
        self.count += 1
        return message.n


async def _floor_ask(n: int) -> float:
    queue: asyncio.Queue[tuple[int, asyncio.Future[int]]] = asyncio.Queue()

    async def server() -> None:
        while True:
            value, fut = await queue.get()
            fut.set_result(value)

    task = asyncio.create_task(server())
    loop = asyncio.get_running_loop()
    start = time.perf_counter()
    for i in range(n):
        fut: asyncio.Future[int] = loop.create_future()
        queue.put_nowait((i, fut))
        await fut
    elapsed = time.perf_counter() - start
    task.cancel()
    return elapsed / n * 1e6


async def _kernel_ask(n: int) -> float:
    async with ActorSystem() as system:
        ref = system.spawn(Echoer, name="echo")
        await ref.ask(Echo(n=0))
        msg = Echo(n=1)
        start = time.perf_counter()
        for _ in range(n):
            await ref.ask(msg)
        return (time.perf_counter() - start) / n * 1e6


async def _floor_tell(n: int) -> float:
    queue: asyncio.Queue[int] = asyncio.Queue()
    done = asyncio.Event()

    async def consumer() -> None:
        seen = 0
        while True:
            await queue.get()
            seen += 1
            if seen == n:
                done.set()

    task = asyncio.create_task(consumer())
    start = time.perf_counter()
    for i in range(n):
        queue.put_nowait(i)
    await done.wait()
    elapsed = time.perf_counter() - start
    task.cancel()
    return n / elapsed


async def _kernel_tell(n: int) -> float:
    async with ActorSystem() as system:
        ref = system.spawn(Echoer, name="echo")
        await ref.ask(Echo(n=0))
        msg = Echo(n=1)
        start = time.perf_counter()
        for _ in range(n):
            ref.tell(msg)
        await ref.ask(msg)  # FIFO: answered after every tell was handled
        return (n + 1) / (time.perf_counter() - start)


def _noop() -> None:
    return None


async def _bridge(n: int) -> float:
    bridge = IOThread("bench")
    await bridge.call(_noop)
    start = time.perf_counter()
    for _ in range(n):
        await bridge.call(_noop)
    elapsed = time.perf_counter() - start
    await bridge.aclose()
    return elapsed / n * 1e6


async def _bare_bridge(n: int) -> float:
    """The least a thread bridge does: a SimpleQueue put, a thread, a threadsafe callback."""
    loop = asyncio.get_running_loop()
    inbox: queue.SimpleQueue[asyncio.Future[None] | None] = queue.SimpleQueue()

    def worker() -> None:
        while (fut := inbox.get()) is not None:
            loop.call_soon_threadsafe(fut.set_result, None)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()

    async def hop() -> None:
        fut: asyncio.Future[None] = loop.create_future()
        inbox.put(fut)
        await fut

    await hop()
    start = time.perf_counter()
    for _ in range(n):
        await hop()
    elapsed = time.perf_counter() - start
    inbox.put(None)
    thread.join()
    return elapsed / n * 1e6


async def _to_thread(n: int) -> float:
    await anyio.to_thread.run_sync(_noop)
    start = time.perf_counter()
    for _ in range(n):
        await anyio.to_thread.run_sync(_noop)
    return (time.perf_counter() - start) / n * 1e6


def _pair(floor_fn: Any, value_fn: Any, n: int, samples: int) -> tuple[float, float]:
    """Medians of ``samples`` runs of each, interleaved run by run (a noisy neighbour then
    hits the value and its floor alike; this machine is shared)."""
    runs = [(asyncio.run(floor_fn(n)), asyncio.run(value_fn(n))) for _ in range(samples)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    args = parse_args(__doc__ or "")
    samples = 3 if args.quick else 7
    asks, tells, hops = (2_000, 20_000, 1_000) if args.quick else (20_000, 200_000, 5_000)
    floor_ask, kernel_ask = _pair(_floor_ask, _kernel_ask, asks, samples)
    floor_tell, kernel_tell = _pair(_floor_tell, _kernel_tell, tells, samples)
    to_thread, bridge = _pair(_to_thread, _bridge, hops, samples)
    to_thread2, bare = _pair(_to_thread, _bare_bridge, hops, samples)
    one_cpu: tuple[float, float, float] | None = None
    if hasattr(os, "sched_setaffinity"):  # Linux: threads started later inherit the mask
        mask = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(mask)})
        try:
            pinned_floor, pinned = _pair(_to_thread, _bridge, hops, samples)
            one_cpu = (pinned_floor, pinned, _pair(_to_thread, _bare_bridge, hops, samples)[1])
        finally:
            os.sched_setaffinity(0, mask)
    results = [
        Result(
            "ask round trip",
            kernel_ask,
            "us",
            floor_ask,
            kernel_ask / floor_ask,
            "<= 2.0x",
            kernel_ask / floor_ask <= 2.0,
        ),
        Result(
            "tell throughput",
            kernel_tell,
            "msg/s",
            floor_tell,
            kernel_tell / floor_tell,
            ">= 0.5x",
            kernel_tell / floor_tell >= 0.5,
        ),
        Result(
            "thread-bridge round trip",
            bridge,
            "us",
            to_thread,
            bridge / to_thread,
            "<= 0.5x",
            bridge / to_thread <= 0.5,
        ),
        Result(
            "the least a thread bridge does (SimpleQueue + call_soon_threadsafe) (info)",
            bare,
            "us",
            to_thread2,
            bare / to_thread2,
            None,
            None,
        ),
    ]
    if one_cpu is not None:
        pinned_floor, pinned, pinned_bare = one_cpu
        for name, value in (
            ("thread-bridge", pinned),
            ("the least a thread bridge does", pinned_bare),
        ):
            results.append(
                Result(
                    f"{name} round trip, every thread on one CPU (info)",
                    value,
                    "us",
                    pinned_floor,
                    value / pinned_floor,
                    None,
                    None,
                )
            )
    emit(results, args.json)


if __name__ == "__main__":
    main()
