"""Issue 13, Mind item 7 (M-UI-4): one disclosure toast per turn; the hint inside the budget."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from persona_mind.messages.host import BeforeAgentStart, Input
from persona_mind.mind.inject._planner import TOTAL_TOKENS, InjectionPlan
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore
from tests.mind.conftest import ARCHITECT
from tests.mind.test_session import session, start_event


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "app"
    (root / ".git").mkdir(parents=True)
    return root


async def _fill(s: object, n: int = 40) -> None:
    service = s.service  # type: ignore[attr-defined]
    for i in range(n):  # varied lengths, so the planner can fill the budget to the byte
        await service.remember(
            "convention", f"rule {i} " + "word " * (i * 37 % 150), tier="project"
        )
        await service.remember("note", f"stm {i} " + "detail " * (i * 23 % 110))
        await service.remember("preference", f"pref {i} " + "x" * (i * 53 % 900), tier="persona")


@pytest.mark.asyncio
async def test_disclosures_are_one_short_toast_per_turn_M_UI_4(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    await _fill(s)
    out = await s.before_agent_start(BeforeAgentStart(prompt="rule"))
    assert len(out.disclosures) == 1  # omissions in three sections + clipping: one line
    (line,) = out.disclosures
    assert line.startswith("persona-mind memory: ")
    assert "omitted" in line
    assert len(line) <= 200


@pytest.mark.asyncio
async def test_capture_hint_sits_inside_the_2400_token_budget_M_UI_4(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    await _fill(s)
    nudged = await s.on_input(Input(text="keep in mind the tests are slow"))
    assert nudged.nudge is not None
    out = await s.before_agent_start(BeforeAgentStart(prompt="rule"))
    assert any(sec.startswith("persona-mind hint:") for sec in out.sections)
    total = sum(len(sec.encode("utf-8")) for sec in out.sections)
    assert math.ceil(total / 3) <= TOTAL_TOKENS


@pytest.mark.asyncio
async def test_hint_tokens_are_reserved_from_the_block_budget_M_UI_4(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    """The planner is told the hint's size, so block + hint never exceed 2,400 tokens."""
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    assert s.service is not None
    service = s.service
    reserved: list[int] = []
    real = service.injection

    async def spy(prompt: str, **kw: Any) -> InjectionPlan:
        reserved.append(int(kw.get("reserve_tokens", 0)))
        return await real(prompt, **kw)

    service.injection = spy  # type: ignore[method-assign]
    await s.before_agent_start(BeforeAgentStart(prompt="x"))
    await s.on_input(Input(text="keep in mind the tests are slow"))
    out = await s.before_agent_start(BeforeAgentStart(prompt="x"))
    (hint,) = [sec for sec in out.sections if sec.startswith("persona-mind hint:")]
    assert reserved == [0, math.ceil(len(hint.encode("utf-8")) / 3)]
