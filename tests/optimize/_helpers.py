"""Shared setup for consolidation tests: a real profile, a project and seeded facts."""

from __future__ import annotations

from pathlib import Path

from persona_mind.actors.optimizer._consolidator import Consolidator
from persona_mind.mind import MindScope, find_project
from persona_mind.mind._model import Fact, Tier
from persona_mind.mind.facts import _rules as fx
from persona_mind.storage import FileStore, Layout
from persona_mind.testing import ManualClock

ARCHITECT = "official/software-team/architect"
REVIEWER = "official/software-team/reviewer"


def scope_for(tmp_path: Path, persona: str | None = ARCHITECT) -> MindScope:
    repo = tmp_path / "code" / "app"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    return MindScope(tmp_path / "agent", persona, find_project(repo, tmp_path / "home"))


def engine_for(tmp_path: Path, clock: ManualClock) -> FileStore:
    engine = FileStore(Layout(tmp_path / "agent"))
    engine.wall = clock.wall
    return engine


def consolidator(tmp_path: Path, clock: ManualClock) -> Consolidator:
    return Consolidator(engine_for(tmp_path, clock))


def seed(
    tmp_path: Path,
    clock: ManualClock,
    texts: list[str],
    *,
    tier: Tier = "project",
    persona: str | None = ARCHITECT,
) -> list[Fact]:
    """Record ``texts`` with the same pure rule ``remember`` uses, durably (real files)."""
    target = scope_for(tmp_path, persona).fact_target(tier)
    engine = engine_for(tmp_path, clock)
    out: list[Fact] = []
    for text in texts:
        draft = fx.validate_draft("convention", text, ["t"])
        holder: list[Fact] = []

        def step(
            rows: tuple[Fact, ...], draft: fx.Draft = draft, holder: list[Fact] = holder
        ) -> tuple[Fact, ...]:
            new, row, _ = fx.record(rows, tier, draft, persona=persona, now=clock.wall())
            holder.append(row)
            return new

        engine.mutate(target, step)
        out.append(holder[0])
        clock.advance(1)
    return out


def rows(tmp_path: Path, clock: ManualClock, tier: Tier = "project") -> tuple[Fact, ...]:
    snap = engine_for(tmp_path, clock).read(scope_for(tmp_path).fact_target(tier))
    return () if snap is None else snap.entries
