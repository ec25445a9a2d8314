"""Lock waits without a thread per wait and without polling (issue 10 scope item 6).

On Linux a blocked ``FileLock.acquire`` sleeps on an inotify watch of the lock file in the
caller's own thread and retries only when the kernel reports a close; elsewhere it falls
back to the helper-thread wait. These tests pin both paths.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from persona_mind.storage import FileLock, LockTimeout, OsFileSystem, _locks, _lockwait
from tests.storage.test_locks import holder

pytestmark = pytest.mark.skipif(
    _lockwait.open_release_watch(Path("/")) is None,
    reason="inotify is Linux-only; elsewhere the helper-thread fallback is the wait",
)


class CountingFS(OsFileSystem):
    """Counts non-blocking lock attempts (each retry of a waiter is one)."""

    def __init__(self) -> None:
        self.attempts = 0

    def try_lock(self, fd: int) -> bool:
        self.attempts += 1
        return super().try_lock(fd)


def _sleeping(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """An event set when a waiter goes to sleep on its release watch."""
    asleep = threading.Event()
    original = _lockwait.ReleaseWatch.wait

    def wait(self: _lockwait.ReleaseWatch, timeout: float) -> bool:
        asleep.set()
        return original(self, timeout)

    monkeypatch.setattr(_lockwait.ReleaseWatch, "wait", wait)
    return asleep


def _fds() -> int:
    return len(os.listdir(f"/proc/{os.getpid()}/fd"))


def test_wait_starts_no_thread_and_does_not_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a holder keeps the lock, the waiter adds no thread and makes exactly two
    attempts (before and after arming the watch); the holder's release wakes it."""
    path = tmp_path / ".s.lock"
    asleep = _sleeping(monkeypatch)
    fs = CountingFS()
    got = threading.Event()
    with holder(path) as proc:
        before = {t.ident for t in threading.enumerate()}

        def waiter() -> None:
            with FileLock(fs, path, "store", timeout=30.0):
                got.set()

        thread = threading.Thread(target=waiter, name="test-waiter")
        thread.start()
        assert asleep.wait(10)
        spawned = {t.name for t in threading.enumerate() if t.ident not in before}
        assert spawned == {"test-waiter"}  # no lockwait helper thread
        assert fs.attempts == 2
        assert not got.is_set()
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        thread.join(timeout=10)
    assert got.is_set()


def test_killed_holder_wakes_the_waiter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kill -9 of the holder: the kernel closes its descriptor, which wakes the watch."""
    path = tmp_path / ".s.lock"
    asleep = _sleeping(monkeypatch)
    got = threading.Event()
    with holder(path) as proc:

        def waiter() -> None:
            with FileLock(OsFileSystem(), path, "store", timeout=30.0):
                got.set()

        thread = threading.Thread(target=waiter)
        thread.start()
        assert asleep.wait(10)
        os.kill(proc.pid, signal.SIGKILL)
        thread.join(timeout=10)
    assert got.is_set()


def test_timeout_leaks_no_descriptor_and_names_the_holder(tmp_path: Path) -> None:
    path = tmp_path / ".s.lock"
    with holder(path, purpose="slow-holder"):
        with pytest.raises(LockTimeout, match="slow-holder"):  # opens this thread's watcher
            FileLock(OsFileSystem(), path, "store", timeout=0.01).acquire()
        open_before = _fds()
        for _ in range(5):
            with pytest.raises(LockTimeout, match="slow-holder"):
                FileLock(OsFileSystem(), path, "store", timeout=0.01).acquire()
        assert _fds() == open_before  # every lock fd closed; the one watcher reused


def test_fallback_without_inotify_still_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no watch can be made (another OS, inotify limits), the polling wait runs, in
    the waiting thread (it starts none)."""
    monkeypatch.setattr(_locks, "open_release_watch", lambda _path: None)
    helper_used = threading.Event()
    original = FileLock._wait_by_polling

    def in_helper(self: FileLock, fd: int, timeout: float) -> bool:
        helper_used.set()
        assert threading.current_thread().name == "fallback-waiter"
        return original(self, fd, timeout)

    monkeypatch.setattr(FileLock, "_wait_by_polling", in_helper)
    path = tmp_path / ".s.lock"
    got = threading.Event()
    with holder(path) as proc:

        def waiter() -> None:
            with FileLock(OsFileSystem(), path, "store", timeout=30.0):
                got.set()

        thread = threading.Thread(target=waiter, name="fallback-waiter")
        before = threading.active_count()
        thread.start()
        assert helper_used.wait(10)
        assert threading.active_count() == before + 1  # the waiter alone: no helper thread
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        thread.join(timeout=10)
    assert got.is_set()


def test_close_event_before_the_lock_drops_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel raises IN_CLOSE just before it drops a closing descriptor's flock (a killed
    holder, or one closing without unlocking). A waiter woken by that event must retry
    shortly after, not sleep until a next event that never comes."""
    path = tmp_path / ".s.lock"
    fs = OsFileSystem()
    held = fs.open_lock(path)
    assert fs.try_lock(held)
    original = _lockwait.ReleaseWatch.wait
    timeouts: list[float] = []

    def wait(self: _lockwait.ReleaseWatch, timeout: float) -> bool:
        timeouts.append(timeout)
        if len(timeouts) == 1:
            return True  # the close event arrives while the lock is still held ...
        fs.unlock(held)  # ... and it drops an instant later, raising no event of its own
        return original(self, timeout)

    monkeypatch.setattr(_lockwait.ReleaseWatch, "wait", wait)
    try:
        with FileLock(fs, path, "store", timeout=5.0):
            pass
    finally:
        fs.close(held)
    assert timeouts[1] <= 0.001 + 1e-9  # a short follow-up retry, not the whole timeout
