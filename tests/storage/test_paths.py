"""Layout, collision-safe names, project identity and confinement (M-STORE-1..5, F7, F8)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from persona_mind.storage import (
    Layout,
    UnsafePath,
    agent_dir,
    confine,
    is_windows_reserved,
    project_identity,
    project_name,
    safe_name,
)

DEVICES = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
DEVICES += [f"{p}{d}" for p in ("COM", "LPT") for d in "123456789¹²³"]


def test_m_store_1_to_5_layout(tmp_path: Path) -> None:
    lay = Layout(tmp_path)
    root = tmp_path / "persona-mind"
    assert lay.root == root
    assert lay.ltm("architect") == root / "memory/ltm/architect.json"
    assert lay.shared_ltm == root / "memory/ltm/_shared.json"
    assert lay.project("app") == root / "memory/project/app.json"
    assert lay.stm("app") == root / "memory/stm/app.json"
    assert lay.backlog("app") == root / "backlog/app.json"
    assert lay.memory_lock.parent == lay.shared_ltm.parent  # M-STORE-13: beside shared LTM
    assert Layout.history(lay.stm("app")).name == "app.optimize-history.json"
    assert lay.runtime_sessions == tmp_path / "persona/.runtime-sessions"
    with pytest.raises(UnsafePath):
        lay.packs("../x")


def test_agent_dir_rule() -> None:
    assert agent_dir({"PI_CODING_AGENT_DIR": "/x/y"}) == Path("/x/y")
    assert agent_dir({}) == Path.home() / ".pi" / "agent"


def test_plain_names_kept() -> None:
    assert safe_name("architect") == "architect"
    assert safe_name("a" * 64) == "a" * 64
    assert safe_name("a" * 65) != "a" * 65  # n+1 over the plain length gets hashed


def test_reserved_names_never_merge_with_layout_names() -> None:
    for name in ("shared", "default", "_shared"):
        assert safe_name(name) != name
        assert "~" in safe_name(name)


@pytest.mark.parametrize("name", DEVICES)
def test_f8_windows_device_names_are_never_used_verbatim(name: str) -> None:
    for form in (name, name.lower(), f"{name}.txt", f"{name} ", f"{name}.", f"{name}.tar.gz"):
        assert is_windows_reserved(form), form
        stem = safe_name(form).split(".", 1)[0]
        assert not is_windows_reserved(f"{stem}.json"), form


def test_f8_generated_reserved_forms_at_least_200() -> None:
    forms = {
        f"{case(d)}{ext}{tail}"
        for d, case, ext, tail in itertools.product(
            DEVICES, (str.upper, str.lower, str.title), ("", ".json", ".a.b"), ("", ".", " ")
        )
    }
    assert len(forms) >= 200
    assert all(is_windows_reserved(f) for f in forms)
    stems = {safe_name(f) for f in forms}
    assert len(stems) == len(forms)  # no two merge
    assert not any(is_windows_reserved(f"{s}.json") for s in stems)


def test_lossy_unicode_and_case_never_merge() -> None:
    names = ["café", "cafe", "cafe\u0301", "Cafe", "CAFE", "caf\u00e9 ", "ça", "ca", "日本", "中文"]
    names += ["a/b", "a-b", "a_b", "a b", "A-B", "con", "CON", "c\u200bon"]
    stems = [safe_name(n) for n in names]
    assert len(set(stems)) == len(names)
    assert len({s.lower() for s in stems}) == len(names)  # also on case-insensitive disks
    for stem in stems:
        assert stem.isascii()
        assert not is_windows_reserved(stem + ".json")


def test_persona_identity_pack_qualified() -> None:
    stem = safe_name("official/software-team/architect")
    assert "/" not in stem
    assert stem != safe_name("official/software-team-architect")


def test_project_identity_nearest_git_ancestor(tmp_path: Path) -> None:
    repo = tmp_path / "home" / "work" / "repo"
    (repo / ".git").mkdir(parents=True)
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    assert project_identity(deep, home=tmp_path / "home") == repo
    link = tmp_path / "link"
    link.symlink_to(deep)
    assert project_identity(link, home=tmp_path / "home") == repo  # the real path counts


def test_project_identity_never_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)  # a dotfiles repo
    work = home / "notes"
    work.mkdir()
    assert project_identity(work, home=home) == work
    assert project_identity(home, home=home) == home


def test_project_names_collision_safe(tmp_path: Path) -> None:
    a, b = tmp_path / "x" / "app", tmp_path / "y" / "app"
    assert project_name(a) != project_name(b)
    assert project_name(a).startswith("app~")


@pytest.mark.parametrize("part", ["..", "../x", "/etc/x", "C:x", "a\\b", "a\x00b", "", "./a"])
def test_f7_confine_refuses_escapes(tmp_path: Path, part: str) -> None:
    with pytest.raises(UnsafePath):
        confine(tmp_path, part)


def test_f7_confine_refuses_symlinked_component(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    (root / "sub").symlink_to(outside)
    with pytest.raises(UnsafePath):
        confine(root, "sub", "file.json")
    assert confine(root, "real", "file.json") == Path(os.path.realpath(root)) / "real/file.json"
