"""A multi-megabyte prompt is ranked on its head and tail (the search terms of 4 MB are
hundreds of milliseconds of CPU in one piece, past the turn's fail-open)."""

from __future__ import annotations

import pytest

from persona_mind.mind import MemoryService
from persona_mind.mind._service import RANK_CHARS, ranking_text


def test_ranking_text_keeps_a_short_prompt_and_bounds_a_long_one() -> None:
    assert ranking_text("why does CI fail") == "why does CI fail"
    long = "head " + "x" * (4 << 20) + " tail"
    ranked = ranking_text(long)
    assert len(ranked) <= RANK_CHARS + 1
    assert ranked.startswith("head ")
    assert ranked.endswith(" tail")


@pytest.mark.asyncio
async def test_a_question_below_a_huge_paste_still_finds_its_fact(svc: MemoryService) -> None:
    found, _ = await svc.remember(
        "gotcha", "The flaky integration test needs REDIS_URL set", tier="project"
    )
    await svc.remember("note", "Zebra crossings are painted white", tier="project")
    paste = "log line without meaning\n" * 200_000  # ~5 MB
    plan = await svc.injection(
        paste + "zebra middle\n" + paste + "why is the integration test flaky?"
    )
    ids = [item.id for item in plan.items]
    assert found.fact.id in ids
    assert all("Zebra" not in line for line in plan.text.splitlines())  # the middle is not read
