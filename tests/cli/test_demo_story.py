"""`persona-mind demo` (issue 17, scope 7): the user's story first, internals after, next steps;
a given --agent-dir is used, kept, and gets nothing written beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from persona_mind.cli import main


def test_the_demo_tells_the_story_first_and_keeps_the_given_agent_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = tmp_path / "mine"
    agent = parent / "agent"
    assert main(["demo", "--agent-dir", str(agent), "--json"]) == 0
    lines: list[str] = json.loads(capsys.readouterr().out)["output"]
    text = "\n".join(lines)
    story, internals, steps = (
        text.index("what you get"),
        text.index("internals"),
        text.index("== next steps =="),
    )
    assert story < text.index("-- persona:") < text.index("-- mind:") < internals
    assert text.index("/persona-roundtable synthesis") < internals
    assert internals < text.index("-- supervised actors --") < steps
    assert "(fake)" not in text  # the round-table's sections carry scripted content
    assert "## Decision\n   Stay on JSON files now" in text
    assert f"memory --agent-dir {agent} recall docker --json" in text  # next steps use it
    assert [p.name for p in parent.iterdir()] == ["agent"]  # nothing beside it
    assert any((agent / "persona-mind").rglob("*.json"))  # the demo's memory is kept
