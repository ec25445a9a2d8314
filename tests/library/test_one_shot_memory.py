"""``MemoryOptions(one_shot=True)`` (the ``persona-mind memory`` commands): the Store keeps no
inotify watch — a process that reads each store once would only pay for closing it (a kernel
grace period at exit) — and reads and writes are what they are without it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from persona_mind import Memory, MemoryOptions

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inotify (and /proc/self/fd) are Linux's"
)


def _inotify_fds() -> int:
    fds = Path("/proc/self/fd")
    count = 0
    for fd in fds.iterdir():
        try:
            count += os.readlink(fd) == "anon_inode:inotify"
        except OSError:
            continue
    return count


async def _remember_and_recall(tmp_path: Path, *, one_shot: bool) -> tuple[int, list[str]]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    before = _inotify_fds()
    options = MemoryOptions(agent_dir=tmp_path / "agent", cwd=repo, one_shot=one_shot)
    async with Memory(options) as memory:
        await memory.remember("we deploy on Fridays", kind="convention")
        hits = [h.fact.text for h in await memory.recall("deploy")]
        hits += [h.fact.text for h in await memory.recall("deploy")]
        opened = _inotify_fds() - before
    return opened, hits


@pytest.mark.asyncio
async def test_one_shot_memory_opens_no_inotify_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERSONA_MIND_RANKER", "lexical")
    opened, hits = await _remember_and_recall(tmp_path, one_shot=True)
    assert opened == 0
    assert hits == ["we deploy on Fridays"] * 2


@pytest.mark.asyncio
async def test_a_long_lived_memory_keeps_its_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERSONA_MIND_RANKER", "lexical")
    opened, hits = await _remember_and_recall(tmp_path, one_shot=False)
    assert opened == 1
    assert hits == ["we deploy on Fridays"] * 2


def test_merged_options_keep_one_shot() -> None:
    merged = MemoryOptions.merged(MemoryOptions(one_shot=True), cwd="/tmp")
    assert merged.one_shot
    assert merged.cwd == "/tmp"
