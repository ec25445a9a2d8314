"""Issue 13, Persona item 10: an invalid backend setting stops every child (P-CHILD-6/7).

Before, an unsupported ``PI_PERSONA_BACKEND`` or ``.pi/persona.json`` backend only showed a
notice and consults and round-tables still ran. Now it is a start-up error naming the
setting, and nothing runs on a backend the user did not choose.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from persona_mind.cli import main
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost


@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_PERSONA_BACKEND", raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    return ws


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel(ManualClock())


@pytest_asyncio.fixture
async def host(tmp_path: Path, workspace: Path, model: ScriptedModel) -> AsyncIterator[SimHost]:
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock(), child_backend=model
    ) as sim:
        yield sim


async def _team(host: SimHost) -> None:
    for command in ("/persona pack install software-team", "/persona team select software-team"):
        result = await host.command(command)
        assert result.level == "info", result.text


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["env", "file"])
async def test_invalid_backend_refuses_consults_and_roundtables_P_CHILD_6_7(
    host: SimHost,
    model: ScriptedModel,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    if where == "env":
        monkeypatch.setenv("PI_PERSONA_BACKEND", "legacy")
        setting = "PI_PERSONA_BACKEND"
    else:
        (workspace / ".pi").mkdir()
        (workspace / ".pi" / "persona.json").write_text(json.dumps({"backend": "subagents"}))
        setting = "persona.json"
    await host.start("new")
    errors = [text for level, text in host.notifications if level == "error"]
    assert any(setting in text for text in errors), errors
    await _team(host)
    await host.command("/persona use architect")
    model.on(persona="security-reviewer", reply="should never run")
    consult = await host.call_tool(
        "persona_consult", {"consultant": "security-reviewer", "question": "Is it safe?"}
    )
    assert consult.is_error
    assert setting in consult.text
    table = await host.command("/persona-roundtable should we split the service?")
    assert table.level == "error"
    assert setting in table.text
    assert model.calls == []  # no child ran on any backend


@pytest.mark.asyncio
async def test_native_backend_setting_is_a_harmless_no_op_P_CHILD_5(
    host: SimHost, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / ".pi").mkdir()
    (workspace / ".pi" / "persona.json").write_text(json.dumps({"backend": "native"}))
    await host.start("new")
    assert not [text for level, text in host.notifications if level == "error"]
    await _team(host)
    await host.command("/persona use architect")
    model.on(persona="security-reviewer", reply="Rotate the token.")
    consult = await host.call_tool(
        "persona_consult", {"consultant": "security-reviewer", "question": "Is it safe?"}
    )
    assert not consult.is_error, consult.text
    assert len(model.calls) == 1


def test_cli_roundtable_refuses_an_invalid_backend_before_any_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PI_PERSONA_BACKEND", "legacy")
    args = ["roundtable", "Queue or cron?", "--fake", "--agent-dir", str(tmp_path / "a")]
    rc = main([*args, "--cwd", str(tmp_path)])
    assert rc == 2
    assert "PI_PERSONA_BACKEND='legacy'" in capsys.readouterr().err
