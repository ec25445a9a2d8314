"""The resolver assembles awareness (group P-RESOLVER) from the retained snapshot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from persona_mind.persona import PersonaNotFound, Resolver, Workspace, load_pack, resolve_team
from persona_mind.persona.packs._model import Pack
from tests.persona.conftest import write_pack


@pytest.fixture
def pack(tmp_path: Path) -> Pack:
    """The demo pack, loaded with a digest (as a snapshot would be)."""
    return load_pack(write_pack(tmp_path / "snap" / "demo"), "official", expected_name="demo")


def _foundation(ws: Path) -> None:
    (ws / ".pi" / "agents").mkdir(parents=True)
    (ws / ".pi" / "agents" / "_baseline.md").write_text(
        "---\ndocs: library/shared/\nskills:\n  - read\n---\nBaseline rule: be kind.\n"
    )
    for rel, text in {
        "library/shared/_index.md": "SHARED-INDEX: project-context.md\n",
        "library/shared/project-context.md": "secret details not inlined\n",
        "library/personal/lead/_index.md": "LEAD-PRIVATE-INDEX\n",
        "library/personal/alpha/_index.md": "ALPHA-PRIVATE-INDEX\n",
    }.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)


def test_prompt_contains_every_input(pack: Pack, workspace: Path) -> None:
    """P-RESOLVER-1/3/4/5/7/17: baseline (docs, skills, body), persona, docs indexes,
    packDocs, skills, roster."""
    _foundation(workspace)
    r = Resolver().resolve(pack, "alpha", Workspace(workspace))
    text = r.system_prompt
    assert "You are alpha." in text
    assert "Baseline rule: be kind." in text
    assert "SHARED-INDEX" in text
    assert "ALPHA-PRIVATE-INDEX" in text
    assert "alpha/notes.md" in text
    assert str(pack.references) in text
    assert "[G] lead" in text
    assert "secret details" not in text  # only indexes are inlined; documents on demand
    assert r.skills == ("read",)
    assert r.identity == "official/demo/alpha"


def test_lead_sees_roster_but_not_other_personal_libraries(pack: Pack, workspace: Path) -> None:
    """P-RESOLVER-6."""
    _foundation(workspace)
    text = Resolver().resolve(pack, "lead", Workspace(workspace)).system_prompt
    assert "LEAD-PRIVATE-INDEX" in text
    assert "ALPHA-PRIVATE-INDEX" not in text
    assert "- alpha" in text
    assert "- beta" in text
    assert "persona_consult" in text  # routing behaviour (P-RESOLVER-8)


def test_pack_docs_index_is_inlined(pack: Pack, workspace: Path) -> None:
    """A packDocs folder's _index.md is part of the prompt."""
    text = Resolver().resolve(pack, "lead", Workspace(workspace)).system_prompt
    assert "# Shared refs" in text


def test_missing_workspace_docs_are_fine(pack: Pack, workspace: Path) -> None:
    """P-RESOLVER-18: optional docs; nothing creates them."""
    r = Resolver().resolve(pack, "beta", Workspace(workspace))
    assert "not present yet" in r.system_prompt
    assert not (workspace / "library").exists()
    assert r.warnings == ()


def test_symlinked_docs_out_of_the_workspace_are_refused(
    pack: Pack, workspace: Path, tmp_path: Path
) -> None:
    """P-RESOLVER-10: a symlink escape is refused, not read."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "_index.md").write_text("STOLEN-INDEX\n")
    (workspace / "library" / "personal").mkdir(parents=True)
    os.symlink(outside, workspace / "library" / "personal" / "alpha")
    r = Resolver().resolve(pack, "alpha", Workspace(workspace))
    assert "STOLEN-INDEX" not in r.system_prompt
    assert any("outside the workspace" in w for w in r.warnings)


def test_parent_folders_are_never_discovered(pack: Pack, tmp_path: Path) -> None:
    """P-RESOLVER-19: a parent's foundation is not this workspace's."""
    _foundation(tmp_path)
    child = tmp_path / "child"
    child.mkdir()
    text = Resolver().resolve(pack, "alpha", Workspace(child)).system_prompt
    assert "Baseline rule" not in text
    assert "SHARED-INDEX" not in text


def test_warm_cache_sees_workspace_changes(pack: Pack, workspace: Path) -> None:
    """The cache is revalidated by stat: an edited index shows up on the next turn."""
    _foundation(workspace)
    resolver = Resolver()
    ws = Workspace(workspace)
    first = resolver.resolve(pack, "alpha", ws)
    assert resolver.resolve(pack, "alpha", ws) is first  # warm hit
    index = workspace / "library" / "shared" / "_index.md"
    index.write_text("SHARED-INDEX v2 with more text\n")
    assert "v2" in resolver.resolve(pack, "alpha", ws).system_prompt
    (workspace / "library" / "personal" / "beta").mkdir(parents=True)
    (workspace / "library" / "personal" / "beta" / "_index.md").write_text("BETA-NEW\n")
    assert "BETA-NEW" in resolver.resolve(pack, "beta", ws).system_prompt


def test_team_snapshot_gives_each_member_its_own_package(pack: Pack, workspace: Path) -> None:
    """P-RESOLVER-2/20: the same resolver builds each consulted persona's own package."""
    team = resolve_team(pack, Workspace(workspace))
    assert team.lead is not None
    assert team.lead.name == "lead"
    assert [m.name for m in team.specialists] == ["alpha", "beta"]
    alpha = team.member("alpha")
    assert alpha is not None
    assert alpha.system_prompt.startswith("# Persona: alpha")
    assert alpha.identity == "official/demo/alpha"


def test_declared_tools_and_model_are_passed_through(tmp_path: Path, workspace: Path) -> None:
    """P-RESOLVER-21: declared tools/model are honoured, not policed."""
    root = write_pack(tmp_path / "demo")
    (root / "agents" / "beta.md").write_text(
        "---\nname: beta\nrole: specialist\ntools: [read, bash]\nmodel: acme/m1\n---\nB\n"
    )
    pack = load_pack(root, "custom", expected_name="demo")
    r = Resolver().resolve(pack, "beta", Workspace(workspace))
    assert r.tools == ("read", "bash")
    assert r.model == "acme/m1"


def test_unknown_persona_is_a_clear_error(pack: Pack, workspace: Path) -> None:
    """PersonaNotFound names the pack and the list command."""
    with pytest.raises(PersonaNotFound, match="/persona-list"):
        Resolver().resolve(pack, "nobody", Workspace(workspace))


def test_a_fifo_index_never_blocks_the_resolver(pack: Pack, workspace: Path) -> None:
    """A FIFO where an _index.md should be is skipped, not opened (no hung call)."""
    shared = workspace / "library" / "shared"
    shared.mkdir(parents=True)
    os.mkfifo(shared / "_index.md")
    (workspace / ".pi" / "agents").mkdir(parents=True)
    (workspace / ".pi" / "agents" / "_baseline.md").write_text("---\ndocs: library/shared/\n---\n")
    text = Resolver().resolve(pack, "alpha", Workspace(workspace)).system_prompt
    assert "Shared library `library/shared/` (no _index.md yet)" in text
