"""One ``MemoryOptions`` value binds ``Memory``, ``SyncMemory`` and ``Consolidation`` to a scope.

The three facades took the same four keyword arguments each; the options value says them
once. These tests open each facade from one value over real files and check that they bind
the same scope and read the same clock, that the keyword arguments still work, and that a
keyword given beside the value overrides its field.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from persona_mind import Consolidation, Memory, MemoryOptions, SyncMemory
from persona_mind.testing import ManualClock

PERSONA = "official/software-team/architect"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.mark.asyncio
async def test_one_value_binds_memory_sync_memory_and_consolidation_alike(
    tmp_path: Path, repo: Path
) -> None:
    """A fact remembered through ``Memory`` is read back through ``SyncMemory`` and seen by
    ``Consolidation``'s inspection: all three opened from the same ``MemoryOptions``."""
    clock = ManualClock()
    options = MemoryOptions(agent_dir=tmp_path / "agent", cwd=repo, persona=PERSONA, clock=clock)
    async with Memory(options) as mem:
        found = await mem.remember("the cache is per tenant", kind="invariant", tier="project")
        scope = mem.scope
        assert mem.clock is clock
    with SyncMemory(options) as sync:
        assert sync.scope == scope
        assert sync.read(found.fact.id).fact.text == "the cache is per tenant"
    async with Consolidation(options) as cons:
        assert cons.clock is clock
        page = await cons.inspect("project")
    assert found.fact.id in {row.id for row in page.entries}


@pytest.mark.asyncio
async def test_keywords_alone_bind_the_same_scope_as_the_value(tmp_path: Path, repo: Path) -> None:
    """The keyword arguments keep working, and give the same scope as the value."""
    options = MemoryOptions(agent_dir=tmp_path / "agent", cwd=repo, persona=PERSONA)
    async with Memory(options) as by_value:
        expected = by_value.scope
    async with Memory(agent_dir=tmp_path / "agent", cwd=repo, persona=PERSONA) as by_keyword:
        assert by_keyword.scope == expected
        assert by_keyword.options == options


def test_a_keyword_overrides_its_field_and_none_keeps_it(tmp_path: Path) -> None:
    """``persona=`` beside the value replaces the value's persona; ``None`` leaves it."""
    clock = ManualClock()
    options = MemoryOptions(agent_dir=tmp_path / "agent", persona=PERSONA, clock=clock)
    other = "official/software-team/reviewer"
    assert MemoryOptions.merged(options, persona=other) == dataclasses.replace(
        options, persona=other
    )
    assert MemoryOptions.merged(options, persona=None, cwd=None) == options
    assert MemoryOptions.merged(None) == MemoryOptions()
    memory = Memory(options, persona=other)  # not entered: construction binds nothing yet
    assert (memory.persona, memory.clock, memory.agent_dir) == (other, clock, tmp_path / "agent")
    consolidation = Consolidation(options, persona=other, owner="test")
    assert (consolidation.persona, consolidation.owner) == (other, "test")


def test_the_value_is_frozen() -> None:
    """One value can be handed to several facades: none of them can change it."""
    options = MemoryOptions(persona=PERSONA)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.persona = "official/software-team/reviewer"  # type: ignore[misc]
