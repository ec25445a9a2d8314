"""Persona's file port (issue 10 scope 4): every pack-store write goes through the injected
``PackFiles``, and a lock held by another process is a typed ``PackStoreBusy``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from persona_mind.persona import PackStoreBusy
from persona_mind.persona.packs._drafts import prepare_apply, prepare_edit
from persona_mind.persona.packs._lifecycle import prepare_install
from persona_mind.storage import DurablePackFiles
from tests.persona._wiring import pack_store
from tests.storage.test_locks import holder


class Recording(DurablePackFiles):
    """The real port, recording each step the domain asks of it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []

    def atomic_write(self, path: Path, data: bytes) -> None:
        self.calls.append(("atomic_write", path.name))
        super().atomic_write(path, data)

    def copy_tree(self, src: Path, dst: Path, files: tuple[str, ...]) -> None:
        self.calls.append(("copy_tree", dst.parent.name))
        super().copy_tree(src, dst, files)

    def swap_in(self, stage: Path, target: Path) -> None:
        self.calls.append(("swap_in", f"{target.parent.name}/{target.name}"))
        super().swap_in(stage, target)

    def remove_tree(self, path: Path) -> None:
        self.calls.append(("remove_tree", path.name))
        super().remove_tree(path)

    @contextmanager
    def packs_lock(self, store_root: Path, purpose: str, timeout: float) -> Iterator[None]:
        self.calls.append(("packs_lock", purpose))
        with super().packs_lock(store_root, purpose, timeout):
            yield


def test_install_edit_and_apply_write_only_through_the_injected_port(
    agent_dir: Path, catalog: Path
) -> None:
    files = Recording()
    store = pack_store(agent_dir, catalog_dir=catalog, files=files)
    prepare_install(store, "demo").execute()
    prepare_edit(store, "demo").execute()
    draft = store.root / "drafts" / "official" / "demo" / "agents" / "alpha.md"
    draft.write_text(draft.read_text() + "\nEdited.\n")  # the user's edit of the draft
    files.calls.clear()
    prepare_apply(store, "official/demo").execute()
    assert files.calls[0] == ("packs_lock", "apply official/demo")
    assert ("copy_tree", "official") in files.calls  # staged beside the target
    assert ("swap_in", "official/demo") in files.calls
    assert ("remove_tree", "demo") in files.calls  # the applied draft
    assert files.calls[-1] == ("atomic_write", "store.json")
    assert "Edited." in (store.root / "official" / "demo" / "agents" / "alpha.md").read_text()


def test_a_pack_lock_held_by_another_process_is_pack_store_busy(
    agent_dir: Path, catalog: Path
) -> None:
    store = pack_store(agent_dir, catalog_dir=catalog, lock_timeout=0.05)
    store.root.mkdir(parents=True)
    with holder(store.root / ".packs.lock", "another pi"):
        with pytest.raises(PackStoreBusy, match="another process is changing the pack store"):
            prepare_install(store, "demo").execute()
        assert store.installed_refs() == []  # nothing was changed while it was held
    prepare_install(store, "demo").execute()  # free again: the same store proceeds
    assert store.installed_refs() == ["official/demo"]


def test_an_error_inside_the_held_lock_is_not_reported_as_busy(
    agent_dir: Path, catalog: Path
) -> None:
    """Only taking the lock is translated: a disk error during the mutation stays itself."""

    class DiskFull(DurablePackFiles):
        def swap_in(self, stage: Path, target: Path) -> None:
            raise OSError(28, "No space left on device")

    store = pack_store(agent_dir, catalog_dir=catalog, files=DiskFull())
    with pytest.raises(OSError, match="No space"):
        prepare_install(store, "demo").execute()
