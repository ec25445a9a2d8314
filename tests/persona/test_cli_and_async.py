"""The `persona-mind pack|persona` CLI and the async entry points the Owner uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.cli import main
from persona_mind.messages.host import CommandCall, ToolCall
from persona_mind.persona import PersonaService, SessionContext, persona_tour
from tests.persona._wiring import persona_service


def test_cli_pack_lifecycle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """P-PACK-22 outside a session: install, list, gated uninstall, refused unknown."""
    agent = ["--agent-dir", str(tmp_path / "agent")]
    assert main(["pack", "install", "software-team", *agent]) == 0
    assert main(["pack", "list", *agent]) == 0
    assert "official/software-team 1.0.0" in capsys.readouterr().out
    assert main(["pack", "uninstall", "software-team", *agent]) == 3  # unconfirmed
    assert "--yes" in capsys.readouterr().out
    assert (tmp_path / "agent" / "persona" / "official" / "software-team").is_dir()
    assert main(["pack", "uninstall", "software-team", "--yes", *agent]) == 0
    assert not (tmp_path / "agent" / "persona" / "official" / "software-team").exists()
    assert main(["pack", "status", "nope", *agent]) == 1
    assert "nope" in capsys.readouterr().err


def test_cli_persona_resolve_and_doctor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`persona-mind persona resolve` prints the resolver's prompt; doctor exits 0 when clean."""
    agent = ["--agent-dir", str(tmp_path / "agent")]
    main(["persona", "pack", "install", "philosopher-7", *agent])
    capsys.readouterr()
    assert (
        main(
            [
                "persona",
                "resolve",
                "philosopher-7",
                "stoic-counselor",
                "--cwd",
                str(tmp_path),
                *agent,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("# Persona: stoic-counselor")
    assert "[G] symposiarch" in out
    assert main(["persona", "doctor", "--cwd", str(tmp_path), *agent]) == 0
    assert main(["persona", "default", "set", "philosopher-7", *agent]) == 0
    assert "official/philosopher-7" in capsys.readouterr().out


@pytest.mark.asyncio
async def test_async_entry_points_offload_and_return_outcomes(
    service: PersonaService, workspace: Path
) -> None:
    """The Owner awaits handle_command/handle_tool/injection; blocking IO is offloaded."""
    calls: list[str] = []

    async def offload(fn):  # type: ignore[no-untyped-def]
        calls.append(getattr(fn, "__name__", type(fn).__name__))
        return fn()

    svc = persona_service(
        service.store.agent_dir, catalog_dir=service.store.catalog_dir, offload=offload
    )
    ctx = SessionContext(session_id="a", cwd=workspace)
    await svc.open(ctx, reason="startup")
    out = await svc.handle_command(ctx, CommandCall(name="persona", args="pack install demo"))
    assert "Installed" in out.result.text
    await svc.handle_command(ctx, CommandCall(name="persona", args="team select demo"))
    await svc.handle_command(ctx, CommandCall(name="persona", args="use alpha"))
    injection = await svc.injection(ctx)
    assert "You are alpha." in injection.sections[0]
    team = await svc.team(ctx)
    assert team is not None
    assert team.lead is not None
    tool = await svc.handle_tool(
        ctx, ToolCall(call_id="1", name="persona_pack", arguments={"action": "list"})
    )
    assert "official/demo" in tool.result.text
    assert len(calls) == 7  # every entry point went through the offload


def test_cli_migrate_and_onboard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`persona-mind persona migrate|onboard` outside a session, gated by --yes."""
    agent = ["--agent-dir", str(tmp_path / "agent")]
    ws = tmp_path / "proj"
    (ws / ".pi" / "agents").mkdir(parents=True)
    (ws / ".pi" / "agents" / "boss.md").write_text("---\nname: boss\nrole: generalist\n---\nB\n")
    (ws / ".pi" / "agents" / "aide.md").write_text("---\nname: aide\nrole: specialist\n---\nA\n")
    cwd = ["--cwd", str(ws)]
    assert main(["persona", "migrate", "status", *cwd, *agent]) == 0
    assert "migration-required" in capsys.readouterr().out
    assert main(["persona", "migrate", "apply", *cwd, *agent]) == 3  # unconfirmed
    assert "--yes" in capsys.readouterr().out
    assert main(["persona", "migrate", "apply", "--yes", *cwd, *agent]) == 0
    assert main(["persona", "migrate", "status", *cwd, *agent]) == 0
    assert "migrated" in capsys.readouterr().out
    assert main(["persona", "onboard", *cwd, *agent]) == 0
    assert (ws / "init-data" / "my-persona-setup.yaml").is_file()
    assert main(["persona", "onboard", "apply", "--yes", *cwd, *agent]) == 1  # unanswered


def test_persona_tour_for_the_demo(tmp_path: Path) -> None:
    """Issue item 9: install → bind → activate → plan → confirm, on the real catalog."""
    ws = tmp_path / "ws"
    ws.mkdir()
    lines: list[str] = []
    svc = persona_service(tmp_path / "agent")
    assert persona_tour(svc, SessionContext(session_id="tour", cwd=ws), lines.append)
    assert any("refused" in line for line in lines)
