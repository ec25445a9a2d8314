"""Shared fixtures: a small entry type and targets under a temporary agent dir."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from persona_mind.storage import FileStore, Layout, StoreTarget


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    """A small entry type for storage tests, written in the on-disk shape of Mind's facts.

    Its fields are :class:`persona_mind.mind.Fact`'s, in the same order, with defaults, so
    the stores these tests write under a ``Layout`` are real memory stores: ``store check``
    decodes them with Mind's entry type exactly as the reader does (issue 24 H1).
    """

    id: str
    kind: str = "note"
    text: str = ""
    tags: tuple[str, ...] = ()
    persona: str | None = None
    source: str | None = None
    recordedAt: float = 0.0  # noqa: N815 - on-disk camelCase
    lastSeenAt: float = 0.0  # noqa: N815
    expiresAt: float | None = None  # noqa: N815
    status: str = "active"
    supersededBy: str | None = None  # noqa: N815
    derivedFrom: tuple[str, ...] = ()  # noqa: N815


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path / "agent")


@pytest.fixture
def store(layout: Layout) -> FileStore:
    return FileStore(layout, wall=lambda: 1_700_000_000.0, lock_timeout=2.0)


@pytest.fixture
def target(layout: Layout) -> StoreTarget[Fact]:
    return StoreTarget(path=layout.project("demo"), entry_type=Fact)
