"""A store as large as the limits allow: one project LTM file just under 16 MiB.

Used by ``bench/bridge.py`` (the largest-store first turn, issue 15 item 9) and the bridge
tests. The facts are varied prose so the index has a realistic vocabulary; the file is
written through the real engine (atomic write, fsync), so it is exactly what a user's
store would be after ~19,000 ``remember`` calls.
"""

from __future__ import annotations

import random
from pathlib import Path

from persona_mind.mind import Fact, MindScope
from persona_mind.mind._scope import find_project
from persona_mind.mind.recall._retrieval import FactIndex
from persona_mind.storage import MAX_STORE_BYTES, FileStore, Layout, StoreTarget

__all__ = ("big_target", "build_big_index", "write_big_store")

_WORDS = [
    f"{stem}{i}" for stem in ("parser", "cache", "retry", "schema", "token") for i in range(800)
]


def write_big_store(
    agent_dir: Path,
    cwd: Path,
    *,
    facts: int = 19_000,
    seed: int = 15,
    home: Path | None = None,
    row_bytes: int | None = None,
) -> int:
    """Write ``facts`` project facts for ``cwd``; returns the file size (≤ 16 MiB).

    ``row_bytes`` sizes each row (default: as large as fills the 16 MiB limit); the bridge
    benchmark's 1,000-fact store uses rows of a typical remembered fact (~400 bytes).
    """
    rng = random.Random(seed)
    project = find_project(cwd, home)
    assert project is not None, f"{cwd} is not a project (home?)"
    scope = MindScope(agent_dir, None, project)
    target = scope.fact_target("project")
    # bytes per row, JSON overhead included
    budget = row_bytes if row_bytes is not None else (MAX_STORE_BYTES - 64 * 1024) // facts
    rows = []
    for i in range(facts):
        words: list[str] = []
        size = 0
        while size < budget - 240:  # the row's fields and their names take ~220 bytes
            word = rng.choice(_WORDS)
            words.append(word)
            size += len(word) + 1
        rows.append(
            Fact(
                id=f"m_{i:08x}",
                kind="note",
                text=" ".join(words),
                tags=(rng.choice(_WORDS),),
                recordedAt=1_700_000_000.0 + i,
                lastSeenAt=1_700_000_000.0 + i,
            )
        )
    store = FileStore(Layout(agent_dir))
    store.mutate(target, lambda _old: tuple(rows))
    return target.path.stat().st_size


def big_target(agent: Path, repo: Path) -> StoreTarget[Fact]:
    """The project LTM file :func:`write_big_store` wrote for ``repo`` under ``agent``."""
    project = find_project(repo)
    assert project is not None
    return MindScope(agent, None, project).fact_target("project")


def build_big_index(agent: Path, target: StoreTarget[Fact]) -> FactIndex:
    """Decode ``target`` with a fresh engine (no cached decode) and build its index: the
    load the Store's IO thread does for the first turn on that store."""
    snapshot = FileStore(Layout(agent)).read(target)
    assert snapshot is not None
    return FactIndex.build(snapshot.entries, None, {})
