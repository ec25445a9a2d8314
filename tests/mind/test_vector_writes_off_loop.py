"""The vector cache's durable writes stay off the event loop (issue 24 item 6).

A small bind runs in place on the loop (the turn after a remember stays hybrid), but a store's
first bind writes its new cache file with an fsync: that write goes to the edge's worker.  A
rewrite of a large cache serialises its records in slices, never the whole file in one call.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from persona_mind.embedding._vectors import VectorFile, vectors_path
from persona_mind.mind import FactIndex
from tests.mind.test_hybrid import FACTS, BagEncoder, ready_edge, store_file


@pytest.mark.asyncio
async def test_a_bind_in_place_hands_the_new_cache_files_fsync_to_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_file(tmp_path)
    enc = BagEncoder()
    edge = ready_edge(enc)
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(threading.current_thread().name)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    index = FactIndex.build(FACTS)
    assert edge.bind(index, store, wait=False)  # small: bound in place, hybrid at once
    assert enc.calls == [len(FACTS)]
    for write in edge.writes():
        await asyncio.wrap_future(write)
    assert synced
    assert threading.current_thread().name not in synced
    assert all(name.startswith("persona-mind-embedding") for name in synced)
    again = VectorFile(vectors_path(store, enc.model_id), enc.model_id, enc.dim)
    again.load()
    assert len(again.vectors) == len(FACTS)
    assert not again.rewrite
    assert not edge.writes()


def test_a_rewrite_serialises_its_records_in_slices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dim, rows = 8, 1000
    vf = VectorFile(tmp_path / "facts.json.m.vec", "m", dim)
    rng = np.random.default_rng(7)
    vf.vectors = {
        i.to_bytes(16, "big"): rng.random(dim, dtype=np.float32) for i in range(rows, 0, -1)
    }
    vf.rewrite = True
    sizes: list[int] = []
    records = vf._records

    def counted(items: object) -> bytes:
        got = list(items)  # type: ignore[call-overload]
        sizes.append(len(got))
        return records(got)

    monkeypatch.setattr(vf, "_records", counted)
    vf.add({})
    assert sum(sizes) == rows
    assert max(sizes) <= 256
    back = VectorFile(vf.path, "m", dim)
    back.load()
    assert list(back.vectors) == list(vf.vectors)  # the cache's own order, whole
    for key, vec in vf.vectors.items():
        assert np.array_equal(back.vectors[key], vec)
