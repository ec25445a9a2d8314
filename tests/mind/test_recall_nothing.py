"""Recall answers what matched, never recent facts as padding (issue 25 item 5, issue 23 item 1).

``memory recall nothingmatches`` returned "The build needs Docker (recent)": the ranker
filled its limit from recency when nothing matched, so an unrelated query looked answered.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind import Memory


@pytest.mark.asyncio
async def test_an_unrelated_query_recalls_nothing(tmp_path: Path) -> None:
    async with Memory(agent_dir=tmp_path / "agent", cwd=tmp_path) as memory:
        await memory.remember("The build needs Docker", kind="gotcha", tier="shared")
        await memory.remember("Deploys go out on Tuesdays", kind="convention", tier="shared")
        assert await memory.recall("nothingmatches") == []
        hits = await memory.recall("which day do deploys go out")
        assert [h.fact.text for h in hits][:1] == ["Deploys go out on Tuesdays"]
        assert all(h.score > 0 for h in hits)
