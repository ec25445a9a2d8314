"""Where a scope's facts live: store targets under ``<agentDir>/persona-mind/``.

Layout (seed 000 "Durable files", M-STORE-2..5)::

    memory/ltm/<persona>.json     persona LTM        memory/ltm/_shared.json   shared LTM
    memory/project/<project>.json project LTM        memory/stm/<project>.json STM
    backlog/<project>.json        backlog

File names come from the storage layer's collision-safe ``Layout`` (M-SCOPE-14..17): plain
names verbatim, every other name a slug plus a hash of the exact identity, so reserved names,
lossy Unicode folds and Windows device names never make two personas share a file; a
project's file is named after its canonical root path (two clones share memory only once
the user linked them: ``ProjectRef.linked``, ``mind/_links.py``).
Home is not a project (M-SCOPE-18): a scope whose project is ``None`` has no project,
STM or backlog targets.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from persona_mind.mind._errors import AccessRefused
from persona_mind.mind._model import BacklogItem, Fact, Tier
from persona_mind.storage.layout import Layout, project_identity
from persona_mind.storage.port import StoreTarget

__all__ = ("MindScope", "ProjectRef", "find_project")


@dataclass(frozen=True, slots=True)
class ProjectRef:
    """A repository: its canonical root path (the identity) and the root its files are
    named after — itself, or the project it was linked to with the user's approval
    (``mind/_links.py``: a second clone of one repository sharing the first's tiers)."""

    root: str
    linked: str | None = None

    @property
    def files(self) -> str:
        """The root whose project, STM and backlog files this project reads and writes."""
        return self.linked or self.root


def find_project(cwd: str | Path, home: str | Path | None = None) -> ProjectRef | None:
    """The project of ``cwd``: nearest ``.git`` ancestor of the real path (DEC-12).

    ``None`` in home or above it (home is not a project, M-SCOPE-18).  A folder outside any
    repository is its own project (the storage layer's rule).
    """
    real = Path(os.path.realpath(cwd))
    home_real = Path(os.path.realpath(home if home is not None else Path.home()))
    if real == home_real or real in home_real.parents:
        return None
    return ProjectRef(str(project_identity(real, home=home_real)))


@dataclass(frozen=True, slots=True)
class MindScope:
    """One memory scope: profile root, active persona (or ``None``) and project (or home)."""

    agent_dir: Path
    persona: str | None
    project: ProjectRef | None

    @property
    def layout(self) -> Layout:
        return Layout(self.agent_dir)

    @property
    def is_home(self) -> bool:
        return self.project is None

    def fact_target(self, tier: Tier) -> StoreTarget[Fact]:
        """The store file of ``tier``; refuses tiers this scope does not have.

        Memoised per (scope, tier): a turn asks for every tier's target several times and
        building one (slugging, hashing the project root, joining paths) cost more than
        ranking a small store (issue 10, ``before_agent_start`` budget).
        """
        return _fact_target(self, tier)

    def backlog_target(self) -> StoreTarget[BacklogItem]:
        """The project's backlog file (refused in home)."""
        return _backlog_target(self)

    def tiers(self) -> tuple[Tier, ...]:
        """The tiers this scope can read, in injection order."""
        out: list[Tier] = []
        if self.persona is not None:
            out.append("persona")
        out.append("shared")
        if self.project is not None:
            out += ["project", "stm"]
        return tuple(out)

    def _require_project(self, what: str) -> ProjectRef:
        if self.project is None:
            raise AccessRefused(
                "scope.home_not_project",
                f"{what} memory needs a project, and home (or a folder outside any git "
                "repository) is not a project; run inside a repository or use tier "
                "'persona'/'shared'",
            )
        return self.project


@functools.lru_cache(maxsize=256)
def _fact_target(scope: MindScope, tier: Tier) -> StoreTarget[Fact]:
    layout = scope.layout
    if tier == "shared":
        return StoreTarget(layout.shared_ltm, Fact, lock="memory")
    if tier == "persona":
        if scope.persona is None:
            raise AccessRefused(
                "scope.no_persona",
                "no persona is active, so there is no persona memory; select a persona "
                "or use tier 'project' or 'shared'",
            )
        return StoreTarget(layout.ltm(scope.persona), Fact, lock="memory")
    project = scope._require_project(tier)
    path = layout.project(project.files) if tier == "project" else layout.stm(project.files)
    return StoreTarget(path, Fact, lock="memory")


@functools.lru_cache(maxsize=64)
def _backlog_target(scope: MindScope) -> StoreTarget[BacklogItem]:
    project = scope._require_project("backlog")
    return StoreTarget(scope.layout.backlog(project.files), BacklogItem, lock="backlog")
