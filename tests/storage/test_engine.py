"""FileStore: the write protocol, strict reads, CAS, generations, backup (M-STORE-*)."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from persona_mind.errors import StaleGeneration, StorageError
from persona_mind.storage import (
    ABSENT_FINGERPRINT,
    CasConflict,
    CorruptStore,
    FileIdentity,
    FileStore,
    Layout,
    OsFileSystem,
    ReadResult,
    StoreQuarantined,
    StoreTarget,
    backup_path,
    fingerprint,
    fingerprint_of,
)
from tests.storage.conftest import Fact


def add(*ids: str):  # type: ignore[no-untyped-def]
    def mutation(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return (*entries, *(Fact(id=i) for i in ids))

    return mutation


def test_m_store_6_snapshot_carries_version_sequence_updated_at_entries(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    assert store.read(target) is None
    snap = store.mutate(target, add("a"))
    assert (snap.version, snap.sequence, snap.entries) == (1, 1, (Fact(id="a"),))
    assert snap.updatedAt == "2023-11-14T22:13:20.000Z"
    raw = target.path.read_bytes()
    written = msgspec.json.decode(msgspec.json.encode(Fact(id="a")))
    assert msgspec.json.decode(raw)["entries"] == [written]
    snap2 = store.mutate(target, add("b"))
    assert snap2.sequence == 2
    assert store.read(target) == snap2


def test_m_store_7_no_temp_left_and_backup_is_previous_version(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    store.mutate(target, add("a"))
    first = target.path.read_bytes()
    store.mutate(target, add("b"))
    assert backup_path(target.path).read_bytes() == first
    assert not [n for n in os.listdir(target.path.parent) if n.endswith(".tmp")]


def test_m_store_21_cas_refuses_stale_fingerprint_and_writes_nothing(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    stored = store.mutate_stored(target, add("a"))
    assert stored.fingerprint == fingerprint(target.path.read_bytes())
    assert stored.fingerprint == fingerprint_of(stored.snapshot)
    store.mutate(target, add("b"), expect_fingerprint=stored.fingerprint)
    before = target.path.read_bytes()
    with pytest.raises(CasConflict):
        store.mutate(target, add("c"), expect_fingerprint=stored.fingerprint)
    assert target.path.read_bytes() == before


def test_m_store_21_cas_on_absent_file(store: FileStore, target: StoreTarget[Fact]) -> None:
    store.mutate(target, add("a"), expect_fingerprint=ABSENT_FINGERPRINT)
    with pytest.raises(CasConflict):
        store.mutate(target, add("b"), expect_fingerprint=ABSENT_FINGERPRINT)


def test_m_store_21_same_sequence_external_replacement_invalidates(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    stored = store.mutate_stored(target, add("a"))
    # same sequence, same entries, different formatting: the raw bytes differ
    target.path.write_bytes(msgspec.json.format(target.path.read_bytes(), indent=2))
    with pytest.raises(CasConflict):
        store.mutate(target, add("b"), expect_fingerprint=stored.fingerprint)


def test_m_optimize_history_18_stale_generation_refused_inside_step(
    layout: Layout, target: StoreTarget[Fact]
) -> None:
    current = [3]
    store = FileStore(layout, current_generation=lambda: current[0])
    store.mutate(target, add("a"), generation=3)
    with pytest.raises(StaleGeneration):
        store.mutate(target, add("b"), generation=2)

    def bump_then_add(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        current[0] = 4  # the session changes while the mutation runs
        return (*entries, Fact(id="c"))

    with pytest.raises(StaleGeneration):
        store.mutate(target, bump_then_add, generation=3)
    snap = store.read(target)
    assert snap is not None
    assert [f.id for f in snap.entries] == ["a"]


def test_raising_mutation_writes_nothing(store: FileStore, target: StoreTarget[Fact]) -> None:
    store.mutate(target, add("a"))
    before = target.path.read_bytes()

    def boom(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        store.mutate(target, boom)
    assert target.path.read_bytes() == before


def test_wrong_entry_type_is_refused(store: FileStore, target: StoreTarget[Fact]) -> None:
    with pytest.raises(TypeError):
        store.mutate(target, lambda e: ("not a fact",))  # type: ignore[arg-type,return-value]
    assert store.read(target) is None


def test_noop_mutation_does_not_rewrite(store: FileStore, target: StoreTarget[Fact]) -> None:
    store.mutate(target, add("a"))
    before = os.stat(target.path).st_ino
    snap = store.mutate(target, lambda e: e)
    assert snap.sequence == 1
    assert os.stat(target.path).st_ino == before


def test_m_store_11_corrupt_read_raises_and_never_writes(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    target.path.parent.mkdir(parents=True)
    target.path.write_bytes(b"")
    listing = sorted(os.listdir(target.path.parent))
    with pytest.raises(CorruptStore) as info:
        store.read(target)
    assert info.value.reason == "empty"
    assert info.value.quarantined is None
    assert sorted(os.listdir(target.path.parent)) == listing  # M-STORE-20


def test_m_store_11_mutation_quarantines_then_refuses(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    store.mutate(target, add("a"))
    store.mutate(target, add("b"))
    target.path.write_bytes(b'{"version":1,')
    with pytest.raises(CorruptStore) as info:
        store.mutate(target, add("b"))
    moved = info.value.quarantined
    assert moved is not None
    assert moved.read_bytes() == b'{"version":1,'
    assert Path(str(moved) + ".diagnostic.json").exists()
    assert info.value.backup == backup_path(target.path)
    assert not target.path.exists()  # never silently recreated as empty by the failed call


def test_oversize_write_refused(layout: Layout, target: StoreTarget[Fact]) -> None:
    store = FileStore(layout, max_bytes=600)
    store.mutate(target, add("a"))
    with pytest.raises(StorageError, match="cap"):
        store.mutate(target, add(*[str(i) for i in range(50)]))


def test_f7_symlinked_state_file_refused_and_target_untouched(
    store: FileStore, target: StoreTarget[Fact], tmp_path: Path
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_bytes(b"precious")
    target.path.parent.mkdir(parents=True)
    target.path.symlink_to(outside)
    with pytest.raises(CorruptStore) as info:
        store.read(target)
    assert info.value.reason == "not-a-file"
    with pytest.raises(CorruptStore) as info:
        store.mutate(target, add("a"))
    assert info.value.quarantined is not None
    assert info.value.quarantined.is_symlink()  # the link itself moved aside
    assert outside.read_bytes() == b"precious"
    with pytest.raises(StoreQuarantined):  # unresolved until a repair (issue 15 item 2)
        store.mutate(target, add("a"))
    store.recover(target)
    assert store.mutate(target, add("a")).sequence == 1
    assert outside.read_bytes() == b"precious"


def test_cache_never_crosses_entry_types(store: FileStore, target: StoreTarget[Fact]) -> None:
    store.mutate(target, add("a"))
    raw = store.read(StoreTarget(path=target.path, entry_type=msgspec.Raw))
    assert raw is not None
    assert isinstance(raw.entries[0], msgspec.Raw)
    typed = store.read(target)
    assert typed is not None
    assert isinstance(typed.entries[0], Fact)


class _ReadCounter(OsFileSystem):
    """Counts the reads that returned bytes (an unchanged identity returns none)."""

    def __init__(self) -> None:
        self.byte_reads = 0

    def read_capped(
        self, path: Path, cap: int, known: FileIdentity | None = None
    ) -> ReadResult | None:
        result = super().read_capped(path, cap, known)
        if result is not None and result.data is not None:
            self.byte_reads += 1
        return result


def test_issue10_own_writes_are_not_reread(layout: Layout, target: StoreTarget[Fact]) -> None:
    """The Store owns its files: after its own write, reads and the next mutation use the
    decode it already has while the file's identity is unchanged."""
    fs = _ReadCounter()
    store = FileStore(layout, fs=fs)
    store.mutate(target, add("a"))
    store.mutate(target, add("b"))
    assert store.read(target) is not None
    assert fs.byte_reads == 0


@pytest.mark.parametrize("how", ["other-process-write", "in-place-same-size"])
def test_issue10_identity_cache_always_sees_another_writer(
    layout: Layout, target: StoreTarget[Fact], how: str
) -> None:
    """A write by anyone else changes the identity (a new inode, or a new ctime for an
    in-place edit), so the cached decode is never served for it."""
    store = FileStore(layout)
    store.mutate(target, add("a"))
    assert store.read(target) is not None
    if how == "other-process-write":
        other = FileStore(layout)
        other.mutate(target, lambda e: (Fact(id="z"),))  # same size, new inode
    else:
        data = target.path.read_bytes().replace(b'"a"', b'"z"')
        before = target.path.stat().st_mtime_ns
        with open(target.path, "r+b") as fh:  # same size, same inode
            fh.write(data)
        # kernels before 6.13 stamp files from a coarse (jiffy) clock: make the edit's
        # mtime distinct the way any edit a tick later is (docs/storage.md "Performance")
        os.utime(target.path, ns=(before, before + 1_000_000))
    found = store.read(target)
    assert found is not None
    assert [f.id for f in found.entries] == ["z"]


def test_issue10_cached_write_fingerprint_is_the_file_hash(
    store: FileStore, target: StoreTarget[Fact]
) -> None:
    """A written store is cached as its per-entry pieces only; the fingerprint a CAS uses is
    still the SHA-256 of the exact bytes on disk."""
    store.mutate(target, add(*[f"f{i}" for i in range(50)]))
    written = store.mutate_stored(target, lambda e: (*e[1:], Fact(id="new")))
    assert written.fingerprint == fingerprint(target.path.read_bytes())
    again = store.read_stored(target)
    assert again is written  # served from the identity cache
    store.mutate(target, add("cas"), expect_fingerprint=fingerprint(target.path.read_bytes()))
