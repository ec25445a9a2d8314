"""Durable optimizer receipts (M-OPTIMIZE-HISTORY-1..11, -18..20)."""

from __future__ import annotations

import os

import pytest

from persona_mind.errors import StaleGeneration
from persona_mind.storage import (
    CasConflict,
    FileStore,
    HistoryBlocked,
    HistoryFull,
    Layout,
    Mutation,
    OptimizeHistory,
    OutcomeUncertain,
    StoreTarget,
    WriteFailed,
    backup_path,
    history_target,
)
from persona_mind.testing._faultfs import FaultyFileSystem
from tests.storage.conftest import Fact


def _setup(layout: Layout) -> tuple[StoreTarget[Fact], FileStore]:
    target = StoreTarget(path=layout.stm("p"), entry_type=Fact, lock="memory")
    store = FileStore(layout, lock_timeout=2.0)
    store.mutate(target, lambda e: (Fact(id="a"), Fact(id="b")))
    return target, store


def _append(fact_id: str) -> Mutation[Fact]:
    def mutation(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return (*entries, Fact(id=fact_id))

    return mutation


def _merge(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
    return (Fact(id="ab", text=f"merged {len(entries)}"),)


def test_m_optimize_history_1_5_receipt_settled_and_backed_up(layout: Layout) -> None:
    target, store = _setup(layout)
    history = OptimizeHistory(store)
    before = store.fingerprint(target)
    result = history.apply(target, _merge, before=["a", "b"], after=["ab"], owner="s1")
    assert result.warnings == ()
    assert (result.receipt.state, result.receipt.outcome) == ("settled", "applied")
    assert result.receipt.beforeFingerprint == before
    assert result.receipt.afterFingerprint == store.fingerprint(target)
    assert Layout.history(target.path).name == "p.optimize-history.json"
    receipts = history.receipts(target)
    assert [r.id for r in receipts] == [result.receipt.id]
    assert bytes(receipts[0].before) == b'["a","b"]'
    history.apply(target, lambda e: (*e, Fact(id="c")), before=[], after=["c"])
    assert backup_path(history_target(target).path).exists()  # M-OPTIMIZE-HISTORY-5
    # M-OPTIMIZE-HISTORY-11: a new engine (a recreated optimizer) sees the same history
    assert len(OptimizeHistory(FileStore(layout)).receipts(target)) == 2
    assert [r.owner for r in history.receipts(target, owner="s1")] == ["s1"]


@pytest.mark.parametrize("applies", [31, 32, 33])
def test_m_optimize_history_3_6_at_most_32_settled_evicted_oldest(
    layout: Layout, applies: int
) -> None:
    target, store = _setup(layout)
    history = OptimizeHistory(store)
    ids = [
        history.apply(target, _append(str(i)), before=i, after=i).receipt.id for i in range(applies)
    ]
    kept = [r.id for r in history.receipts(target)]
    assert kept == ids[-32:]
    assert len(kept) == min(applies, 32)


def test_m_optimize_history_4_byte_cap_and_refusal(layout: Layout) -> None:
    target, store = _setup(layout)
    history = OptimizeHistory(store, max_bytes=64 * 1024)
    big = "x" * 20_000
    for i in range(6):
        history.apply(target, _append(str(i)), before=big, after=i)
    size = os.path.getsize(history_target(target).path)
    assert size <= 64 * 1024
    assert len(history.receipts(target)) < 6  # settled ones were evicted to fit
    before_bytes = target.path.read_bytes()
    with pytest.raises(HistoryFull):
        history.apply(target, lambda e: (*e, Fact(id="z")), before="y" * 70_000, after=0)
    assert target.path.read_bytes() == before_bytes  # refused: the store was not replaced


def test_m_optimize_history_9_pre_write_refusals_record_nothing(layout: Layout) -> None:
    target, store = _setup(layout)
    current = [3]
    store.current_generation = lambda: current[0]
    history = OptimizeHistory(store)
    with pytest.raises(CasConflict):
        history.apply(target, _merge, before=0, after=0, expect_fingerprint="0" * 64)
    with pytest.raises(StaleGeneration):  # M-OPTIMIZE-HISTORY-18
        history.apply(target, _merge, before=0, after=0, generation=2)
    assert history.receipts(target) == ()


def _faulty(layout: Layout) -> tuple[StoreTarget[Fact], FileStore, FaultyFileSystem]:
    target, _ = _setup(layout)
    fs = FaultyFileSystem()
    return target, FileStore(layout, fs=fs, lock_timeout=2.0), fs


def test_failure_before_rename_settles_aborted(layout: Layout) -> None:
    target, store, fs = _faulty(layout)
    before = target.path.read_bytes()
    fs.fail_at(2, ops=["fsync"])  # 1: the prepared receipt, 2: the store's temp
    with pytest.raises(WriteFailed):
        OptimizeHistory(store).apply(target, _merge, before=0, after=0)
    assert target.path.read_bytes() == before
    (receipt,) = OptimizeHistory(store).receipts(target)
    assert (receipt.state, receipt.outcome) == ("settled", "aborted")


def test_m_optimize_history_8_19_after_rename_stays_prepared_uncertain(layout: Layout) -> None:
    target, store, fs = _faulty(layout)
    history = OptimizeHistory(store)
    fs.fail_at(2, ops=["fsync_dir"])  # the store's directory fsync, after its rename
    with pytest.raises(OutcomeUncertain):
        history.apply(target, _merge, before=0, after=0)
    fs.clear()
    (receipt,) = history.receipts(target)
    assert (receipt.state, receipt.outcome) == ("prepared", "uncertain")
    with pytest.raises(HistoryBlocked):  # M-OPTIMIZE-HISTORY-7: unresolved prepared receipt
        history.apply(target, lambda e: (*e, Fact(id="n")), before=0, after=0)
    # reconcile settles only on proof: the store holds exactly the receipt's "after" bytes
    assert history.reconcile(target) == [f"{receipt.id}: applied"]
    history.apply(target, lambda e: (*e, Fact(id="n")), before=0, after=0)


def test_m_optimize_history_10_finalize_failure_is_success_with_warning(layout: Layout) -> None:
    target, store, fs = _faulty(layout)
    history = OptimizeHistory(store)
    fs.fail_at(3, ops=["open_new"])  # receipt temp, store temp, then the settle marker fails
    result = history.apply(target, _merge, before=0, after=0)
    fs.clear()
    assert result.warnings
    assert "could not be finalized" in result.warnings[0]
    assert FileStore(layout).read(target).entries == result.stored.snapshot.entries  # type: ignore[union-attr]
    assert result.stored.snapshot.entries[0].text == "merged 2"
    (receipt,) = history.receipts(target)
    assert receipt.state == "prepared"


def test_m_optimize_history_20_ambiguous_needs_manual_resolution(layout: Layout) -> None:
    target, store, fs = _faulty(layout)
    history = OptimizeHistory(store)
    fs.fail_at(2, ops=["fsync_dir"])
    with pytest.raises(OutcomeUncertain):
        history.apply(target, _merge, before=0, after=0)
    fs.clear()
    store.mutate(target, lambda e: (*e, Fact(id="user-edit")))  # neither before nor after
    (line,) = history.reconcile(target)
    assert "manual recovery required" in line
    (receipt,) = history.receipts(target)
    assert receipt.state == "prepared"  # never presumed applied or discarded
    resolved = history.resolve(target, receipt.id, "discarded")
    assert (resolved.state, resolved.outcome) == ("settled", "discarded")
    history.apply(target, lambda e: (*e, Fact(id="n")), before=0, after=0)


def test_issue24_m2_an_uncertain_receipt_the_store_disproves_is_settled_aborted(
    layout: Layout,
) -> None:
    """The rename was lost (the store holds its before bytes again): the next apply settles
    the uncertain receipt ``aborted`` on that proof, notes why, and goes on; one the store
    shows applied stays blocking (its durability is what was uncertain)."""
    target, store, fs = _faulty(layout)
    history = OptimizeHistory(store)
    before_bytes = target.path.read_bytes()
    fs.fail_at(2, ops=["fsync_dir"])
    with pytest.raises(OutcomeUncertain):
        history.apply(target, _merge, before=0, after=0)
    fs.clear()
    target.path.write_bytes(before_bytes)  # as after a power loss that dropped the rename
    done = history.apply(target, _append("n"), before=0, after=0)
    first, second = history.receipts(target)
    assert (first.state, first.outcome) == ("settled", "aborted")
    assert "before-fingerprint" in first.note
    assert second.id == done.receipt.id
    assert (second.state, second.outcome) == ("settled", "applied")
