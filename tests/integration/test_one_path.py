"""One path per operation (issue 22 item 6): every face recalls and injects the same facts.

For the same store and prompt, ``Memory.recall``, ``persona-mind memory recall`` and
``memory inject``, the MCP server's ``memory`` tool and a simulated Pi session (the Mind
feature over the real runtime) return the same facts in the same order — with the
``semantic`` extra's model ranking and without it (``PERSONA_MIND_RANKER=lexical``, the
switch every process reads; the tests' default).  Real parts throughout: real files, the
Store actor, a real ``persona-mind mcp`` process over stdio, the CLI's own entry point.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from persona_mind import Memory
from persona_mind.cli import main
from persona_mind.embedding import shared_edge
from persona_mind.sim import SimHost

HAS_MODEL = importlib.util.find_spec("wordllama") is not None
PERSONA = "official/software-team/architect"
QUERY = "which weekday can we ship to production"
FACTS = (  # (tier, kind, text): words and meanings overlap differently, so rankers differ
    ("project", "convention", "Deploys go out on Tuesdays after the change freeze"),
    ("project", "invariant", "The production database is read-only for every service"),
    ("project", "gotcha", "Shipping a migration needs the schema review first"),
    ("persona", "preference", "Prefer small releases that can be rolled back in minutes"),
    ("shared", "convention", "Which branch to ship from: always main, never a tag"),
    ("stm", "note", "The weekday standup moved to 10:30"),
    ("project", "rationale", "We pin the toolchain so production builds are reproducible"),
    ("stm", "note", "Release candidates are cut on Monday evenings"),
)


async def _seed(agent: Path, repo: Path) -> None:
    async with Memory(agent_dir=agent, cwd=repo, persona=PERSONA) as memory:
        for tier, kind, text in FACTS:
            await memory.remember(text, kind=kind, tier=tier)  # type: ignore[arg-type]


async def _cli(agent: Path, repo: Path, *argv: str) -> Any:
    """One ``persona-mind memory …`` process (its own Store actor, its own model load)."""
    memory = ["memory", "--agent-dir", str(agent), "--cwd", str(repo), "--persona", PERSONA]
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "persona_mind.cli", *memory, *argv],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    """An agent dir with software-team installed and chosen for new sessions."""
    agent = tmp_path / "agent"
    assert main(["pack", "install", "software-team", "--agent-dir", str(agent)]) == 0
    assert main(["persona", "default", "set", "software-team", "--agent-dir", str(agent)]) == 0
    return agent


async def _mcp_recall(agent: Path, repo: Path, env: dict[str, str]) -> list[str]:
    pytest.importorskip("mcp", reason="the MCP server is the optional [mcp] extra (in [test])")
    from tests.mcp.conftest import mcp_client  # noqa: PLC0415 - needs the extra

    async with mcp_client(agent, repo, "--persona", "architect", env=env) as client:
        result = await client.call_tool("memory", {"action": "recall", "query": QUERY})
        assert not result.is_error, result.content
        assert result.structured_content is not None
        return list(result.structured_content["ids"])


@pytest.mark.asyncio
@pytest.mark.parametrize("ranker", ["lexical", "semantic"])
async def test_every_face_recalls_and_injects_the_same_facts_in_the_same_order(
    tmp_path: Path, agent: Path, monkeypatch: pytest.MonkeyPatch, ranker: str
) -> None:
    env = {"PERSONA_MIND_RANKER": "lexical"}
    if ranker == "semantic":
        if not HAS_MODEL:
            pytest.skip("the semantic extra (wordllama) is not installed")
        monkeypatch.delenv("PERSONA_MIND_RANKER")
        env = {}
        assert shared_edge().load_now().hybrid  # this process's faces; the MCP server loads its own
    repo = tmp_path / "work" / "app"
    (repo / ".git").mkdir(parents=True)
    await _seed(agent, repo)

    async with Memory(agent_dir=agent, cwd=repo, persona=PERSONA) as memory:
        hits = await memory.recall(QUERY)
    library = [h.fact.id for h in hits]
    # only matches (recency never fills a recall), from more than one tier of the scope
    assert len(library) >= 3, [h.fact.text for h in hits]
    assert len({h.tier for h in hits}) >= 2, [h.tier for h in hits]
    semantic_reasons = [h.reason for h in hits if "semantic" in h.reason]
    assert bool(semantic_reasons) == (ranker == "semantic"), [h.reason for h in hits]

    cli = await _cli(agent, repo, "--json", "recall", QUERY)
    assert [h["id"] for h in cli["hits"]] == library
    assert await _mcp_recall(agent, repo, env) == library

    async with SimHost(agent_dir=agent, cwd=repo) as sim:
        await sim.start()
        used = await sim.command("/persona use architect")
        assert used.level == "info", used.text
        recalled = await sim.call_tool("memory", {"action": "recall", "query": QUERY})
        assert not recalled.is_error, recalled.text
        assert recalled.details["ids"] == library
        turn = await sim.turn(QUERY)

    # the injection a turn gets: the library's plan, the CLI's, the session's block
    async with Memory(agent_dir=agent, cwd=repo, persona=PERSONA) as memory:
        plan = await memory.inject(QUERY)
    assert plan.text  # a block to compare, not two empty ones
    cli_plan = await _cli(agent, repo, "--json", "inject", QUERY)
    assert cli_plan["ids"] == [item.id for item in plan.items]
    assert cli_plan["text"] == plan.text
    assert plan.text in turn.injection.sections  # the same block, verbatim
