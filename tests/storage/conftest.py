"""Shared fixtures: a small entry type and targets under a temporary agent dir."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from persona_mind.storage import FileStore, Layout, StoreTarget


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    """A minimal entry type for storage tests."""

    id: str
    text: str = ""


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path / "agent")


@pytest.fixture
def store(layout: Layout) -> FileStore:
    return FileStore(layout, wall=lambda: 1_700_000_000.0, lock_timeout=2.0)


@pytest.fixture
def target(layout: Layout) -> StoreTarget[Fact]:
    return StoreTarget(path=layout.project("demo"), entry_type=Fact)
