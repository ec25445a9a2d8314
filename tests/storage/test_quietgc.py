"""Issue 15, item 9: GC discipline around large loads — full collections held off, the
collector's thresholds restored however the block ends, overlapping blocks across threads."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from persona_mind._quietgc import freeze_survivors, no_full_collections
from persona_mind.storage import Snapshot, _codec
from persona_mind.storage._codec import decode_snapshot, encode_snapshot
from tests.storage.conftest import Fact


@pytest.fixture(autouse=True)
def _thresholds() -> Iterator[tuple[int, int, int]]:
    """Odd thresholds, so a restore to the defaults would not pass by accident."""
    saved = gc.get_threshold()
    gc.set_threshold(613, 7, 9)
    gc.unfreeze()  # count only what this test freezes
    try:
        yield (613, 7, 9)
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()  # nothing this test froze stays out of the collector's reach


def test_the_block_holds_off_full_collections_only() -> None:
    with no_full_collections():
        young0, young1, full = gc.get_threshold()
        assert (young0, young1) == (613, 7)
        assert full > 1_000_000
        assert gc.isenabled()
    assert gc.get_threshold() == (613, 7, 9)


def test_thresholds_are_restored_after_an_exception() -> None:
    with pytest.raises(ZeroDivisionError), no_full_collections():
        _ = 1 / 0
    assert gc.get_threshold() == (613, 7, 9)


def test_overlapping_blocks_restore_when_the_last_one_leaves() -> None:
    """Thread A enters, B enters, A leaves (still held off), B leaves (restored)."""
    a_in, b_in, a_out, b_go = (threading.Event() for _ in range(4))
    seen: dict[str, tuple[int, int, int]] = {}

    def first() -> None:
        with no_full_collections():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def second() -> None:
        a_in.wait(5)
        with no_full_collections():
            b_in.set()
            a_out.wait(5)
            seen["after A left"] = gc.get_threshold()
            b_go.wait(5)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    a_out.wait(5)
    b_go.set()
    for t in threads:
        t.join(5)
    assert seen["after A left"][2] > 1_000_000
    assert gc.get_threshold() == (613, 7, 9)


def test_freeze_survivors_takes_what_is_alive_out_of_later_collections() -> None:
    keep = [[i] for i in range(1000)]
    freeze_survivors()
    assert gc.get_freeze_count() >= len(keep)


def test_a_large_decode_freezes_its_snapshot_and_restores_thresholds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_codec, "SLICE_MIN_BYTES", 0)
    monkeypatch.setattr(_codec, "SLICE_BYTES", 64)
    snap = Snapshot(
        version=1,
        sequence=1,
        updatedAt="2026-12-01T00:00:00.000Z",
        entries=tuple(Fact(id=f"f{i}", text="x" * 20) for i in range(50)),
    )
    data = encode_snapshot(snap)
    monkeypatch.setattr(_codec, "FREEZE_MIN_BYTES", len(data) + 1)
    assert decode_snapshot(Path("s.json"), data, Fact, 1) == snap
    assert gc.get_freeze_count() == 0  # below the freeze size: nothing frozen
    monkeypatch.setattr(_codec, "FREEZE_MIN_BYTES", len(data))
    got = decode_snapshot(Path("s.json"), data, Fact, 1)
    assert got == snap
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (613, 7, 9)


def test_a_corrupt_large_decode_restores_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    from persona_mind.storage import CorruptStore  # noqa: PLC0415

    monkeypatch.setattr(_codec, "SLICE_MIN_BYTES", 0)
    monkeypatch.setattr(_codec, "SLICE_BYTES", 16)
    snap = Snapshot(
        version=1,
        sequence=1,
        updatedAt="2026-12-01T00:00:00.000Z",
        entries=tuple(Fact(id=f"f{i}") for i in range(20)),
    )
    data = encode_snapshot(snap)
    with pytest.raises(CorruptStore):
        decode_snapshot(Path("s.json"), data[:-30] + b"]}", Fact, 1)
    assert gc.get_threshold() == (613, 7, 9)
    assert gc.get_freeze_count() == 0
