"""The children section of the demo runs offline on real fake-pi processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.cli._demo_children import demo_children
from persona_mind.clock import MonotonicClock


@pytest.mark.asyncio
async def test_demo_children_narrates_a_consult_and_a_roundtable(tmp_path: Path) -> None:
    lines: list[str] = []
    async with ActorSystem(clock=MonotonicClock()) as system:
        await demo_children(system, lines.append, workspace=tmp_path)
    text = "\n".join(lines)
    assert "[consult official/software-team/security-reviewer for architect" in text
    assert "two sibling consults in parallel: ['ConsultResult', 'ConsultResult']" in text
    assert "refused before launch: persona 'architect' cannot consult itself" in text
    for phase in ("selection", "independent", "revision", "synthesis", "done"):
        assert f"round-table phase: {phase}" in text
    assert text.rstrip().endswith("measure for a week before revisiting.")  # scripted content
