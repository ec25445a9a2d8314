"""Bridge benchmarks at the limits (issue 15, items 8 and 9), used by ``bench/bridge.py``.

* The largest-store first turn: a 16 MiB project store (~19,000 facts, written by the real
  engine), a fresh sidecar with the real Runtime, ``SessionStart``, then the first
  ``BeforeAgentStart`` while pings go in every 10 ms. The hook must be answered within the
  750 ms fail-open (the budget is the floor: ratio ≤ 1.05 leaves 37 ms for the pipe hops
  around the Companion's timer), and the pings must stay answered in ≤ 10 ms (the idle
  ping round trip, measured first, is their floor).
* The turns after it, 0.5 s apart for 6 s (until two injected memory and one ranked
  hybrid): the first of them to use the cached index starts its semantic vectors on the
  model edge's worker thread and is ranked lexically ("semantic ranking warming up") until
  they are in. Same targets: each hook within the budget, every ping in ≤ 10 ms. An info
  row says how long after ``SessionStart`` the first hybrid turn came.
* The same first turn when its prompt comes 2 s after ``SessionStart`` (a person typing it),
  in a fresh sidecar: the semantic model starts loading at the first session event and
  waits for no turn to be in flight (``embedding/_gate.py``), so its one-off GIL hold
  should fall in the typing time (an info row: the worst ping meanwhile), not in the
  turn. Same targets as the first turn.
* The same store loaded in this process (informational, the part of that turn the code
  controls): an asyncio loop ticks every 1 ms while a worker thread decodes the store file
  and builds its index, as the Store's IO thread and the Mind's offload do in the sidecar;
  the row is the loop's worst tick overshoot. No pipes, no sidecar start-up, no semantic
  model loading beside it, so what remains is GIL holds by the decode and the build (and the
  machine's scheduling, which the floor shows: the worst overshoot of the same ticker over
  as long with the worker idle). Target ≤ 10 ms.
* Computing that store's fact vectors (issue 15 item 9): the same 1 ms ticker while a worker
  thread binds the 19,000 facts as the semantic edge's worker does (batches of 64 through
  persona-mind's tokenizer, plain Python that gives the GIL back at every switch interval,
  with a ``sleep(0)`` between them); the floor is the idle ticker over as long. Target
  ≤ 10 ms; p99 and the time the vectors took are info rows (the latter sets when the first
  hybrid turn can come).
* Releasing that store's index (informational): the same 1 ms ticker while a worker thread
  frees a 19,000-fact ``FactIndex`` taken apart piecewise by ``retire`` (what
  ``MemoryService`` does with a replaced index), and, for contrast, while a worker drops it
  in one step (one deallocation cascade that never releases the GIL). Target ≤ 10 ms.
* Floods: the sidecar's peak RSS (``VmHWM``) with 60 × 8 MiB ``Input`` notifies behind a
  stuck event, and with 40 × 15 MiB pings whose answers are not read until the sidecar
  stopped reading (the issue's figures: 530 MB and 691 MB before the bounds). The floor is
  the peak RSS of an idle ready sidecar; the target is < 150 MB.
"""

from __future__ import annotations

import asyncio
import functools
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/_bridge_limits.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._bigstore import big_target, build_big_index, write_big_store
from bench._report import Result, emit, parse_args
from bench.bridge import STUB, Pipe, _env, _session_start
from persona_mind.bridge.sidecar import SWITCH_INTERVAL
from persona_mind.mind.recall._retrieval import retire

__all__ = ("first_turn", "floods", "typed_first_turn")

MIB = 1024 * 1024
BUDGET_MS = 750.0


def _within_10ms(name: str, value_ms: float, floor_ms: float | None) -> Result:
    """A row whose target is an absolute 10 ms (pings, loop stalls), with its floor."""
    ratio = value_ms / floor_ms if floor_ms else None
    return Result(name, value_ms, "ms", floor_ms, ratio, "<= 10 ms", value_ms <= 10.0)


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1000
    raise RuntimeError("no VmHWM in /proc status")


def _ready(runtime: str | None, agent_dir: Path) -> Pipe:
    pipe = Pipe([sys.executable, "-m", "persona_mind.bridge.sidecar"], _env(runtime))
    pipe.send({"type": "hello", "protocol": 1, "agent_dir": str(agent_dir)})
    pipe.answer_until("ready")
    return pipe


def _warm_bytecode(tmp: Path) -> None:
    """Compile what the measured sidecars import into the bench's bytecode cache first.

    ``bench.bridge`` points ``PYTHONPYCACHEPREFIX`` at a fresh directory, so the first sidecar
    of a run compiled every module from source — numpy's too, on the model's loading
    thread, in ``compile()`` calls that hold the GIL for milliseconds each.  An installed
    package has its bytecode (pip compiles it), so a throwaway session and a model load in
    the same environment fill the cache before anything is measured.
    """
    env = _env(None)
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from persona_mind.embedding import shared_edge; print(shared_edge().load_now())",
        ],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    agent, repo = tmp / "warm-agent", tmp / "warm-repo"
    repo.mkdir(parents=True)
    pipe = _ready(None, agent)
    try:
        _session_start(pipe, repo, 1)
        turn = {"type": "BeforeAgentStart", "prompt": "warm the bytecode cache"}
        pipe.send({"type": "request", "id": 2, "method": "event", "params": {"event": turn}})
        pipe.answer_until("response")
    finally:
        pipe.close()


def first_turn(tmp: Path, *, pings_every: float = 0.01) -> list[Result]:
    """The first ``BeforeAgentStart`` on the largest store, with pings meanwhile."""
    agent, repo = tmp / "big-agent", tmp / "big-repo"
    repo.mkdir(parents=True)
    size = write_big_store(agent, repo)
    _warm_bytecode(tmp)
    pipe = _ready(None, agent)
    try:
        start = {"type": "SessionStart", "reason": "startup", "session_id": "big", "cwd": str(repo)}
        started = time.perf_counter()
        pipe.send({"type": "request", "id": 1, "method": "event", "params": {"event": start}})
        pipe.answer_until("response")
        idle = []
        for i in range(20):  # the idle ping round trip: the pings' floor
            t0 = time.perf_counter()
            pipe.send({"type": "request", "id": 10 + i, "method": "ping", "params": None})
            pipe.answer_until("response")
            idle.append(time.perf_counter() - t0)
        hook, pings, answer = _hook_with_pings(pipe, pings_every)
        later_hook, later_pings, between, later_turns, hybrid_at = _later_turns(pipe, pings_every)
    finally:
        pipe.close()
    stall, stall_floor, retired, dropped = _in_process_stall(agent, repo)
    vectors = _vector_stall(agent, repo)
    sections = answer["result"]["sections"]
    outcome = "memory" if sections else "fail-open"
    floor_ms = statistics.median(idle) * 1e3
    median_ms = statistics.median(pings) * 1e3
    worst_ms = max(pings) * 1e3
    return [
        Result(
            f"first BeforeAgentStart, {size / MIB:.1f} MiB store ({outcome}) vs 750 ms budget",
            hook * 1e3,
            "ms",
            BUDGET_MS,
            hook * 1e3 / BUDGET_MS,
            "<= 1.05x",
            hook * 1e3 <= BUDGET_MS * 1.05,
        ),
        _within_10ms(
            f"ping during that turn, median of {len(pings)}",
            median_ms,
            floor_ms,
        ),
        _within_10ms(
            "ping during that turn, worst",
            worst_ms,
            floor_ms,
        ),
        Result(
            f"slowest of the next {later_turns} BeforeAgentStart turns on that store vs budget",
            later_hook * 1e3,
            "ms",
            BUDGET_MS,
            later_hook * 1e3 / BUDGET_MS,
            "<= 1.05x",
            later_hook * 1e3 <= BUDGET_MS * 1.05,
        ),
        _within_10ms(
            "ping during those turns, worst",
            max(later_pings, default=0.0) * 1e3,
            floor_ms,
        ),
        _within_10ms(
            "ping between those turns (vectors computed off the loop meanwhile), worst",
            max(between, default=0.0) * 1e3,
            floor_ms,
        ),
        Result(
            f"first hybrid turn after SessionStart ({later_turns} later turns, info)",
            (hybrid_at - started) * 1e3 if hybrid_at is not None else float("nan"),
            "ms",
            None,
            None,
            None,
            None,
        ),
        _within_10ms(
            "loop stall while the store decodes and indexes in-process, worst",
            stall,
            stall_floor,
        ),
        _within_10ms(
            "loop stall while a worker frees that index piecewise (retire), worst",
            retired,
            stall_floor,
        ),
        Result(
            "loop stall while a worker drops that index in one step (info, the old way)",
            dropped,
            "ms",
            stall_floor,
            dropped / stall_floor if stall_floor else None,
            None,
            None,
        ),
        *vectors,
    ]


def typed_first_turn(tmp: Path, *, think: float = 2.0, pings_every: float = 0.01) -> list[Result]:
    """The first turn on the largest store when the prompt comes ``think`` s after
    ``SessionStart`` (a person typing it), in a fresh sidecar on the store ``first_turn``
    wrote.  The semantic model starts loading at the first session event and its steps
    wait while a turn is in flight (issue 15 item 9), so its one-off GIL hold (the
    tokenizer parse) falls in the typing time, where pings go on
    every ``pings_every`` s and are reported as an info row."""
    agent, repo = tmp / "big-agent", tmp / "big-repo"
    pipe = _ready(None, agent)
    try:
        start = {
            "type": "SessionStart",
            "reason": "startup",
            "session_id": "typed",
            "cwd": str(repo),
        }
        pipe.send({"type": "request", "id": 1, "method": "event", "params": {"event": start}})
        pipe.answer_until("response")
        typing = _pings_for(pipe, think, pings_every)
        hook, pings, answer = _hook_with_pings(pipe, pings_every)
    finally:
        pipe.close()
    floor_ms = statistics.median(typing) * 1e3
    worst_ms = max(pings) * 1e3
    outcome = "memory" if answer["result"]["sections"] else "fail-open"
    return [
        Result(
            f"first BeforeAgentStart {think:g} s after SessionStart ({outcome}) vs budget",
            hook * 1e3,
            "ms",
            BUDGET_MS,
            hook * 1e3 / BUDGET_MS,
            "<= 1.05x",
            hook * 1e3 <= BUDGET_MS * 1.05,
        ),
        _within_10ms(
            f"ping during that turn, worst of {len(pings)}",
            worst_ms,
            floor_ms,
        ),
        Result(
            f"ping while that prompt is typed (model loading), worst (info, floor: median of "
            f"{len(typing)})",
            max(typing) * 1e3,
            "ms",
            floor_ms,
            max(typing) * 1e3 / floor_ms,
            None,
            None,
        ),
    ]


def _later_turns(
    pipe: Pipe, every: float
) -> tuple[float, list[float], list[float], int, float | None]:
    """The turns after the first, 0.5 s apart: for 6 s, until two injected memory and one
    was ranked hybrid (at most 20).

    The first turn fails open while the index builds; a later one is the first to use the
    index and (with the semantic model loaded meanwhile) starts its fact vectors off the
    loop, ranked lexically until they are in. The largest store must stay inside the
    budget, and the loop free, on those turns and between them (pinged every ``every`` s
    while the vectors are computed). Returns the slowest hook, the pings during and between
    the turns, the number of turns and when the first hybrid turn was answered.
    """
    slowest, pings, between, turns, injected = 0.0, [], [], 0, 0
    hybrid_at: float | None = None
    ends = time.perf_counter() + 6.0
    while turns < 20 and (injected < 2 or hybrid_at is None or time.perf_counter() < ends):
        between += _pings_for(pipe, 0.5, every)
        hook, got, answer = _hook_with_pings(pipe, every)
        slowest = max(slowest, hook)
        pings += got
        turns += 1
        result = answer["result"]
        injected += bool(result["sections"])
        said = " ".join(str(d) for d in result.get("disclosures", ()))
        if hybrid_at is None and result["sections"] and "ranking: lexical" not in said:
            hybrid_at = time.perf_counter()
    return slowest, pings, between, turns, hybrid_at


def _pings_for(pipe: Pipe, seconds: float, every: float) -> list[float]:
    """Ping round trips, one at a time every ``every`` s, for ``seconds``."""
    out = []
    ends = time.perf_counter() + seconds
    ident = 10_000
    while time.perf_counter() < ends:
        t0 = time.perf_counter()
        pipe.send({"type": "request", "id": ident, "method": "ping", "params": None})
        pipe.answer_until("response")
        out.append(time.perf_counter() - t0)
        ident += 1
        time.sleep(max(0.0, every - (time.perf_counter() - t0)))
    return out


def _in_process_stall(agent: Path, repo: Path) -> tuple[float, float, float, float]:
    """The loop's worst 1 ms-tick overshoot while a thread loads the store, idle, while a
    thread frees the index piecewise (``retire``), and while one drops it in one step."""
    target = big_target(agent, repo)
    kept: list[Any] = []

    def load() -> None:
        kept.append(build_big_index(agent, target))

    async def worst_tick(work: Callable[[], object]) -> tuple[float, float]:
        """Tick every 1 ms until ``work`` is done on a worker thread."""
        loop = asyncio.get_running_loop()
        started = last = time.perf_counter()
        job = loop.run_in_executor(None, work)
        worst = 0.0
        while not job.done():  # gaps from the hand-over on: a stall at the start counts too
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.001)
            last = now
        await job
        return worst * 1e3, time.perf_counter() - started

    previous = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)  # as the sidecar runs
    try:
        stall, took = asyncio.run(worst_tick(load))
        floor, _ = asyncio.run(worst_tick(functools.partial(time.sleep, took)))
        retired, _ = asyncio.run(worst_tick(retire(kept.pop())))
        load()
        dropped, _ = asyncio.run(worst_tick(kept.clear))
    finally:
        sys.setswitchinterval(previous)
    return stall, floor, retired, dropped


def _vector_stall(agent: Path, repo: Path) -> list[Result]:
    """The 1 ms ticker while a worker thread computes the store's 19,000 fact vectors the
    way the edge's worker does (batches of ``ENCODE_BATCH``, a ``sleep(0)`` between
    them), against the same ticker with the worker idle as long."""
    from persona_mind.embedding import SemanticEdge  # noqa: PLC0415 - loads numpy

    edge = SemanticEdge()
    if not edge.load_now().hybrid:
        return []
    index = build_big_index(agent, big_target(agent, repo))

    async def ticks(work: Callable[[], object]) -> tuple[list[float], float]:
        loop = asyncio.get_running_loop()
        started = last = time.perf_counter()
        job = loop.run_in_executor(None, work)
        gaps = []
        while not job.done():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append((now - last - 0.001) * 1e3)
            last = now
        await job
        return sorted(gaps), time.perf_counter() - started

    previous = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        busy, took = asyncio.run(ticks(functools.partial(edge.bind, index, None)))
        idle, _ = asyncio.run(ticks(functools.partial(time.sleep, took)))
    finally:
        sys.setswitchinterval(previous)
    retire(index)()

    def p99(gaps: list[float]) -> float:
        return gaps[int(len(gaps) * 0.99)]

    return [
        _within_10ms(
            f"loop stall while a worker computes {len(index)} fact vectors, worst",
            busy[-1],
            idle[-1],
        ),
        Result(
            "loop stall while a worker computes those vectors, p99 of 1 ms ticks (info)",
            p99(busy),
            "ms",
            p99(idle),
            p99(busy) / p99(idle) if p99(idle) else None,
            None,
            None,
        ),
        Result(
            "time to compute those vectors on the worker (info)",
            took * 1e3,
            "ms",
            None,
            None,
            None,
            None,
        ),
    ]


_LAST = 99
"""The id of the ping that closes :func:`_hook_with_pings`'s measurement."""


def _hook_with_pings(pipe: Pipe, every: float) -> tuple[float, list[float], dict[str, Any]]:
    """Send the hook, then a ping every ``every`` s until the hook is answered."""
    sent: dict[int, float] = {}
    got: dict[int, float] = {}
    frames: dict[int, dict[str, Any]] = {}
    hook_done = threading.Event()

    def read() -> None:
        # until the closing ping (id 99, sent after the hook was answered) is answered:
        # pings are answered in order, so every earlier one is then in ``got`` too (the old
        # "all sent are answered" test raced the sender adding one more)
        while _LAST not in got:
            frame = pipe.answer_until("response")
            got[frame["id"]] = time.perf_counter()
            frames[frame["id"]] = frame
            if frame["id"] == 2:
                hook_done.set()

    event = {"type": "BeforeAgentStart", "prompt": "fix the parser12 cache retry3 token7"}
    reader = threading.Thread(target=read)
    sent[2] = time.perf_counter()
    pipe.send({"type": "request", "id": 2, "method": "event", "params": {"event": event}})
    reader.start()
    ident = 100
    while not hook_done.wait(every):
        sent[ident] = time.perf_counter()
        pipe.send({"type": "request", "id": ident, "method": "ping", "params": None})
        ident += 1
    sent[_LAST] = time.perf_counter()
    pipe.send({"type": "request", "id": _LAST, "method": "ping", "params": None})
    reader.join(60)
    hook = got[2] - sent[2]
    pings = [got[i] - sent[i] for i in sent if i >= 100 and i in got]
    return hook, pings, frames[2]


def floods(tmp: Path, *, quick: bool) -> list[Result]:
    """Peak RSS under the two floods of item 8, against an idle sidecar's peak."""
    agent = tmp / "flood-agent"
    idle = _ready(STUB, agent)
    floor = _peak_rss_mb(idle.proc.pid)
    idle.close()
    events = 20 if quick else 60
    pings = 12 if quick else 40
    out = []
    for name, peak in (
        (f"{events} x 8 MiB Input notifies, worker stuck", _event_flood(agent, events)),
        (f"{pings} x 15 MiB pings, output unread", _ping_flood(agent, pings)),
    ):
        out.append(
            Result(
                f"sidecar peak RSS, {name}", peak, "MB", floor, peak / floor, "< 150 MB", peak < 150
            )
        )
    return out


def _event_flood(agent: Path, count: int) -> float:
    pipe = _ready(STUB, agent)
    hang = {"type": "BeforeAgentStart", "prompt": "HANG"}
    pipe.send({"type": "request", "id": 1, "method": "event", "params": {"event": hang}})
    note = {"type": "notify", "method": "event", "params": {"event": {"type": "Input"}}}
    note["params"]["event"]["text"] = "y" * (8 * MIB)  # type: ignore[index]
    for _ in range(count):
        pipe.send(note)
    pipe.send({"type": "request", "id": 2, "method": "ping", "params": None})
    while pipe.recv().get("id") != 2:
        pass
    peak = _peak_rss_mb(pipe.proc.pid)
    pipe.close()
    return peak


def _ping_flood(agent: Path, count: int) -> float:
    pipe = _ready(STUB, agent)
    body = b',"method":"ping","params":"' + b"z" * (15 * MIB) + b'"}\n'

    def flood() -> None:
        for i in range(count):
            pipe.stdin.write(b'{"type":"request","id":%d' % (100 + i) + body)
            pipe.stdin.flush()

    writer = threading.Thread(target=flood)
    writer.start()
    time.sleep(2.0)  # let the sidecar fill its pipe and stop reading (the peak is a max anyway)
    for _ in range(count):
        pipe.stdout.readline()
    writer.join(120)
    peak = _peak_rss_mb(pipe.proc.pid)
    pipe.close()
    return peak


def main() -> None:
    args = parse_args(__doc__ or "")
    with tempfile.TemporaryDirectory() as tmp:
        results = first_turn(Path(tmp)) + typed_first_turn(Path(tmp))
        results += floods(Path(tmp), quick=args.quick)
    emit(results, args.json)


if __name__ == "__main__":
    main()
