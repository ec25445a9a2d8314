"""Issue 24's seed-fidelity items: a replacement that differs from its own source only by
letter case is a collision (M-OPTIMIZE-MANUAL-24), and the seed's ``project-long`` target
name is accepted as this project's ``project`` tier (M-OPTIMIZE-BATCH-4, -MANUAL-16).

Both fail on the issue's main: the case-only rewrite was staged (and applied), and
``/mind optimize project-long`` was a usage error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.optimizer import OptimizerClient, spawn_optimizer
from persona_mind.cli import main as cli_main
from persona_mind.cli._memory import DirectStore
from persona_mind.mind import MemoryService, MindSettings
from persona_mind.mind._commands import MindCommandContext, handle_mind_command
from persona_mind.mind.optimize._errors import PlanConflict
from persona_mind.mind.optimize._port import OptimizeBinding
from persona_mind.testing import ManualClock
from tests.optimize._helpers import ARCHITECT, consolidator, engine_for, scope_for, seed


@pytest.mark.parametrize("sources", [1, 2])
def test_a_replacement_differing_from_its_source_only_by_case_is_refused(
    tmp_path: Path, sources: int
) -> None:
    clock = ManualClock()
    a, b = seed(tmp_path, clock, ["Run ruff before pushing", "run mypy"])
    cons = consolidator(tmp_path, clock)
    ids = [a.id, b.id][:sources]
    with pytest.raises(PlanConflict) as info:
        cons.stage(
            scope_for(tmp_path),
            "project",
            [{"sources": ids, "text": "run RUFF before pushing"}],
            now=clock.wall(),
        )
    assert info.value.rule == "plan.collision"
    assert a.id in str(info.value)
    assert "only by letter case" in str(info.value)


def test_consolidating_into_one_sources_exact_text_still_keeps_that_row(tmp_path: Path) -> None:
    clock = ManualClock()
    a, b = seed(tmp_path, clock, ["Run ruff before pushing", "run mypy"])
    staged = consolidator(tmp_path, clock).stage(
        scope_for(tmp_path),
        "project",
        [{"sources": [a.id, b.id], "text": "Run ruff before pushing"}],
        now=clock.wall(),
    )
    assert staged.replacements[0].new.id == a.id


@pytest.mark.asyncio
async def test_the_seeds_project_long_names_the_project_tier(tmp_path: Path) -> None:
    clock = ManualClock()
    seed(tmp_path, clock, ["use ruff for lint", "use ruff for linting"])  # project LTM
    scope = scope_for(tmp_path)
    svc = MemoryService(DirectStore(engine_for(tmp_path, clock)), clock, scope)
    async with ActorSystem(clock=clock) as system:
        binding = OptimizeBinding(
            OptimizerClient(spawn_optimizer(system, scope.agent_dir)), "s#1", scope
        )
        ctx = MindCommandContext(svc, MindSettings(), optimize=binding)
        alias = await handle_mind_command("optimize inspect project-long", ctx)
        plain = await handle_mind_command("optimize inspect project", ctx)
        assert alias.level == "info", alias.text
        assert alias.text == plain.text
        assert "use ruff for linting" in alias.text
        history = await handle_mind_command("optimize history project-long", ctx)
        assert history.level == "info", history.text


def test_the_cli_accepts_project_long_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = ManualClock()
    seed(tmp_path, clock, ["use ruff for lint"])
    argv = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd"]
    argv += [str(tmp_path / "code" / "app"), "--persona", ARCHITECT, "optimize", "inspect"]
    assert cli_main([*argv, "project-long"]) == 0
    alias = capsys.readouterr().out
    assert cli_main([*argv, "project"]) == 0
    assert alias == capsys.readouterr().out
