"""`persona-mind roundtable --fake` and a whole round-table on fake pi processes."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.roundtable import RoundtableCoordinator
from persona_mind.children import PiBackend, group_members
from persona_mind.cli import main
from persona_mind.cli._children import configured_model, fake_script, load_team
from persona_mind.clock import MonotonicClock
from persona_mind.messages.runner import AwaitRoundtable
from tests.children._helpers import fake_env, fake_log, team


@pytest.mark.asyncio
async def test_roundtable_on_fake_pi_processes(fake_pi: tuple[str, ...], tmp_path: Path) -> None:
    """Six real child processes, each given its persona prompt, tools and model."""
    t = team("architect", "critic")
    backend = PiBackend(fake_pi, clock=MonotonicClock(), env=fake_env(tmp_path, fake_script(t)))
    async with ActorSystem(clock=MonotonicClock()) as system:
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner")
        coord = system.spawn(
            lambda: RoundtableCoordinator(runner, t, "Q?", "fake/m", run_id="f"), name="rt"
        )
        result = await coord.ask(AwaitRoundtable(), timeout=math.inf)
    assert "## Uncertainty" in result.synthesis
    log = fake_log(tmp_path)
    assert len(log) == 6
    assert {e["model"] for e in log} == {"fake/m"}
    assert all(e["tools"] == ["read", "grep", "ls"] for e in log)
    prompts = sorted(e["system_prompt"] for e in log)
    assert prompts.count("You are LEAD-G, the editorial room's generalist.") == 2
    assert prompts.count("You are ARCHITECT-PERSONA.") == 2
    assert all(group_members(e["pid"]) == [] for e in log)


def test_cli_fake_roundtable_prints_progress_and_synthesis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc = main(["roundtable", "Queue or cron?", "--fake"])
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert rc == 0
    # progress on stderr, the answer (the synthesis) alone on stdout (issue 17)
    assert "Phase: independent" in err or "Phase: revision" in err or "Phase: done" in err
    assert "Context policy:" in err
    assert "Phase:" not in out
    assert out.startswith("## Perspectives")
    assert out.rstrip().endswith("measure for a week before revisiting.")
    assert "'Queue or cron?'" in out


def test_cli_unknown_team_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["roundtable", "q", "--fake", "--team", "no-such-pack"])
    assert rc == 2
    assert "no persona pack 'no-such-pack'" in capsys.readouterr().err


def test_cli_real_pi_without_a_model_says_how_to_set_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["roundtable", "q", "--pi", sys.executable, "--agent-dir", str(tmp_path)])
    assert rc == 2
    assert "pass --model provider/id" in capsys.readouterr().err


def test_configured_model_reads_pi_settings(tmp_path: Path) -> None:
    assert configured_model(tmp_path) is None
    (tmp_path / "settings.json").write_text(
        json.dumps({"defaultProvider": "anthropic", "defaultModel": "claude-x"})
    )
    assert configured_model(tmp_path) == "anthropic/claude-x"


def test_load_team_from_the_bundled_catalog(tmp_path: Path) -> None:
    t = load_team("software-team", tmp_path, tmp_path)
    assert t.lead is not None
    assert t.lead.qualified_id == "official/software-team/tech-lead"
    assert len(t.specialists) >= 1
