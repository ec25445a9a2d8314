"""MemoryStore keeps the StorePort contract a unit test can observe."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.errors import StaleGeneration
from persona_mind.storage import CasConflict, CorruptStore, FileStore, StorePort, StoreTarget
from persona_mind.testing._memstore import MemoryStore
from tests.storage.conftest import Fact


@pytest.mark.asyncio
async def test_memstore_matches_filestore_bytes_and_rules(tmp_path: Path) -> None:
    target = StoreTarget(path=tmp_path / "s.json", entry_type=Fact)
    mem = MemoryStore(generation=2, wall=lambda: 1_700_000_000.0)
    port: StorePort = mem
    snap = await port.mutate(target, lambda e: (*e, Fact(id="a")), generation=2)
    disk = FileStore(wall=lambda: 1_700_000_000.0).mutate_stored(target, lambda e: (Fact(id="a"),))
    assert mem.fingerprint(target) == disk.fingerprint  # same canonical bytes
    stored = await mem.read_stored(target)
    assert stored is not None
    assert stored.snapshot == snap
    with pytest.raises(CasConflict):
        await mem.mutate(target, lambda e: e, expect_fingerprint="0" * 64)
    with pytest.raises(StaleGeneration):
        await mem.mutate(target, lambda e: (*e, Fact(id="b")), generation=1)
    mem.put_raw(target.path, b"{")
    with pytest.raises(CorruptStore):
        await mem.read(target)
    mem.fail_next(OSError("boom"))
    with pytest.raises(OSError, match="boom"):
        await mem.read(target)
