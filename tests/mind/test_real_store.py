"""Mind over the real file store: paths, lock domains, durability, corruption (M-STORE via Mind)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from persona_mind.mind import MemoryService, MindScope, MindSettings, find_project
from persona_mind.mind._commands import MindCommandContext, handle_mind_command
from persona_mind.testing import ManualClock, real_store
from persona_mind.testing._memstore import MemoryStore
from tests.mind.conftest import ARCHITECT


@asynccontextmanager
async def real(tmp_path: Path, persona: str | None = ARCHITECT) -> AsyncIterator[MemoryService]:
    """A service over the Store actor on real files (each one: another process's view)."""
    repo = tmp_path / "code" / "app"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    agent = tmp_path / "agent"
    scope = MindScope(agent, persona, find_project(repo, tmp_path / "home"))
    clock = ManualClock()
    async with real_store(agent, clock=clock) as store:
        yield MemoryService(store, clock, scope)


@pytest.mark.asyncio
async def test_layout_on_disk_M_STORE_1_5(tmp_path: Path) -> None:
    async with real(tmp_path) as svc:
        await svc.remember("preference", "terse answers", tier="persona")
        await svc.remember("convention", "shared rule", tier="shared")
        await svc.remember("convention", "project rule", tier="project")
        await svc.remember("note", "working note")
        await svc.backlog_add("a task")
    root = tmp_path / "agent" / "persona-mind"
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.json"))
    assert "memory/ltm/_shared.json" in files
    assert any(f.startswith("memory/ltm/") and f != "memory/ltm/_shared.json" for f in files)
    assert sum(f.startswith("memory/project/") for f in files) == 1
    assert sum(f.startswith("memory/stm/") for f in files) == 1
    assert sum(f.startswith("backlog/") for f in files) == 1


@pytest.mark.asyncio
async def test_persona_names_never_share_a_file_M_SCOPE_14_17(tmp_path: Path) -> None:
    names = ["official/x/con", "official/x/CON", "custom/x/café", "custom/x/cafe", "shared"]
    paths = {MindScope(tmp_path, n, None).fact_target("persona").path for n in names}
    assert len(paths) == len(names)
    assert MindScope(tmp_path, "x", None).fact_target("shared").path not in paths


@pytest.mark.asyncio
async def test_durable_across_service_instances(tmp_path: Path) -> None:
    async with real(tmp_path) as first:
        found, _ = await first.remember("gotcha", "docker must be running", tier="project")
    # a new process, another owner: still the project's
    async with real(tmp_path, persona=None) as second:
        assert [f.id for f in await second.list_facts("project")] == [found.fact.id]


@pytest.mark.asyncio
async def test_corrupt_store_is_reported_not_read_as_empty_M_STORE_11(tmp_path: Path) -> None:
    async with real(tmp_path) as svc:
        await svc.remember("convention", "project rule", tier="project")
        path = svc.scope.fact_target("project").path
        path.write_bytes(b'{"version": 1, "sequence": 1, "entr')
        report = await handle_mind_command("doctor", MindCommandContext(svc, MindSettings()))
    assert report.level == "warning"
    assert "project: PROBLEM" in report.text


@pytest.mark.asyncio
async def test_shared_memory_store_fake_is_compatible(tmp_path: Path) -> None:
    clock = ManualClock()
    store = MemoryStore(wall=clock.wall)
    scope = MindScope(tmp_path, ARCHITECT, find_project(tmp_path / "r", tmp_path / "home"))
    svc = MemoryService(store, clock, scope)
    stm, _ = await svc.remember("note", "x marks the spot")
    await svc.promote(stm.fact.id)
    assert [f.text for f in await svc.list_facts("project")] == ["x marks the spot"]
