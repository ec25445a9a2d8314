"""Store reads answered from memory while inotify vouches for them (issue 10, M-STORE).

The Store actor skips its IO thread for a read whose file (and every directory up to the
store root) raised no inotify event since it last read it. These tests pin the property
that makes this safe: *every* way the bytes at a store's path can change — this Store's own
write, another engine's (another process's) write, an in-place edit, a store appearing, a
directory on the way being swapped — is seen by the very next read. And the saving is real:
an unchanged store is read without calling the engine.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import msgspec
import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.store import spawn_store
from persona_mind.clock import MonotonicClock
from persona_mind.storage import FileStore, Layout, OsFileSystem, StoreTarget
from tests.storage.conftest import Fact

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inotify is Linux-only; elsewhere every read hops"
)


@pytest.fixture
def engine_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every path the storage engine was asked to read (on the Store's IO thread)."""
    seen: list[Path] = []
    original = FileStore.read

    def counting(self: FileStore, target: StoreTarget[Fact]) -> object:
        seen.append(target.path)
        return original(self, target)

    monkeypatch.setattr(FileStore, "read", counting)
    return seen


def _target(root: Path, name: str = "demo") -> StoreTarget[Fact]:
    return StoreTarget(path=Layout(root).stm(name), entry_type=Fact, lock="memory")


def _ids(snap: object) -> list[str]:
    assert snap is not None
    return [f.id for f in snap.entries]  # type: ignore[attr-defined]


def _put(ids: list[str]):  # type: ignore[no-untyped-def]
    def mutation(_old: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return tuple(Fact(id=i) for i in ids)

    return mutation


def _rewrite_in_place(path: Path, snapshot: object) -> None:
    with path.open("r+b") as handle:  # same inode, new bytes
        handle.truncate(0)
        handle.write(msgspec.json.encode(snapshot))


@pytest.mark.asyncio
async def test_unchanged_store_is_read_without_the_engine(
    tmp_path: Path, engine_reads: list[Path]
) -> None:
    """The saving: the second read of an unchanged store never reaches the IO thread."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path)
        target = _target(tmp_path)
        await client.mutate(target, _put(["a"]))
        first = await client.read(target)  # after our own write: read (and watched)
        calls = len(engine_reads)
        again = await client.read(target)
        many = await client.read_many([target, _target(tmp_path, "none-yet")])
        assert len(engine_reads) == calls + 1  # only the never-read second target
        more = await client.read_many([target, _target(tmp_path, "none-yet")])
        assert len(engine_reads) == calls + 1
        assert again is first
        assert many[0] is first
        assert more == (first, None)


@pytest.mark.asyncio
async def test_own_write_is_seen_by_the_next_read(tmp_path: Path) -> None:
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path)
        target = _target(tmp_path)
        await client.mutate(target, _put(["a"]))
        assert _ids(await client.read(target)) == ["a"]
        await client.mutate(target, _put(["a", "b"]))
        assert _ids(await client.read(target)) == ["a", "b"]


@pytest.mark.asyncio
async def test_another_process_write_is_seen_by_the_next_read(tmp_path: Path) -> None:
    """Another engine (as another process would) writes while our read is cached."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path)
        target = _target(tmp_path)
        other = FileStore(Layout(tmp_path))
        other.mutate(target, _put(["theirs-1"]))
        assert _ids(await client.read(target)) == ["theirs-1"]
        assert _ids(await client.read(target)) == ["theirs-1"]  # now answered from memory
        other.mutate(target, _put(["theirs-2"]))
        assert _ids(await client.read(target)) == ["theirs-2"]


@pytest.mark.asyncio
async def test_in_place_edit_is_seen_by_the_next_read(tmp_path: Path) -> None:
    """An editor that rewrites the file in place (no rename) is seen too."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path)
        target = _target(tmp_path)
        await client.mutate(target, _put(["a"]))
        snap = await client.read(target)
        assert snap is not None
        assert _ids(await client.read(target)) == ["a"]
        _rewrite_in_place(target.path, msgspec.structs.replace(snap, entries=(Fact(id="edited"),)))
        assert _ids(await client.read(target)) == ["edited"]


@pytest.mark.asyncio
async def test_store_created_later_is_seen(tmp_path: Path) -> None:
    """A store whose directory did not exist is vouched absent only until it appears."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path)
        (tmp_path / "persona-mind").mkdir()
        target = _target(tmp_path)
        assert await client.read(target) is None
        assert await client.read(target) is None  # answered from memory
        FileStore(Layout(tmp_path)).mutate(target, _put(["new"]))
        assert _ids(await client.read(target)) == ["new"]


@pytest.mark.asyncio
async def test_directory_swapped_on_the_way_is_seen(tmp_path: Path) -> None:
    """A restore that moves ``memory/`` aside and puts another in place: the store's own
    directory raised no event (it moved along), the one above did."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path)
        target = _target(tmp_path)
        await client.mutate(target, _put(["old"]))
        assert _ids(await client.read(target)) == ["old"]
        assert _ids(await client.read(target)) == ["old"]
        staging = tmp_path / "staging"
        FileStore(Layout(staging)).mutate(_target(staging), _put(["restored"]))
        memory = tmp_path / "persona-mind" / "memory"
        os.rename(memory, tmp_path / "memory.old")
        os.rename(staging / "persona-mind" / "memory", memory)
        assert _ids(await client.read(target)) == ["restored"]


@pytest.mark.asyncio
async def test_injected_file_system_reads_every_time(
    tmp_path: Path, engine_reads: list[Path]
) -> None:
    """Events describe only the real file system: with an injected one, no shortcut."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path, fs=OsFileSystem())
        target = _target(tmp_path)
        await client.mutate(target, _put(["a"]))
        for _ in range(3):
            await client.read(target)
        assert len(engine_reads) == 3


@pytest.mark.asyncio
async def test_store_directory_that_is_also_on_the_way_to_another(
    tmp_path: Path, engine_reads: list[Path]
) -> None:
    """One directory, two roles: it holds a store and lies on the way down to another.
    The kernel keeps one watch per directory; both roles must keep their events."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, tmp_path)
        upper = StoreTarget(path=tmp_path / "persona-mind" / "a.json", entry_type=Fact)
        lower = _target(tmp_path)
        await client.mutate(upper, _put(["a"]))
        await client.mutate(lower, _put(["b"]))
        snap = await client.read(upper)  # watches persona-mind/ as a store's directory
        assert _ids(await client.read(lower)) == ["b"]  # ... and as a way down
        calls = len(engine_reads)
        assert _ids(await client.read(upper)) == ["a"]
        assert _ids(await client.read(lower)) == ["b"]
        assert len(engine_reads) == calls  # both answered from memory
        assert snap is not None
        _rewrite_in_place(upper.path, msgspec.structs.replace(snap, entries=(Fact(id="e"),)))
        assert _ids(await client.read(upper)) == ["e"]
