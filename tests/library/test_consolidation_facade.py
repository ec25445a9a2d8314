"""``persona_mind.Consolidation``: the Optimizer actor over the Store actor, from a program.

Real files, the real actors: inspect a page, stage a plan (nothing written), apply it once
under the fingerprint CAS, see the receipt in the history, undo it; a preview whose store
moved on is refused as stale; another persona's receipt cannot be undone; a closed facade
says how to open it (M-OPTIMIZE-MANUAL, M-OPTIMIZE-HISTORY).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind import Consolidation, Memory, PersonaMindError
from persona_mind.mind import ForeignOwner, MindRefusal, NotFound

ARCHITECT = "official/software-team/architect"
REVIEWER = "official/software-team/code-reviewer"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


async def _remember(agent: Path, repo: Path, *texts: str) -> list[str]:
    async with Memory(agent_dir=agent, cwd=repo, persona=ARCHITECT) as memory:
        return [(await memory.remember(t, kind="gotcha")).fact.id for t in texts]


@pytest.mark.asyncio
async def test_inspect_stage_apply_history_undo(tmp_path: Path, repo: Path) -> None:
    agent = tmp_path / "agent"
    ids = await _remember(agent, repo, "tests need docker", "the tests need docker running")
    ops = [{"sources": ids, "text": "Integration tests need Docker running"}]
    async with Consolidation(agent_dir=agent, cwd=repo, persona=ARCHITECT) as cons:
        assert cons.default_tier == "stm"  # a project: its STM
        page = await cons.inspect()
        assert sorted(f.id for f in page.entries) == sorted(ids)
        plan = await cons.stage("stm", ops)
        assert plan.fingerprint == page.fingerprint
        assert (await cons.inspect()).fingerprint == page.fingerprint  # staging wrote nothing
        done = await cons.apply(plan)
        assert [f.text for f in done.after] == ["Integration tests need Docker running"]
        assert done.receipt in [row["receipt"] for row in await cons.history()]
        with pytest.raises(MindRefusal) as again:  # applied once: its sources are retired
            await cons.apply_operations("stm", ops, fingerprint=page.fingerprint)
        assert again.value.rule == "plan.superseded_source"
        undone = await cons.undo(done.receipt)
        assert sorted(f.id for f in undone.after) == sorted(ids)
        with pytest.raises(NotFound) as unknown:
            await cons.undo("r_nope")
        assert unknown.value.rule == "undo.unknown"
    async with Memory(agent_dir=agent, cwd=repo, persona=ARCHITECT) as memory:
        assert sorted(f.fact.id for f in await memory.list("stm")) == sorted(ids)


@pytest.mark.asyncio
async def test_apply_operations_refuses_a_changed_store(tmp_path: Path, repo: Path) -> None:
    agent = tmp_path / "agent"
    ids = await _remember(agent, repo, "lint with ruff", "use ruff to lint")
    ops = [{"sources": ids, "text": "Lint every change with ruff"}]
    async with Consolidation(agent_dir=agent, cwd=repo, persona=ARCHITECT) as cons:
        preview = await cons.stage(None, ops)
        await _remember(agent, repo, "a new fact after the preview")
        with pytest.raises(MindRefusal) as stale:
            await cons.apply_operations(None, ops, fingerprint=preview.fingerprint)
        assert stale.value.rule == "plan.stale"
        done = await cons.apply_operations(
            None, ops, fingerprint=(await cons.stage(None, ops)).fingerprint
        )
        assert done.outcome == "applied"


@pytest.mark.asyncio
async def test_only_the_owner_undoes_and_a_closed_facade_says_so(
    tmp_path: Path, repo: Path
) -> None:
    agent = tmp_path / "agent"
    ids = await _remember(agent, repo, "deploys need a ticket", "every deploy needs a ticket")
    async with Consolidation(agent_dir=agent, cwd=repo, persona=ARCHITECT) as cons:
        plan = await cons.stage(
            "stm", [{"sources": ids, "text": "Every deploy needs a change ticket"}]
        )
        receipt = (await cons.apply(plan)).receipt
    async with Consolidation(agent_dir=agent, cwd=repo, persona=REVIEWER) as other:
        with pytest.raises(ForeignOwner):
            await other.undo(receipt, "stm")
    closed = Consolidation(agent_dir=agent, cwd=repo, persona=ARCHITECT)
    with pytest.raises(PersonaMindError, match="async with Consolidation"):
        await closed.history()
