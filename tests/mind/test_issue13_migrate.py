"""Issue 13, Mind item 5 (M-MIGRATE-1/9): the documented legacy layouts, one fixture each,
persona LTM inside a session, and no "0 file(s) read" toast on every first turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.mind import MemoryService, MindScope
from persona_mind.mind.migrate._legacy import LegacyImport, legacy_persona_file
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore
from tests.mind.conftest import ARCHITECT
from tests.mind.test_migrate import iso, legacy, run, slug, write
from tests.mind.test_session import session, start_event


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "app"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.mark.asyncio
async def test_no_import_toast_when_there_is_nothing_to_import_M_MIGRATE_9(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    for sid in ("s1", "s2"):  # the first turn of every session
        s = session(store, clock, tmp_path)
        s.start(start_event(repo, sid=sid), persona=ARCHITECT, generation=1)
        assert await s.maintenance() is None


@pytest.mark.asyncio
async def test_import_is_announced_once_when_it_read_something_M_MIGRATE_9(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    assert s.service is not None
    write(legacy(s.service) / "memory/ltm/_shared.json", [{"kind": "note", "text": "a"}])
    line = await s.maintenance()
    assert line is not None
    assert "1 file(s) read" in line
    assert await s.maintenance() is None  # shown once
    again = session(store, clock, tmp_path)  # the next session: unchanged, no toast
    again.start(start_event(repo, sid="s2"), persona=ARCHITECT, generation=1)
    assert await again.maintenance() is None


@pytest.mark.asyncio
async def test_legacy_persona_ltm_is_imported_in_a_session_once_M_MIGRATE_1(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    """Layout `memory/ltm/<persona>.json`: claimed by the first persona of that bare name."""
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    assert s.service is not None
    svc = s.service
    path = legacy(svc) / "memory/ltm" / f"{legacy_persona_file('architect')}.json"
    write(path, [{"kind": "preference", "text": "terse answers"}])
    assert await s.maintenance() is not None
    assert [f.text for f in store.rows(svc.scope.fact_target("persona"))] == ["terse answers"]
    other = "custom/another-team/architect"  # the same bare name in another pack
    s2 = session(store, clock, tmp_path)
    s2.start(start_event(repo, sid="s2"), persona=other, generation=2)
    assert s2.service is not None
    await s2.maintenance()
    assert store.rows(s2.service.scope.fact_target("persona")) == ()  # never merged twice


@pytest.mark.asyncio
async def test_legacy_project_ltm_layout_M_MIGRATE_1(
    svc: MemoryService, store: FakeStore, clock: ManualClock
) -> None:
    """Layout `memory/project/<slug>.json` (the seed names project LTM files)."""
    write(
        legacy(svc) / "memory/project" / f"{slug(svc)}.json",
        [{"kind": "convention", "text": "use tabs", "recordedAt": iso(clock, -10)}],
    )
    await run(LegacyImport(svc))
    assert [f.text for f in store.rows(svc.scope.fact_target("project"))] == ["use tabs"]


@pytest.mark.asyncio
async def test_whole_directory_scan_finds_this_projects_older_slugs_M_MIGRATE_1(
    svc: MemoryService, store: FakeStore, clock: ManualClock, scope: MindScope
) -> None:
    """Layout `memory/stm/*-<root digest>.json`: older builds slugged the basename
    differently; every file of this project's digest is read, other projects' never."""
    digest = slug(svc).rsplit("-", 1)[1]
    root = legacy(svc)
    write(root / "memory/stm" / f"Old_Name-{digest}.json", [{"kind": "note", "text": "mine"}])
    write(root / "memory/stm" / f"{digest}.json", [{"kind": "note", "text": "bare digest"}])
    write(root / "memory/stm" / f"app-{'0' * 24}.json", [{"kind": "note", "text": "not mine"}])
    write(
        root / "backlog" / f"older-{digest}.json",
        [{"text": "ship it", "status": "open", "createdAt": iso(clock)}],
    )
    await run(LegacyImport(svc))
    texts = sorted(f.text for f in store.rows(svc.scope.fact_target("stm")))
    assert texts == ["bare digest", "mine"]
    assert [b.text for b in await svc.backlog_list()] == ["ship it"]
