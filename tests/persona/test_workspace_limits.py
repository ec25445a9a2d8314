"""Issue 24 low items on the workspace side: an oversized onboarding manifest or persona file
is reported as too large (with the limit), not as invalid YAML or unclosed frontmatter; a
symlinked ``.pi/agents`` member that migration skips is named, not silently dropped.

Each test fails on the issue's main.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.messages.host import CommandCall
from persona_mind.persona import PersonaService, SessionContext, Workspace, run_command

Ctx = Callable[..., SessionContext]
TEN_MB = 10 * 1024 * 1024


def _cmd(svc: PersonaService, ctx: SessionContext, args: str) -> str:
    return run_command(svc, ctx, CommandCall(name="persona", args=args)).result.text


def _older_setup(ws: Path) -> Path:
    agents = ws / ".pi" / "agents"
    agents.mkdir(parents=True)
    (agents / "boss.md").write_text("---\nname: boss\nrole: generalist\n---\nBoss.\n")
    (agents / "helper.md").write_text("---\nname: helper\nrole: specialist\n---\nHelp.\n")
    return agents


def test_a_10_mb_onboarding_manifest_is_too_large_not_invalid_yaml(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    manifest = workspace / "init-data" / "my-persona-setup.yaml"
    manifest.parent.mkdir()
    manifest.write_bytes(b"project:\n  name: big\n" + b"# padding\n" * (TEN_MB // 10))
    ctx = make_ctx()
    service.open_session(ctx)
    for args in ("onboard", "onboard preview"):
        text = _cmd(service, ctx, args)
        assert "too large" in text, text
        assert "262144-byte limit" in text
        assert f"{manifest.stat().st_size} bytes" in text
        assert "not valid YAML" not in text


def test_a_10_mb_persona_file_is_too_large_not_unclosed_frontmatter(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    agents = _older_setup(workspace)
    big = agents / "huge.md"
    big.write_bytes(b"---\nname: huge\nrole: specialist\n---\n" + b"x" * TEN_MB)
    personas, problems = Workspace(workspace).local_personas()
    (problem,) = [p for p in problems if p.path.endswith("huge.md")]
    assert problem.code == "too-large"
    assert "262144-byte limit" in problem.message
    assert "frontmatter" not in problem.message
    assert sorted(p.name for p in personas) == ["boss", "helper"]
    ctx = make_ctx()
    service.open_session(ctx)
    preview = _cmd(service, ctx, "migrate preview")
    assert "too large" in preview
    assert "frontmatter" not in preview


@pytest.mark.parametrize("where", ["outside", "nowhere"])
def test_migration_names_a_symlinked_member_it_skips(
    service: PersonaService, make_ctx: Ctx, workspace: Path, tmp_path: Path, where: str
) -> None:
    agents = _older_setup(workspace)
    target = tmp_path / "elsewhere.md"
    if where == "outside":
        target.write_text("---\nname: elsewhere\nrole: specialist\n---\nOut.\n")
    (agents / "linked.md").symlink_to(target)
    ctx = make_ctx()
    service.open_session(ctx)
    for args in ("migrate inspect", "migrate preview"):
        text = _cmd(service, ctx, args)
        line = next((x for x in text.splitlines() if "linked.md" in x), "")
        assert "symlink" in line, text
        assert "skipped" in line
    _cmd(service, ctx, "migrate apply --yes")
    copied = service.store.root / "custom" / "ws-team" / "agents"
    assert sorted(p.name for p in copied.iterdir()) == ["boss.md", "helper.md"]
