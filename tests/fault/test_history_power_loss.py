"""Optimizer receipts under simulated power loss (M-OPTIMIZE-HISTORY-2, -8, -10, -19, -20).

The settle of an applied receipt is a marker file written *without* fsync (issue 11: apply
costs one durable receipt write plus the store write). A power loss at any seam call of
two consecutive applies, in every crash mode, must leave: the store old-or-new; a receipt
for every store write that survived; no receipt presumed — ``applied`` only with the store
showing its after-state or a later write, never ``applied`` for a store left at its
before-state; and ``reconcile`` settles what the store proves. A torn, empty, zeroed or
foreign marker is no proof (the content check is what makes an unsynced marker safe).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from persona_mind.storage import (
    CorruptStore,
    FileStore,
    Layout,
    OptimizeHistory,
    OsFileSystem,
    StoreTarget,
)
from persona_mind.storage._history import history_target, settle_marker
from persona_mind.testing._faultfs import CrashMode, FaultyFileSystem, PowerLoss
from tests.storage.conftest import Fact

WALL = 1_700_000_000.0


class _DyingFs(FaultyFileSystem):
    """Power loss also ends the process: :meth:`die` closes the lock descriptors it held
    (a lock dies with its process), so the checks after the crash can take the locks."""

    def __init__(self, *, seed: int) -> None:
        super().__init__(seed=seed)
        self.lock_fds: set[int] = set()

    def open_lock(self, path: Path) -> int:
        fd = super().open_lock(path)
        self.lock_fds.add(fd)
        return fd

    def close(self, fd: int) -> None:
        self.lock_fds.discard(fd)
        super().close(fd)

    def die(self) -> None:
        for fd in sorted(self.lock_fds):
            os.close(fd)
        self.lock_fds.clear()


def _merge(tag: str):  # type: ignore[no-untyped-def]
    def mutation(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return (*entries[1:], Fact(id=f"m-{tag}", text="merged " + "x" * 300))

    return mutation


def _run(root: Path, crash_at: int | None, mode: CrashMode, seed: int) -> list[str]:
    layout = Layout(root / "agent")
    target = StoreTarget(path=layout.stm("p"), entry_type=Fact, lock="memory")
    plain = FileStore(layout, wall=lambda: WALL)
    plain.mutate(target, lambda e: tuple(Fact(id=f"f{i}", text="y" * 200) for i in range(8)))
    fs = _DyingFs(seed=seed)
    fs.track(target.path.parent)
    history = OptimizeHistory(FileStore(layout, fs=fs, wall=lambda: WALL, lock_timeout=2.0))
    if crash_at is not None:
        fs.crash_at(crash_at)
    fingerprints = [plain.fingerprint(target)]
    try:
        for tag in ("one", "two"):
            result = history.apply(target, _merge(tag), before=0, after=0)
            fingerprints.append(result.stored.fingerprint)
    except PowerLoss:
        pass
    fs.crash(mode)
    fs.die()
    fresh = FileStore(layout, fs=OsFileSystem(), wall=lambda: WALL)
    try:
        store_fp = fresh.fingerprint(target)
        receipts = OptimizeHistory(fresh).receipts(target)
    except CorruptStore as exc:
        return [f"unreadable after power loss: {exc.reason}"]
    problems: list[str] = []
    # the store: an acknowledged version or the one being written (old-or-new)
    applied = [r for r in receipts if r.outcome == "applied"]
    after_fps = {r.afterFingerprint for r in receipts}
    if store_fp not in (*fingerprints, *after_fps):
        problems.append("store is neither an acknowledged version nor a receipt's after")
    if store_fp != fingerprints[0] and store_fp not in after_fps:
        problems.append("the store changed without a receipt (lost prepared receipt)")
    for r in applied:  # never presumed: applied means the store reached its after-state
        reached = r.afterFingerprint == store_fp or any(
            o.beforeFingerprint == r.afterFingerprint for o in receipts
        )
        if not reached:
            problems.append(f"receipt {r.id} claims applied, the store never showed it")
    report = OptimizeHistory(fresh).reconcile(target)
    for r in OptimizeHistory(fresh).receipts(target):
        if r.state == "prepared" and r.afterFingerprint in (store_fp,):
            problems.append(f"reconcile left {r.id} prepared although the store proves it")
    assert isinstance(report, list)
    return problems


@pytest.mark.parametrize("mode", ["drop", "garble", "random"])
def test_power_loss_at_every_seam_call_of_two_applies(tmp_path: Path, mode: CrashMode) -> None:
    """Old-or-new store, a receipt for every surviving write, nothing presumed."""
    for crash_at in [*range(1, 60), None]:
        problems = _run(tmp_path / f"{mode}-{crash_at}", crash_at, mode, seed=crash_at or 0)
        assert problems == [], f"crash_at {crash_at} mode {mode}: {problems}"


def test_a_lost_settle_marker_leaves_the_receipt_prepared_and_reconcile_proves_it(
    tmp_path: Path,
) -> None:
    """M-OPTIMIZE-HISTORY-8/-10: the settle is not durable by itself; losing it never
    presumes anything, and the next apply settles it on fingerprint proof."""
    layout = Layout(tmp_path / "agent")
    target = StoreTarget(path=layout.stm("p"), entry_type=Fact, lock="memory")
    store = FileStore(layout, wall=lambda: WALL)
    store.mutate(target, lambda e: (Fact(id="a"), Fact(id="b")))
    history = OptimizeHistory(store)
    first = history.apply(target, _merge("one"), before=0, after=0)
    assert first.receipt.state == "settled"
    marker = settle_marker(target, first.receipt.id)
    assert marker.exists()
    marker.unlink()  # what an OS crash before writeback does
    (seen,) = history.receipts(target)
    assert (seen.state, seen.outcome) == ("prepared", "pending")
    second = history.apply(target, _merge("two"), before=0, after=0)  # proves, then proceeds
    by_id = {r.id: r for r in history.receipts(target)}
    assert (by_id[first.receipt.id].state, by_id[first.receipt.id].outcome) == (
        "settled",
        "applied",
    )
    assert by_id[second.receipt.id].state == "settled"
    # the proof was recorded durably by the second apply's receipt write
    on_disk = {r.id: r for r in store.read(history_target(target)).entries}  # type: ignore[union-attr]
    assert on_disk[first.receipt.id].state == "settled"


def test_a_torn_or_foreign_marker_is_no_proof(tmp_path: Path) -> None:
    """A marker counts only when it decodes strictly and names the receipt's after-state."""
    layout = Layout(tmp_path / "agent")
    target = StoreTarget(path=layout.stm("p"), entry_type=Fact, lock="memory")
    store = FileStore(layout, wall=lambda: WALL)
    store.mutate(target, lambda e: (Fact(id="a"), Fact(id="b")))
    history = OptimizeHistory(store)
    done = history.apply(target, _merge("one"), before=0, after=0)
    marker = settle_marker(target, done.receipt.id)
    good = marker.read_bytes()
    foreign = good.replace(done.receipt.afterFingerprint.encode(), b"0" * 64)
    assert foreign != good
    for bad in (b"", good[: len(good) // 2], b"\x00" * len(good), foreign):
        marker.write_bytes(bad)
        (seen,) = history.receipts(target)
        assert seen.state == "prepared", bad
    store.mutate(target, lambda e: (*e, Fact(id="user-edit")))  # the proof is gone too
    (line,) = history.reconcile(target)
    assert "manual recovery required" in line
