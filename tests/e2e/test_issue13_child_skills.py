"""Issue 13, Persona item 9 on the real Pi: a persona's resolved skill reaches its child.

Before, every child ran ``--no-skills`` while its prompt listed skills to use. Here the
consultant declares a skill, the host reported it (name → SKILL.md), and the real Pi child
must load exactly that skill: the fake model server sees it in the child's system prompt.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from tests.e2e.test_children_pi import TEAM, backend

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.children import consult
from persona_mind.clock import MonotonicClock
from persona_mind.testing._fake_openai import FakeOpenAI
from persona_mind.testing._pi import PiInstall

pytestmark = pytest.mark.e2e

SKILL_MD = """---
name: threat-model
description: Model the threats of a change (STRIDE-E2E-MARKER).
---
List assets, entry points and threats.
"""


@pytest.mark.asyncio
async def test_declared_skill_is_loaded_by_the_real_child_P_CHILD_13(
    pi: PiInstall, tmp_path: Path
) -> None:
    skill = tmp_path / "skills" / "threat-model"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    critic = next(p for p in TEAM.personas if p.name == "critic")
    critic = msgspec.structs.replace(
        critic, skills=("threat-model",), skill_paths=(str(skill / "SKILL.md"),)
    )
    team = msgspec.structs.replace(
        TEAM, personas=tuple(critic if p.name == "critic" else p for p in TEAM.personas)
    )
    with FakeOpenAI([{"text": "Threats listed."}]) as fake:
        b = backend(pi, fake, tmp_path)
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(b), name="child-runner")
            result = await consult(
                runner,
                team,
                requester="architect",
                active="architect",
                consultant="critic",
                question="What could go wrong?",
                model="fake/fake-model",
                cwd=str(tmp_path),
            )
        assert result.answer == "Threats listed."
        assert "STRIDE-E2E-MARKER" in fake.system_prompt(0)  # the child loaded the skill
