"""Issue 15, storage items 1 and 3: nothing but a regular file is opened for state, nothing
blocks under a lock, and anything at a state path the layout does not expect is reported
(and fixed by ``--repair`` where that is safe).

Each test here failed on main: a FIFO hung ``read``/``scan`` and a mutation (holding the
profile-wide memory lock); ``store check`` reported "0 corrupt" for a directory, a symlinked
directory and a directory ``.bak``.
"""

from __future__ import annotations

import argparse
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.cli._storage import add_parser
from persona_mind.errors import StorageError
from persona_mind.storage import (
    CorruptStore,
    FileStore,
    Layout,
    StoreQuarantined,
    StoreTarget,
    backup_path,
    lock_path,
)
from tests.storage.conftest import Fact


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def add(*ids: str) -> Callable[[tuple[Fact, ...]], tuple[Fact, ...]]:
    def mutation(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return (*entries, *(Fact(id=i) for i in ids))

    return mutation


def _finishes(fn: Callable[[], object], seconds: float = 20.0) -> BaseException | object:
    """Run ``fn`` in a daemon thread; fail (instead of hanging the suite) if it blocks."""
    outcome: list[BaseException | object] = []
    done = threading.Event()

    def body() -> None:
        try:
            outcome.append(fn())
        except BaseException as exc:  # handed to the test
            outcome.append(exc)
        done.set()

    threading.Thread(target=body, daemon=True).start()
    assert done.wait(seconds), "blocked: a FIFO was opened for a blocking read"
    return outcome[0]


def _memory_target(layout: Layout, project: str) -> StoreTarget[Fact]:
    return StoreTarget(path=layout.project(project), entry_type=Fact, lock="memory")


def test_item1_fifo_store_never_blocks_read_scan_or_other_projects(
    store: FileStore, layout: Layout
) -> None:
    """A FIFO at a store path is refused as not-a-file at once; a mutation of it holds the
    profile-wide memory lock only briefly, so another project's write still succeeds."""
    fifo = _memory_target(layout, "fifo")
    fifo.path.parent.mkdir(parents=True)
    os.mkfifo(fifo.path)
    err = _finishes(lambda: store.read(fifo))
    assert isinstance(err, CorruptStore)
    assert err.reason == "not-a-file"
    assert "FIFO" in err.detail
    scanned = _finishes(lambda: store.scan(layout.root))
    assert [c.path for c in scanned.corrupt] == [fifo.path]  # type: ignore[attr-defined]
    err = _finishes(lambda: store.mutate(fifo, add("a")))
    assert isinstance(err, CorruptStore)
    assert err.quarantined is not None  # moved aside without being opened for reading
    other = _memory_target(layout, "other")
    assert _finishes(lambda: FileStore(layout, lock_timeout=2.0).mutate(other, add("b")))


def test_item1_fifo_lock_file_is_refused_not_waited_on(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    target.path.parent.mkdir(parents=True)
    os.mkfifo(lock_path(target.path))
    err = _finishes(lambda: store.mutate(target, add("a")))
    assert isinstance(err, StorageError)
    assert "not a regular file" in str(err)
    assert not target.path.exists()


def test_item3_directory_at_store_path_reported_and_repaired(
    store: FileStore, target: StoreTarget[Fact], capsys: pytest.CaptureFixture[str]
) -> None:
    store.mutate(target, add("a"))
    store.mutate(target, add("b"))  # the backup now holds sequence 1 (a)
    target.path.unlink()
    target.path.mkdir()
    (target.path / "inside").write_text("kept")
    report = store.scan(store.layout.root)  # type: ignore[union-attr]
    assert [c.reason for c in report.corrupt] == ["not-a-file"]
    assert _run(["store", "check", str(target.path)]) == 1
    assert _run(["store", "check", "--repair", str(target.path)]) == 1  # sequence 2 is gone
    out = capsys.readouterr().out
    assert "restored:" in out
    assert "sequence 1" in out
    found = store.read(target)
    assert found is not None
    assert [f.id for f in found.entries] == ["a"]
    moved = [p for p in target.path.parent.iterdir() if p.is_dir()]
    assert [(p / "inside").read_text() for p in moved] == ["kept"]  # moved, never deleted


def test_issue24_symlinked_store_directory_is_checked_through_like_list_reads_it(
    layout: Layout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine reads and writes through a symlinked ``memory/stm`` (only state files are
    never followed), so ``store check`` follows it too, says so, and a corrupt store behind
    it fails the check as ``memory list`` fails (issue 24 low item: before, the warning said
    "never followed" while ``list`` read through it, and the check passed)."""
    elsewhere = tmp_path / "elsewhere"
    FileStore().mutate(StoreTarget(path=elsewhere / "p.json", entry_type=Fact), add("x"))
    (elsewhere / "bad.json").write_bytes(b"{")
    stm = layout.stm("p").parent
    stm.parent.mkdir(parents=True)
    stm.symlink_to(elsewhere, target_is_directory=True)
    through = FileStore(layout).read(StoreTarget(path=stm / "p.json", entry_type=Fact))
    assert through is not None  # the reader follows the directory link
    report = FileStore(layout).scan(layout.root)
    assert report.anomalies == []
    assert report.followed == [(stm, elsewhere.resolve())]
    assert [c.path for c in report.corrupt] == [stm / "bad.json"]
    assert report.ok == [stm / "p.json"]
    assert _run(["store", "check", str(layout.root)]) == 1
    out = capsys.readouterr().out
    assert "followed:" in out
    assert "reads and writes the stores through it" in out
    assert "never followed" not in out.split("only state files themselves are")[0]
    assert _run(["store", "check", "--repair", str(layout.root)]) == 1  # nothing valid of bad
    assert stm.is_symlink()  # the link itself is never moved
    assert not (elsewhere / "bad.json").exists()  # quarantined where the engine writes
    assert _run(["store", "check", str(layout.root)]) == 0


def test_a_symlink_loop_is_walked_once(layout: Layout, tmp_path: Path) -> None:
    stm = layout.stm("p").parent
    stm.mkdir(parents=True)
    FileStore().mutate(StoreTarget(path=stm / "p.json", entry_type=Fact), add("x"))
    (stm / "again").symlink_to(stm.parent, target_is_directory=True)
    report = FileStore(layout).scan(layout.root)
    assert report.ok == [stm / "p.json"]
    assert report.followed == []
    assert report.left_alone == [(stm / "again", "a symlink to a directory checked already")]
    assert report.anomalies == []


def test_item3_directory_backup_reported_and_moved_aside(
    store: FileStore, target: StoreTarget[Fact], capsys: pytest.CaptureFixture[str]
) -> None:
    store.mutate(target, add("a"))
    bak = backup_path(target.path)
    bak.mkdir()
    with pytest.raises(StorageError, match=r"failed at backup .*store check --repair"):
        store.mutate(target, add("b"))
    assert _run(["store", "check", str(target.path)]) == 1
    assert "not a regular file" in capsys.readouterr().out
    root = store.layout.root  # type: ignore[union-attr]
    assert [a.kind for a in store.scan(root).anomalies] == ["backup-not-a-file"]
    assert _run(["store", "check", "--repair", str(root)]) == 0
    assert "moved aside" in capsys.readouterr().out
    assert store.mutate(target, add("b")).sequence == 2
    assert _run(["store", "check", str(root)]) == 0


def test_item2_quarantined_store_is_never_read_as_empty(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    """The lagging-backup trap: after the quarantine the store is refused (not empty), two
    more writes do not rotate the backup, and a repair restores it."""
    for i in range(3):
        store.mutate(target, add(f"w{i}"))
    bak = backup_path(target.path)
    kept = bak.read_bytes()
    target.path.write_bytes(target.path.read_bytes()[:-9])  # truncated
    with pytest.raises(CorruptStore):
        store.mutate(target, add("w3"))
    for _ in range(2):
        with pytest.raises(StoreQuarantined, match="store check --repair"):
            store.mutate(target, add("w3"))
        with pytest.raises(StoreQuarantined):
            FileStore(store.layout).read(target)
    assert bak.read_bytes() == kept  # the previous version is still reachable
    report = store.recover(target)
    assert report.restored_from == bak
    assert [lost.sequence for lost in report.lost] == [3]  # the last write, by name
    found = store.read(target)
    assert found is not None
    assert [f.id for f in found.entries] == ["w0", "w1"]
    assert bak.read_bytes() == kept  # restoring never rotates the backup


def test_item3_directory_lock_file_reported_and_moved_aside(
    store: FileStore, target: StoreTarget[Fact], capsys: pytest.CaptureFixture[str]
) -> None:
    store.mutate(target, add("a"))
    lock = lock_path(target.path)
    lock.unlink()
    lock.mkdir()
    with pytest.raises(StorageError):
        store.mutate(target, add("b"))
    root = store.layout.root  # type: ignore[union-attr]
    assert [(a.kind, a.path) for a in store.scan(root).anomalies] == [("lock-not-a-file", lock)]
    assert _run(["store", "check", str(root)]) == 1
    assert _run(["store", "check", "--repair", str(root)]) == 0
    assert "moved aside" in capsys.readouterr().out
    assert store.mutate(target, add("b")).sequence == 2
