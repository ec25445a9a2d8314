"""How much event-loop time a child launch's file and ``/proc`` work costs (issue 10 scope 6).

Two pieces of a child launch used to run on the loop: the private prompt file (``mkdtemp``,
a ``0600`` write, ``rmtree`` at exit) and the wait for a killed child's process group (a
``/proc`` scan telling running members from zombies). Both now run on a worker thread. What
matters is the loop thread's own CPU time (``time.thread_time()`` read on the loop thread),
so each line compares it with the same IO done right on the loop thread in the same run:

* ``group wait`` — waiting on a process group held by a zombie (an orphan that a
  non-reaping init never collects); floor: one ``group_members`` scan on the loop thread
  (what the wait cost the loop before). Target ≤ 0.5×.
* ``prompt file`` — ``async with prompt_file(200 KiB)``; floor: the same create, write and
  remove done synchronously on the loop thread. Target ≤ 1×: on a page-cache ``/tmp`` the two
  thread hops cost the loop about what the IO itself costs, so the gain here is not CPU but
  that a disk that stalls (writeback pressure, a slow or network ``/tmp``) no longer stops
  the loop — a wait CPU time cannot show; the target holds that the move costs the loop no
  more than the IO did.

The scan's own cost (``/proc`` scan) is printed for information: it grows with the number
of processes on the machine.

    python bench/child_loop.py [--json] [--quick]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/child_loop.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit, median_of, parse_args
from persona_mind.runners._child_pi import prompt_file
from persona_mind.runners._child_process import _group_gone, group_members

PROMPT = "You are ARCHITECT.\n" + "x" * (200 * 1024)


def _zombie_group() -> subprocess.Popen[bytes]:
    """A child leading its own group that has exited but is not reaped: its group exists
    for ``killpg`` while nothing in it runs (the state a killed orphan is left in)."""
    child = subprocess.Popen([sys.executable, "-S", "-c", "pass"], start_new_session=True)
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    return child


def _loop_cpu_of_group_wait(n: int) -> float:
    """Loop-thread CPU ms per wait on a zombie-held group."""

    async def run() -> float:
        spent = 0.0
        for _ in range(n):
            child = _zombie_group()
            start = time.thread_time()
            await _group_gone(child.pid)
            spent += time.thread_time() - start
            child.wait()
        return spent * 1e3 / n

    return asyncio.run(run())


def _cpu_of_scan(n: int) -> float:
    """CPU ms of one ``/proc`` scan on the calling thread (the old on-loop cost)."""
    child = _zombie_group()
    try:
        start = time.thread_time()
        for _ in range(n):
            group_members(child.pid)
        return (time.thread_time() - start) * 1e3 / n
    finally:
        child.wait()


def _loop_cpu_of_prompt_file(n: int) -> float:
    async def run() -> float:
        spent = 0.0
        for _ in range(n):
            start = time.thread_time()
            async with prompt_file(PROMPT):
                pass
            spent += time.thread_time() - start
        return spent * 1e3 / n

    return asyncio.run(run())


def _cpu_of_sync_prompt_file(n: int) -> float:
    """The same private file created, written and removed on the calling thread."""
    start = time.thread_time()
    for _ in range(n):
        directory = tempfile.mkdtemp(prefix="pm-bench-")
        fd = os.open(os.path.join(directory, "p.md"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(PROMPT.encode())
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        shutil.rmtree(directory)
    return (time.thread_time() - start) * 1e3 / n


def main() -> None:
    args = parse_args(__doc__ or "")
    n, samples = (10, 3) if args.quick else (50, 5)
    wait = median_of(samples, lambda: _loop_cpu_of_group_wait(n))
    scan = median_of(samples, lambda: _cpu_of_scan(n))
    launch = median_of(samples, lambda: _loop_cpu_of_prompt_file(n))
    sync_file = median_of(samples, lambda: _cpu_of_sync_prompt_file(n))
    wait_ratio, file_ratio = wait / scan, launch / sync_file
    results = [
        Result("group wait (loop CPU)", wait, "ms", scan, wait_ratio, "<= 0.5x", wait_ratio <= 0.5),
        Result(
            "prompt file (loop CPU)", launch, "ms", sync_file, file_ratio, "<= 1x", file_ratio <= 1
        ),
        Result("/proc scan (worker thread)", scan, "ms", None, None, None, None),
    ]
    emit(results, args.json)


if __name__ == "__main__":
    main()
