"""Issue 15, item 9: an index build holds off full collections, restores the collector's
thresholds however it ends, and freezes a large index out of later collections."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from persona_mind.mind import Fact
from persona_mind.mind.recall import _retrieval
from persona_mind.mind.recall._retrieval import FactIndex, TokenCache


@pytest.fixture(autouse=True)
def _thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    gc.set_threshold(613, 7, 9)
    gc.unfreeze()  # count only what this test freezes
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()


def _facts(n: int) -> list[Fact]:
    return [
        Fact(id=f"m_{i}", kind="note", text=f"parser cache {i}", recordedAt=0.0, lastSeenAt=i)
        for i in range(n)
    ]


class _Watching(TokenCache):
    """A token cache that records the collector's thresholds while the build reads it."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__()
        self.seen: list[tuple[int, int, int]] = []
        self.fail_after = fail_after

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        self.seen.append(gc.get_threshold())
        if self.fail_after is not None and len(self.seen) > self.fail_after:
            raise RuntimeError("a tokeniser bug")
        return super().get(key, default)


def test_a_build_holds_off_full_collections_and_restores_them() -> None:
    cache = _Watching()
    index = FactIndex.build(_facts(50), None, cache)
    assert len(index) == 50
    assert cache.seen
    assert all(t[:2] == (613, 7) and t[2] > 1_000_000 for t in cache.seen)
    assert gc.get_threshold() == (613, 7, 9)


def test_thresholds_are_restored_when_a_build_raises() -> None:
    with pytest.raises(RuntimeError, match="tokeniser"):
        FactIndex.build(_facts(50), None, _Watching(fail_after=10))
    assert gc.get_threshold() == (613, 7, 9)
    assert gc.get_freeze_count() == 0


def test_only_a_large_build_freezes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_retrieval, "FREEZE_MIN_DOCS", 40)
    FactIndex.build(_facts(39))
    assert gc.get_freeze_count() == 0
    big = FactIndex.build(_facts(40))
    assert gc.get_freeze_count() > 0
    assert [r.fact.id for r in big.rank("parser 7", limit=1)] == ["m_7"]
