"""F3: ENOSPC / EIO at every seam call of a mutation, transient and persistent.

For each call k of a clean mutation: the store stays old-or-new and valid, the error
reaches the caller as a typed StorageError carrying the errno, an fsync is never retried
on the descriptor it failed on, nothing is acknowledged after an fsync error, orphan temps
are swept by the next mutation, and the next mutation succeeds once the fault clears.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from persona_mind.errors import StorageError
from persona_mind.storage import FileStore, OsFileSystem, StoreQuarantined, WriteFailed
from persona_mind.testing._faultfs import FaultyFileSystem
from tests.fault._model import appender, target_in

ERRNOS = (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EMFILE)


def _errno_in_chain(exc: BaseException) -> int | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError):
            return seen.errno
        seen = seen.__cause__
    return None


def _setup(directory: Path) -> tuple[bytes, FileStore]:
    directory.mkdir(parents=True)
    target = target_in(directory)
    real = FileStore()
    real.mutate(target, appender("a", pad=3000))
    real.mutate(target, appender("b", pad=3000))
    return target.path.read_bytes(), real


def _clean_calls(tmp_path: Path) -> list[str]:
    _setup(tmp_path / "count")
    fs = FaultyFileSystem()
    fs.fail_at(10_000)
    FileStore(fs=fs).mutate(target_in(tmp_path / "count"), appender("c", pad=3000))
    return list(fs.calls)


def test_f3_clean_mutation_call_trace(tmp_path: Path) -> None:
    """The protocol order a fault walks through: fsync(tmp) before replace before fsync(dir)."""
    calls = _clean_calls(tmp_path)
    assert calls.index("fsync") < calls.index("replace") < calls.index("fsync_dir")
    assert calls.count("fsync") == 1


@pytest.mark.parametrize("code", ERRNOS, ids=[errno.errorcode[c] for c in ERRNOS])
@pytest.mark.parametrize("persistent", [False, True], ids=["transient", "persistent"])
def test_f3_fault_at_every_call(tmp_path: Path, code: int, persistent: bool) -> None:
    calls = _clean_calls(tmp_path)
    failed = 0
    for k in range(1, len(calls) + 1):
        directory = tmp_path / f"k{k}"
        old, real = _setup(directory)
        target = target_in(directory)
        fs = FaultyFileSystem()
        store = FileStore(fs=fs, lock_timeout=2.0)
        fs.fail_at(k, code, persistent=persistent)
        new_entries = appender("c", pad=3000)(real.read(target).entries)  # type: ignore[union-attr]
        error: StorageError | None = None
        try:
            store.mutate(target, appender("c", pad=3000))
        except StorageError as exc:
            error = exc
        fs.clear()
        assert fs.fsync_after_error == 0, f"call {k}: fsync retried after an error"
        now = real.read(target)  # valid: never torn, never corrupt
        assert now is not None
        if error is None:
            assert now.entries == new_entries, f"call {k} ({calls[k - 1]}): success but old data"
            # only diagnostics and lock release may fail silently: the owner record, and the
            # unlock/close of the lock descriptor (closing releases the lock regardless)
            after_ack = k > len(calls) - calls[::-1].index("fsync_dir")
            assert calls[k - 1] == "write_record" or after_ack, f"call {k} swallowed"
            continue
        failed += 1
        assert _errno_in_chain(error) == code, f"call {k}: errno lost: {error!r}"
        if isinstance(error, WriteFailed) and error.replaced:
            assert calls[k - 1] == "fsync_dir"
            assert now.entries == new_entries
        else:
            assert target.path.read_bytes() == old, f"call {k} ({calls[k - 1]}): old bytes changed"
        if calls[k - 1] == "fsync":
            assert isinstance(error, WriteFailed)
            assert not error.replaced  # never an ack after an fsync error
        # the next mutation succeeds once the fault clears and sweeps orphan temps
        store.mutate(target, appender("d"))
        assert not [n for n in os.listdir(directory) if n.endswith(".tmp")]
    # all but the calls after the ack — the lstat that keys the identity cache (issue 10)
    # and the lock release — and, when transient, the owner record
    assert failed == len(calls) - (3 if persistent else 4)


def test_f3_short_writes_still_write_everything(tmp_path: Path) -> None:
    _setup(tmp_path / "s")
    target = target_in(tmp_path / "s")
    fs = FaultyFileSystem()
    fs.short_writes = True
    snap = FileStore(fs=fs).mutate(target, appender("c", pad=20_000))
    assert FileStore().read(target) == snap
    assert fs.calls.count("write") > 10


def test_f3_every_storage_syscall_goes_through_the_seam(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A guard fails if storage code calls os.write/fsync/replace/open outside the seam."""
    _setup(tmp_path / "g")
    target = target_in(tmp_path / "g")
    inside = [0]
    bypass: list[str] = []

    class Guarded(OsFileSystem):
        pass

    for name in [n for n in dir(OsFileSystem) if not n.startswith("_")]:
        original = getattr(OsFileSystem, name)

        def wrapped(self: OsFileSystem, *args: object, _o: object = original) -> object:
            inside[0] += 1
            try:
                return _o(self, *args)  # type: ignore[operator]
            finally:
                inside[0] -= 1

        setattr(Guarded, name, wrapped)
    for fn in ("write", "fsync", "replace", "open", "unlink", "rename", "link"):
        real_fn = getattr(os, fn)

        def guard(*args: object, _fn: object = real_fn, _name: str = fn, **kw: object) -> object:
            if not inside[0]:
                bypass.append(f"os.{_name}{args[:1]}")
            return _fn(*args, **kw)  # type: ignore[operator]

        monkeypatch.setattr(os, fn, guard)
    store = FileStore(fs=Guarded())
    store.mutate(target, appender("c"))
    store.read(target)
    store.repair(target)
    monkeypatch.undo()
    assert bypass == []


@pytest.mark.parametrize("persistent", [False, True], ids=["transient", "persistent"])
def test_f3_fault_while_quarantining_never_loses_the_bytes(
    tmp_path: Path, persistent: bool
) -> None:
    """A fault at any call of a quarantining mutation: the corrupt bytes survive somewhere
    (still in place, or moved byte-for-byte), the error reaches the caller, a later
    mutation completes the quarantine, and the store stays refused until a repair."""
    bad = b'{"version":1,"sequence":'
    counter = FaultyFileSystem()
    probe = tmp_path / "probe"
    probe.mkdir()
    target_in(probe).path.write_bytes(bad)
    counter.fail_at(10_000)
    with pytest.raises(StorageError):
        FileStore(fs=counter).mutate(target_in(probe), appender("x"))
    calls = list(counter.calls)
    for k in range(1, len(calls) + 1):
        directory = tmp_path / f"q{k}"
        directory.mkdir()
        target = target_in(directory)
        target.path.write_bytes(bad)
        fs = FaultyFileSystem()
        fs.fail_at(k, errno.EIO, persistent=persistent)
        with pytest.raises(StorageError):
            FileStore(fs=fs, lock_timeout=2.0).mutate(target, appender("x"))
        fs.clear()
        holders = [
            p for p in directory.iterdir() if not p.name.startswith(".") and p.read_bytes() == bad
        ]
        assert holders, f"call {k} ({calls[k - 1]}): the corrupt bytes were lost"
        if target.path.exists():  # not moved yet: the next mutation quarantines it
            with pytest.raises(StorageError):
                FileStore().mutate(target, appender("x"))
        # an unresolved quarantine refuses writes until a repair resolves it (issue 15)
        with pytest.raises(StoreQuarantined):
            FileStore().mutate(target, appender("y"))
        FileStore().recover(target)
        FileStore().mutate(target, appender("y"))
        assert target.path.read_bytes() != bad
        moved = [p for p in directory.iterdir() if ".quarantine-" in p.name]
        assert any(p.read_bytes() == bad for p in moved), f"call {k}: bytes not quarantined"
