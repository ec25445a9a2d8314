"""When a mutation sweeps orphan temps and re-checks lock directories (M-STORE-7, -10).

The sweep is a ``listdir`` of the whole directory, so a FileStore runs it on the first
mutation of each file, after any failed or interrupted write of that file, after a
quarantine, and in ``repair`` — not on every acknowledged mutation (docs/storage.md
"Performance"). These tests pin exactly that, counting seam calls, never time.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from persona_mind.errors import StorageError
from persona_mind.storage import FileStore, Layout, StoreTarget, lock_path
from persona_mind.testing._faultfs import FaultyFileSystem
from tests.storage.conftest import Fact


def add(fact_id: str):  # type: ignore[no-untyped-def]
    def mutation(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return (*entries, Fact(id=fact_id))

    return mutation


def _orphan(target: StoreTarget[Fact], token: str = "0123456789ab") -> Path:
    orphan = target.path.with_name(f".{target.path.name}.{token}.tmp")
    orphan.write_bytes(b"partial")
    return orphan


def _temps(directory: Path) -> list[str]:
    return [n for n in os.listdir(directory) if n.endswith(".tmp")]


def test_first_mutation_of_a_file_sweeps_then_acknowledged_ones_do_not_list(
    layout: Layout, target: StoreTarget[Fact]
) -> None:
    """M-STORE-7: the first mutation sweeps; after acknowledged writes no listdir runs."""
    FileStore(layout).mutate(target, add("a"))
    orphan = _orphan(target)
    fs = FaultyFileSystem()
    store = FileStore(layout, fs=fs)
    store.mutate(target, add("b"))
    assert "listdir" in fs.calls
    assert not orphan.exists()
    fs.calls.clear()
    store.mutate(target, add("c"))
    assert "listdir" not in fs.calls
    assert "lstat" in fs.calls  # the backup check still runs
    assert _temps(target.path.parent) == []


def test_a_failed_write_rearms_the_sweep_and_the_next_mutation_cleans_up(
    layout: Layout, target: StoreTarget[Fact]
) -> None:
    """A write that fails after creating its temp makes the next mutation sweep again."""
    fs = FaultyFileSystem()
    store = FileStore(layout, fs=fs, lock_timeout=2.0)
    store.mutate(target, add("a"))
    # unlink fails too (persistent), so the failed write leaves its temp behind
    fs.fail_at(1, errno.EIO, persistent=True, ops=("fsync", "unlink"))
    with pytest.raises(StorageError):
        store.mutate(target, add("b"))
    fs.fail_at(10_000)  # no fault within reach; counts every call again
    assert len(_temps(target.path.parent)) == 1
    store.mutate(target, add("c"))
    assert "listdir" in fs.calls
    assert _temps(target.path.parent) == []
    assert [f.id for f in FileStore(layout).read(target).entries] == ["a", "c"]  # type: ignore[union-attr]


def test_a_no_op_mutation_keeps_sweeping_until_a_write_is_acknowledged(
    layout: Layout, target: StoreTarget[Fact]
) -> None:
    """Only an acknowledged write (its directory fsync) marks the file swept."""
    FileStore(layout).mutate(target, add("a"))
    fs = FaultyFileSystem()
    store = FileStore(layout, fs=fs)
    store.mutate(target, lambda entries: entries)  # unchanged: nothing written
    fs.calls.clear()
    orphan = _orphan(target)
    store.mutate(target, lambda entries: entries)
    assert "listdir" in fs.calls
    assert not orphan.exists()


def test_another_processes_orphan_waits_for_a_new_instance_or_repair(
    layout: Layout, target: StoreTarget[Fact]
) -> None:
    """The documented trade: an orphan appearing after this instance swept is garbage that a
    fresh FileStore (next process) or ``repair`` removes; reads never see it."""
    store = FileStore(layout)
    store.mutate(target, add("a"))
    orphan = _orphan(target)
    store.mutate(target, add("b"))
    assert orphan.exists()
    assert [f.id for f in store.read(target).entries] == ["a", "b"]  # type: ignore[union-attr]
    assert store.repair(target) is None
    assert not orphan.exists()
    second = _orphan(target, "ba9876543210")
    FileStore(layout).mutate(target, add("c"))
    assert not second.exists()


def test_lock_directory_removed_between_mutations_is_recreated(
    layout: Layout, target: StoreTarget[Fact]
) -> None:
    """The lock directory is ensured once per instance; if it vanishes the ENOENT of the
    lock file's open re-creates it (durably) instead of failing the mutation."""
    fs = FaultyFileSystem()
    store = FileStore(layout, fs=fs)
    store.mutate(target, add("a"))
    fs.calls.clear()
    store.mutate(target, add("b"))
    assert "mkdir" not in fs.calls
    shutil.rmtree(target.path.parent)
    fs.calls.clear()
    store.mutate(target, add("c"))
    assert "mkdir" in fs.calls
    assert lock_path(target.path).exists()
    assert [f.id for f in store.read(target).entries] == ["c"]  # type: ignore[union-attr]


def test_lock_open_failing_otherwise_is_not_retried(
    layout: Layout, target: StoreTarget[Fact]
) -> None:
    """Only ENOENT on a known directory re-runs ensure_dir; EACCES surfaces as is."""
    fs = FaultyFileSystem()
    store = FileStore(layout, fs=fs, lock_timeout=2.0)
    store.mutate(target, add("a"))
    fs.fail_at(1, errno.EACCES, ops=("open_lock",))
    with pytest.raises(StorageError) as info:
        store.mutate(target, add("b"))
    assert isinstance(info.value.__cause__, OSError)
    assert info.value.__cause__.errno == errno.EACCES
    assert fs.calls == ["open_lock"]
