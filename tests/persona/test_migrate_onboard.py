"""Migration of older setups (group P-MIGRATE), onboarding (P-ONBOARD), doctor."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import yaml

from persona_mind.messages.host import CommandCall, ToolCall
from persona_mind.persona import (
    PersonaService,
    SessionContext,
    Workspace,
    backend_problem,
    migration_status,
    run_command,
    run_tool,
)

Ctx = Callable[..., SessionContext]


def _cmd(svc: PersonaService, ctx: SessionContext, args: str) -> str:
    return run_command(svc, ctx, CommandCall(name="persona", args=args)).result.text


def _older_setup(ws: Path) -> dict[Path, bytes]:
    agents = ws / ".pi" / "agents"
    agents.mkdir(parents=True)
    files = {
        agents / "boss.md": b"---\nname: boss\nrole: generalist\nlegacyField: 1\n---\nBoss.\n",
        agents / "helper.md": b"---\nname: helper\nrole: specialist\n---\nHelp.\n",
        agents / "_baseline.md": b"---\ndocs: library/shared/\n---\nBase.\n",
    }
    for path, data in files.items():
        path.write_bytes(data)
    return files


def _tree(ws: Path) -> dict[str, bytes]:
    return {str(p.relative_to(ws)): p.read_bytes() for p in sorted(ws.rglob("*")) if p.is_file()}


def test_migration_copies_never_changes_originals_and_never_selects(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """P-MIGRATE-3/4/5: approved copy into custom/<name>; originals untouched; not selected."""
    _older_setup(workspace)
    before = _tree(workspace)
    ctx = make_ctx()
    assert service.open_session(ctx).scope.state == "migration-required"
    assert "migration-required" in _cmd(service, ctx, "migrate inspect")
    preview = _cmd(service, ctx, "migrate preview")
    assert "custom/ws-team" in preview
    assert service.store.installed_refs() == []  # preview changes nothing
    assert "--yes" in _cmd(service, ctx, "migrate apply")
    _cmd(service, ctx, "migrate apply --yes")
    assert service.store.installed_refs() == ["custom/ws-team"]
    assert _tree(workspace) == before
    assert service.store.state().default is None
    assert service.session(ctx).scope.state == "unbound"
    assert migration_status(service.store, Workspace(workspace)) == "migrated"


def test_rollback_regates_and_keeps_the_pack(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """P-MIGRATE-6/7: rollback marks migration-required again, keeps the copied pack."""
    _older_setup(workspace)
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "migrate apply --yes")
    out = run_command(service, ctx, CommandCall(name="persona", args="migrate rollback --yes"))
    assert out.result.reload
    assert service.session(ctx).scope.state == "migration-required"
    assert service.store.installed_refs() == ["custom/ws-team"]


def test_migration_status_detects_changed_source_and_missing_destination(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """AMB-17 statuses: changed-source, destination-missing."""
    files = _older_setup(workspace)
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "migrate apply --yes")
    boss = next(p for p in files if p.name == "boss.md")
    boss.write_bytes(boss.read_bytes() + b"More.\n")
    assert migration_status(service.store, Workspace(workspace)) == "changed-source"
    _cmd(service, ctx, "pack delete ws-team --yes")
    assert migration_status(service.store, Workspace(workspace)) == "destination-missing"


def test_migrate_through_the_tool_is_plan_gated(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """P-MIGRATE-10: apply is planned against the legacy source; cancel drops the plan."""
    _older_setup(workspace)
    ctx = make_ctx()
    service.open_session(ctx)
    call = ToolCall(
        call_id="1",
        name="persona_pack",
        arguments={"action": "migrate", "op": "apply", "name": "legacy"},
    )
    plan = run_tool(service, ctx, call).result.details["planId"]
    cancel = ToolCall(
        call_id="2", name="persona_pack", arguments={"action": "migrate", "op": "cancel"}
    )
    assert "Cancelled 1" in run_tool(service, ctx, cancel).result.text
    ctx.user_messages += 1
    confirm = ToolCall(
        call_id="3", name="persona_pack", arguments={"action": "confirm", "planId": plan}
    )
    assert run_tool(service, ctx, confirm).result.is_error
    assert service.store.installed_refs() == []


def test_onboarding_creates_resumes_previews_and_applies(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """P-ONBOARD-1/2/3/5/6/7/9/10, P-HOST-10: manifest, journey (the "project foundation")
    before Q1, preview, apply, index, doctor; no pack files in the project."""
    ctx = make_ctx()
    service.open_session(ctx)
    first = _cmd(service, ctx, "onboard")
    assert first.index("Project purpose") < first.index("What is the project called?")
    assert "library/shared/" in first
    assert "project foundation" in first.lower()
    manifest = workspace / "init-data" / "my-persona-setup.yaml"
    data = yaml.safe_load(manifest.read_text())
    data["project"].update(name="Acme", purpose="Ship rockets safely.")
    data["shared_context"]["conventions"] = ["metric units"]
    manifest.write_text(yaml.safe_dump(data))
    assert "Resuming" in _cmd(service, ctx, "onboard")
    preview = _cmd(service, ctx, "onboard preview")
    assert ".pi/agents/_baseline.md: create" in preview
    assert not (workspace / ".pi").exists()
    applied = _cmd(service, ctx, "onboard apply --yes")
    assert "doctor:" in applied
    assert "Ship rockets safely." in (workspace / ".pi/agents/_baseline.md").read_text()
    assert "metric units" in (workspace / "library/shared/project-context.md").read_text()
    assert "project-context.md" in (workspace / "library/shared/_index.md").read_text()
    # P-ONBOARD-8: no persona, no coordinator, no pack
    assert [p.name for p in (workspace / ".pi/agents").iterdir()] == ["_baseline.md"]
    assert service.store.installed_refs() == []
    assert not (workspace / "agents").exists()


def test_onboarding_needs_purpose_before_apply(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """Apply refuses an unanswered manifest and writes nothing."""
    ctx = make_ctx()
    _cmd(service, ctx, "onboard")
    out = run_command(service, ctx, CommandCall(name="persona", args="onboard apply --yes"))
    assert out.result.level == "error"
    assert not (workspace / ".pi").exists()


def test_backend_setting_rules(workspace: Path) -> None:
    """P-ONBOARD-11 + backend rule: native or absent is a no-op; anything else names the
    setting."""
    ws = Workspace(workspace)
    assert backend_problem(ws, env={}) is None
    assert backend_problem(ws, env={"PI_PERSONA_BACKEND": "native"}) is None
    problem = backend_problem(ws, env={"PI_PERSONA_BACKEND": "legacy"})
    assert problem is not None
    assert "PI_PERSONA_BACKEND" in problem
    (workspace / ".pi").mkdir()
    (workspace / ".pi" / "persona.json").write_text(json.dumps({"backend": "native"}))
    assert backend_problem(ws, env={}) is None
    (workspace / ".pi" / "persona.json").write_text(json.dumps({"backend": "legacy"}))
    assert "persona.json" in str(backend_problem(ws, env={}))


def test_doctor_reports_invalid_packs_and_gates(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """Doctor is cheap and actionable (P-HOST-15)."""
    _older_setup(workspace)
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "pack install demo")
    (service.store.dir_for("official/demo") / "references" / "CON.md").write_text("x")
    report = _cmd(service, ctx, "doctor")
    assert "official/demo is invalid" in report
    assert "older setup: migration-required" in report
    assert "error(s)" in report


def test_older_setup_files_symlinked_out_of_the_workspace_are_ignored(
    service: PersonaService, workspace: Path, tmp_path: Path
) -> None:
    """P-RESOLVER-10: a .pi/agents file linking outside the workspace is never read."""
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: boss\nrole: generalist\n---\nOUTSIDE\n")
    agents = workspace / ".pi" / "agents"
    agents.mkdir(parents=True)
    (agents / "boss.md").symlink_to(outside)
    ws = Workspace(workspace)
    assert ws.agent_files() == []
    assert not ws.is_older_setup()
