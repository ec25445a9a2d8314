"""Stage-and-swap of pack directories and its crash recovery (DEC-15, P-PACK store side)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from persona_mind.storage import (
    FileSystem,
    Layout,
    StagedDirectory,
    UnsafePath,
    recover_swaps,
    remove_directory,
    stage_directory,
)
from persona_mind.testing._faultfs import FaultyFileSystem, PowerLoss


def _tree(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
    }


def _stage(parent: Path, lock: Path, files: dict[str, bytes], fs: FileSystem | None = None) -> Path:
    with stage_directory(parent, "pack", lock=lock, fs=fs) as staged:
        for rel, data in files.items():
            staged.write_file(rel, data)
        return staged.commit()


V1 = {"pack.yaml": b"schema: 2\n", "agents/a.md": b"# a\n"}
V2 = {"pack.yaml": b"schema: 2\nname: v2\n", "agents/b.md": b"# b\n", "docs/x/y.md": b"y"}


def test_commit_creates_then_replaces_atomically(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    parent = lay.packs("custom")
    final = _stage(parent, lay.packs_lock, V1)
    assert final == parent / "pack"
    assert _tree(final) == V1
    _stage(parent, lay.packs_lock, V2)
    assert _tree(final) == V2
    assert sorted(os.listdir(parent)) == ["pack"]  # no stage, old or lock leftovers


def test_leaving_without_commit_discards(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    parent = lay.packs("drafts")

    def build() -> None:
        with stage_directory(parent, "pack", lock=lay.packs_lock) as st:
            st.write_file("pack.yaml", b"x")
            raise RuntimeError("validation failed")

    with pytest.raises(RuntimeError):
        build()
    assert os.listdir(parent) == []


def test_unsafe_names_refused(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    with pytest.raises(UnsafePath):
        stage_directory(lay.packs("custom"), "../evil", lock=lay.packs_lock)
    with stage_directory(lay.packs("custom"), "ok", lock=lay.packs_lock) as st:
        with pytest.raises(UnsafePath):
            st.write_file("../escape", b"x")
        st.abort()


def test_remove_directory(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    parent = lay.packs("custom")
    _stage(parent, lay.packs_lock, V1)
    assert remove_directory(parent, "pack", lock=lay.packs_lock)
    assert not remove_directory(parent, "pack", lock=lay.packs_lock)
    assert os.listdir(parent) == []


def _crashing_stage(
    parent: Path, lock: Path, files: dict[str, bytes], fs: FaultyFileSystem
) -> None:
    """Stage and commit until the power loss; then die like a process (no cleanup runs)."""
    staged: StagedDirectory | None = None
    try:
        staged = StagedDirectory(parent, "pack", lock=lock, fs=fs)
        for rel, data in files.items():
            staged.write_file(rel, data)
        staged.commit()
    except PowerLoss:
        pass
    if staged is not None and staged._stage_lock is not None:
        os.close(staged._stage_lock)  # the kernel closes a dead process's descriptors


def test_crash_at_every_step_leaves_old_or_new(tmp_path: Path) -> None:
    """A crash (kill) at any seam call of a replace-commit recovers to exactly V1 or V2."""
    lay = Layout(tmp_path / "count")
    parent = lay.packs("custom")
    _stage(parent, lay.packs_lock, V1)
    counter = FaultyFileSystem()
    counter.fail_at(10_000)
    _stage(parent, lay.packs_lock, V2, fs=counter)
    steps = len(counter.calls)
    outcomes = set()
    for k in range(1, steps + 1):
        lay = Layout(tmp_path / f"k{k}")
        parent = lay.packs("custom")
        _stage(parent, lay.packs_lock, V1)
        fs = FaultyFileSystem()
        fs.crash_at(k)
        _crashing_stage(parent, lay.packs_lock, V2, fs)
        assert fs.crashed
        recover_swaps(parent)
        tree = _tree(parent / "pack")
        assert tree in (V1, V2), f"step {k} ({fs.calls[-1]}): torn pack"
        outcomes.add("v2" if tree == V2 else "v1")
        assert sorted(os.listdir(parent)) == ["pack"], f"step {k}: leftovers"
    assert outcomes == {"v1", "v2"}


def test_failed_rename_rolls_back(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    parent = lay.packs("custom")
    _stage(parent, lay.packs_lock, V1)
    fs = FaultyFileSystem()
    fs.fail_at(2, ops=["replace"])  # old aside succeeds, stage -> final fails
    with pytest.raises(OSError):
        _stage(parent, lay.packs_lock, V2, fs=fs)
    assert _tree(parent / "pack") == V1


def test_recovery_keeps_a_live_stage_of_another_process(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    parent = lay.packs("custom")
    with stage_directory(parent, "other", lock=lay.packs_lock) as live:
        live.write_file("pack.yaml", b"x")
        _stage(parent, lay.packs_lock, V1)  # its commit runs recovery
        assert live.path.exists()
        live.commit()
    assert _tree(parent / "other") == {"pack.yaml": b"x"}


@pytest.mark.parametrize("name", ["CON", "nul", "com1", "COM¹", "pack.", "pack ", "a:b"])
def test_f8_unportable_pack_names_refused(tmp_path: Path, name: str) -> None:
    lay = Layout(tmp_path)
    with pytest.raises(UnsafePath):
        stage_directory(lay.packs("custom"), name, lock=lay.packs_lock)
