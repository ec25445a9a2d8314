"""``persona_mind.Team``: the team and its consults from a program, over the real runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind import Team
from persona_mind._team import ConsultRefused, TeamUnavailable
from persona_mind.cli import main
from persona_mind.testing import ManualClock, ScriptedModel


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    agent = tmp_path / "agent"
    assert main(["pack", "install", "software-team", "--agent-dir", str(agent)]) == 0
    assert main(["persona", "default", "set", "software-team", "--agent-dir", str(agent)]) == 0
    capsys.readouterr()
    return agent


@pytest.mark.asyncio
async def test_consult_runs_the_sessions_consult_with_provenance(agent: Path, repo: Path) -> None:
    clock = ManualClock()
    model = ScriptedModel(clock)
    model.on(persona="security-reviewer", reply="Rotate the token; scope it to read-only.")
    async with Team(
        agent_dir=agent,
        cwd=repo,
        persona="architect",
        model="sim/scripted-model",
        child_backend=model,
        clock=clock,
    ) as team:
        names = [m.name for m in await team.members()]
        assert {"architect", "security-reviewer", "tech-lead"} <= set(names)
        assert "architect" in (await team.resolve("architect")).lower()
        answer = await team.consult("security-reviewer", "Is the token safe?", context="a PAT")
        assert answer.answer.strip() == "Rotate the token; scope it to read-only."
        assert answer.consultant == "security-reviewer"
        assert answer.requester == "architect"
        assert answer.model == "sim/scripted-model"
        (call,) = model.calls
        assert "a PAT" in call.prompt
        with pytest.raises(ConsultRefused):
            await team.consult("architect", "Am I right?")  # no self-consult
        with pytest.raises(TeamUnavailable, match="members"):
            await team.resolve("nobody")


@pytest.mark.asyncio
async def test_without_a_team_or_a_backend_the_errors_say_what_to_do(
    tmp_path: Path, repo: Path
) -> None:
    async with Team(agent_dir=tmp_path / "empty", cwd=repo, pi_command=()) as team:
        with pytest.raises(TeamUnavailable, match="persona default set"):
            await team.members()
        with pytest.raises(ConsultRefused, match="child backend"):
            await team.consult("architect", "hello?")
