"""Lock files: owner record, bounded wait, typed timeout, order, never stolen (M-STORE-8..16)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import msgspec
import pytest

from persona_mind.storage import (
    FileLock,
    LockOrderError,
    LockOwner,
    LockTimeout,
    OsFileSystem,
    held_locks,
    locked,
)

HOLDER = Path(__file__).with_name("_holder.py")
FS = OsFileSystem()


@contextmanager
def holder(path: Path, purpose: str = "test-holder") -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, str(HOLDER), str(path), purpose],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


def test_owner_record_written_and_lock_file_kept(tmp_path: Path) -> None:
    path = tmp_path / ".s.lock"
    with locked(FS, path, "store", purpose="unit"):
        owner = msgspec.json.decode(path.read_bytes(), type=LockOwner)
        assert (owner.pid, owner.purpose) == (os.getpid(), "unit")
    assert path.exists()  # never deleted


def test_m_store_10_live_holder_not_stolen_timeout_names_it(tmp_path: Path) -> None:
    path = tmp_path / ".s.lock"
    with holder(path, "optimizer apply") as proc:
        before = path.read_bytes()
        with pytest.raises(LockTimeout) as info:
            FileLock(FS, path, "store", timeout=0.05).acquire()
        assert f"pid {proc.pid}" in info.value.holder
        assert "optimizer apply" in info.value.holder
        assert "never delete the lock file" in str(info.value)
        assert path.read_bytes() == before  # a failed contender changes nothing
        assert held_locks() == ()


def test_m_store_10_malformed_holder_not_stolen(tmp_path: Path) -> None:
    path = tmp_path / ".s.lock"
    with holder(path):
        path.write_bytes(b"\x00garbage")  # a malformed owner record
        with pytest.raises(LockTimeout) as info:
            FileLock(FS, path, "store", timeout=0.05).acquire()
        assert "malformed" in info.value.holder


def test_killed_holder_releases_at_once(tmp_path: Path) -> None:
    path = tmp_path / ".s.lock"
    with holder(path) as proc:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        lock = FileLock(FS, path, "store", timeout=5.0, purpose="after-kill")
        fd = FS.open_lock(path)
        try:
            assert FS.try_lock(fd)  # free without waiting: the kernel lock died
            FS.unlock(fd)
        finally:
            FS.close(fd)
        with lock:
            owner = msgspec.json.decode(path.read_bytes(), type=LockOwner)
            assert owner.purpose == "after-kill"  # the stale record was overwritten


def test_blocking_wait_wakes_when_holder_releases(tmp_path: Path) -> None:
    path = tmp_path / ".s.lock"
    got = threading.Event()
    with holder(path) as proc:

        def waiter() -> None:
            with FileLock(FS, path, "store", timeout=30.0):
                got.set()

        thread = threading.Thread(target=waiter)
        thread.start()
        assert not got.is_set()
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        thread.join(timeout=10)
        assert got.is_set()


def test_abandoned_wait_releases_when_it_finally_gets_the_lock(tmp_path: Path) -> None:
    path = tmp_path / ".s.lock"
    with holder(path) as proc:
        with pytest.raises(LockTimeout):
            FileLock(FS, path, "store", timeout=0.02).acquire()
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "released"
    # the abandoned helper thread got the lock after the holder left and released it
    with FileLock(FS, path, "store", timeout=5.0):
        pass


def test_second_descriptor_close_keeps_lock(tmp_path: Path) -> None:
    """F5(f): opening and closing another fd on the lock file does not drop a flock."""
    path = tmp_path / ".s.lock"
    with locked(FS, path, "store"):
        FS.close(FS.open_lock(path))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        code = (
            "import sys; from pathlib import Path; from persona_mind.storage import OsFileSystem;"
            "fs=OsFileSystem(); fd=fs.open_lock(Path(sys.argv[1])); print(fs.try_lock(fd))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(path)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("first", "second"),
    [("store", "memory"), ("store", "history"), ("history", "memory"), ("store", "store")],
)
def test_m_store_15_out_of_order_is_a_programming_error(
    tmp_path: Path, first: str, second: str
) -> None:
    with locked(FS, tmp_path / "a.lock", first):  # type: ignore[arg-type]
        with pytest.raises(LockOrderError):
            FileLock(FS, tmp_path / "b.lock", second).acquire()  # type: ignore[arg-type]
        assert [d for d, _ in held_locks()] == [first]
    assert held_locks() == ()


def test_m_store_15_in_order_nesting_allowed(tmp_path: Path) -> None:
    with (
        locked(FS, tmp_path / "m.lock", "memory"),
        locked(FS, tmp_path / "h.lock", "history"),
        locked(FS, tmp_path / "s.lock", "store"),
    ):
        assert [d for d, _ in held_locks()] == ["memory", "history", "store"]
    with locked(FS, tmp_path / "m.lock", "memory"), locked(FS, tmp_path / "s.lock", "store"):
        pass


@pytest.mark.parametrize("independent", ["backlog", "packs"])
def test_m_store_16_independent_locks_never_nest(tmp_path: Path, independent: str) -> None:
    with (
        locked(FS, tmp_path / "i.lock", independent),  # type: ignore[arg-type]
        pytest.raises(LockOrderError),
    ):
        FileLock(FS, tmp_path / "s.lock", "store").acquire()
    with locked(FS, tmp_path / "s.lock", "store"), pytest.raises(LockOrderError):
        FileLock(FS, tmp_path / "i.lock", independent).acquire()  # type: ignore[arg-type]


@pytest.mark.parametrize("recheck", [True, False], ids=["recheck", "negative-control"])
def test_f5d_deleted_lock_file_never_splits_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recheck: bool
) -> None:
    """F5(d), portalocker#115: a holder that deletes the lock file must not split it."""
    path = tmp_path / ".s.lock"
    inside = [0]
    overlaps = [0]
    rounds = 150
    stop = threading.Event()
    if not recheck:
        monkeypatch.setattr(OsFileSystem, "same_file", lambda self, fd, p: True)

    def contender() -> None:
        for _ in range(rounds):
            with FileLock(OsFileSystem(), path, "store", timeout=10.0):
                inside[0] += 1
                if inside[0] > 1:
                    overlaps[0] += 1
                stop.wait(0.0002)
                inside[0] -= 1

    def cleaner() -> None:
        # like portalocker's TemporaryFileLock.release: unlink the file while holding it,
        # which strands waiters on the old inode unless they re-check after acquiring
        while not stop.is_set():
            with FileLock(OsFileSystem(), path, "store", timeout=10.0):
                inside[0] += 1
                if inside[0] > 1:
                    overlaps[0] += 1
                inside[0] -= 1
                with suppress(FileNotFoundError):  # the last step before its unlock
                    path.unlink()
            stop.wait(0.0003)

    threads = [threading.Thread(target=contender) for _ in range(3)]
    janitor = threading.Thread(target=cleaner)
    janitor.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    stop.set()
    janitor.join(timeout=10)
    if recheck:
        assert overlaps[0] == 0
    else:  # without the inode re-check the same schedule does split the lock
        assert overlaps[0] > 0
