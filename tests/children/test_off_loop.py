"""A child launch keeps its file and ``/proc`` work off the event loop (issue 10 scope 6).

The prompt temp file of each ``pi`` launch is written and removed on a worker thread, and
the wait for a killed child's process group asks the kernel first (one ``killpg(pgid, 0)``)
and scans ``/proc`` only while the group still exists — on a worker thread. Removal of the
prompt file and the end of the group wait still hold on every path.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from persona_mind.runners import _child_process
from persona_mind.runners._child_pi import prompt_file
from persona_mind.runners._child_process import _group_gone, group_alive, group_members

PY = sys.executable


def _spawn(code: str) -> subprocess.Popen[bytes]:
    """A python child leading its own process group (as every child runs)."""
    return subprocess.Popen([PY, "-S", "-c", code], start_new_session=True)


def _recording(
    fn: Callable[..., object], threads: list[int], after: threading.Event | None = None, n: int = 0
) -> Callable[..., object]:
    """Wrap ``fn``: record the calling thread; set ``after`` once it was called ``n`` times."""

    def wrapper(*args: object, **kwargs: object) -> object:
        threads.append(threading.get_ident())
        if after is not None and len(threads) >= n:
            after.set()
        return fn(*args, **kwargs)

    return wrapper


@pytest.mark.asyncio
async def test_a_gone_group_ends_the_wait_without_a_proc_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The usual case: the child was reaped, so one ``killpg`` probe answers; no scan runs."""
    child = _spawn("pass")
    await anyio.to_thread.run_sync(child.wait)
    assert not group_alive(child.pid)

    def no_scan(pgid: int) -> list[int]:
        raise AssertionError(f"/proc was scanned for group {pgid}, which is gone")

    monkeypatch.setattr(_child_process, "group_members", no_scan)
    await _group_gone(child.pid)


@pytest.mark.asyncio
async def test_a_group_of_only_zombies_ends_the_wait_and_the_scan_is_off_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A zombie still counts for ``killpg`` but runs nothing: the scan, on a worker thread,
    sees no live member and the wait ends (an init that never reaps must not hold it)."""
    loop_thread = threading.get_ident()
    child = _spawn("pass")
    try:
        # exited but not reaped: a zombie that keeps its process group in existence
        await anyio.to_thread.run_sync(os.waitid, os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        assert group_alive(child.pid)
        threads: list[int] = []
        monkeypatch.setattr(
            _child_process, "group_members", _recording(_child_process.group_members, threads)
        )
        await _group_gone(child.pid)
        assert threads, "the group existed, so /proc had to be read"
        assert loop_thread not in threads
    finally:
        child.wait()


@pytest.mark.asyncio
async def test_the_wait_lasts_while_a_member_runs_and_ends_when_it_is_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop_thread = threading.get_ident()
    child = _spawn("import time; time.sleep(120)")
    threads: list[int] = []
    scanned_twice = threading.Event()
    monkeypatch.setattr(
        _child_process,
        "group_members",
        _recording(_child_process.group_members, threads, scanned_twice, 2),
    )
    finished = anyio.Event()
    try:
        async with anyio.create_task_group() as tg:

            async def wait_gone() -> None:
                await _group_gone(child.pid)
                finished.set()

            tg.start_soon(wait_gone)
            assert await anyio.to_thread.run_sync(scanned_twice.wait, 60)
            assert not finished.is_set(), "the wait ended while a member was running"
            child.kill()
            await anyio.to_thread.run_sync(child.wait)
            await finished.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert loop_thread not in threads


def test_the_scan_reads_a_command_name_with_spaces_and_parentheses(tmp_path: Path) -> None:
    """``/proc/<pid>/stat`` puts the command name in parentheses, and the name may hold both
    spaces and ``)``: the scan must read the fields after the *last* one."""
    odd = tmp_path / "a) b (c"
    odd.symlink_to(PY)
    child = subprocess.Popen(
        [str(odd), "-S", "-c", "import sys; print('up', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"up\n"  # running its own code: exec is complete
        assert Path(f"/proc/{child.pid}/comm").read_text().strip() == "a) b (c"
        assert group_members(child.pid) == [child.pid]
    finally:
        child.communicate(b"")
    assert group_members(child.pid) == []


def _mode(path: str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.asyncio
async def test_the_prompt_file_is_written_and_removed_off_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``mkdtemp`` and ``rmtree`` run on worker threads; the file is 0600 in a 0700 dir."""
    loop_thread = threading.get_ident()
    made: list[int] = []
    removed: list[int] = []
    monkeypatch.setattr(tempfile, "mkdtemp", _recording(tempfile.mkdtemp, made))
    monkeypatch.setattr(shutil, "rmtree", _recording(shutil.rmtree, removed))
    async with prompt_file("You are ARCHITECT.\n" + "x" * 70_000) as path:
        assert Path(path).read_text().startswith("You are ARCHITECT.")
        assert (_mode(path), _mode(os.path.dirname(path))) == (0o600, 0o700)
    assert not Path(path).parent.exists()
    assert made
    assert removed
    assert loop_thread not in made + removed


@pytest.mark.asyncio
async def test_a_cancel_that_lands_mid_write_still_removes_the_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The launch is cancelled (asyncio's own cancel, as the ChildRunner's work group does)
    while the worker thread is still creating the file: the removal waits for the creation
    and removes what it made — nothing is left in the temp dir."""
    entered = threading.Event()
    release = threading.Event()
    made: list[str] = []
    real_mkdtemp = tempfile.mkdtemp

    def slow_mkdtemp(*args: object, **kwargs: object) -> str:
        entered.set()
        release.wait(60)
        directory = real_mkdtemp(*args, **kwargs)  # type: ignore[call-overload]
        made.append(directory)
        return str(directory)

    monkeypatch.setattr(tempfile, "mkdtemp", slow_mkdtemp)
    body_ran = False

    async def launch() -> None:
        nonlocal body_ran
        async with prompt_file("persona"):
            body_ran = True

    task = asyncio.get_running_loop().create_task(launch())
    assert await anyio.to_thread.run_sync(entered.wait, 60)
    task.cancel()  # delivered at once: the task is parked on the worker thread's future
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not body_ran
    assert len(made) == 1
    assert not os.path.exists(made[0])
