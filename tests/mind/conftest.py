"""Fixtures for Mind tests: a manual clock, an in-memory store and a project scope."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from persona_mind.mind import MemoryService, MindScope, ProjectRef
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore

ARCHITECT = "official/software-team/architect"
REVIEWER = "official/software-team/reviewer"


@pytest.fixture(autouse=True)
def _no_persona_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """M-VERIFY-1: no PI_PERSONA_* variable of the developer's shell leaks into a test."""
    for name in [n for n in os.environ if n.startswith("PI_PERSONA")]:
        monkeypatch.delenv(name)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def scope(tmp_path: Path) -> MindScope:
    return MindScope(tmp_path / "agent", ARCHITECT, ProjectRef(str(tmp_path / "repo")))


@pytest.fixture
def svc(store: FakeStore, clock: ManualClock, scope: MindScope) -> MemoryService:
    return MemoryService(store, clock, scope)


def service_for(
    store: FakeStore, clock: ManualClock, scope: MindScope, persona: str | None
) -> MemoryService:
    """The same project seen by another persona."""
    return MemoryService(store, clock, MindScope(scope.agent_dir, persona, scope.project))
