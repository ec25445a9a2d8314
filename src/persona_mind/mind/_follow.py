"""Memory that follows the repository: bind a scope to its link, offer links, make them.

Every face opens a scope the same way: the project of ``cwd`` (its canonical path,
M-SCOPE-13), then :func:`follow_repository` asks ``git`` for the repository identity (off
the event loop, bounded, cached), records it in the registry (``mind/_links.py``) and
returns the scope bound to the project root this path was linked to, if the user linked it,
together with what can be offered: the known projects of the same repository this path does
not share memory with yet. Nothing is linked here; a link is :func:`approve_link`, which
the CLI calls for ``memory link ROOT`` and a session for ``/mind link ROOT`` or a confirmed
chat plan (``mind/_link_plans.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from persona_mind.mind._links import (
    Candidate,
    candidates,
    link_project,
    record_project,
    resolve_root,
    unlink_project,
)
from persona_mind.mind._repo_identity import RepoIdentity, repo_identity
from persona_mind.mind._scope import MindScope, ProjectRef
from persona_mind.storage.port import StorePort

__all__ = ("RepoState", "RunBlocking", "approve_link", "follow_repository", "unlink")

R = TypeVar("R")
RunBlocking = Callable[[Callable[[], R]], Awaitable[R]]


@dataclass(frozen=True, slots=True)
class RepoState:
    """What the registry says about the current project: identity, link, candidates."""

    identity: RepoIdentity | None = None
    linked: str | None = None
    offers: tuple[Candidate, ...] = ()

    def lines(self) -> tuple[str, ...]:
        """Status lines for ``/mind status`` and ``memory link``."""
        if self.identity is None:
            return ("repository: no identity (not a git repository with a commit)",)
        out = [f"repository: {self.identity.describe()}"]
        if self.linked:
            out.append(f"linked: shares project memory of {self.linked}")
        out += [f"offer: same repository at {c.root} (`/mind link {c.root}`)" for c in self.offers]
        return tuple(out)


async def _identity(
    root: str, run_blocking: RunBlocking[RepoIdentity | None] | None
) -> RepoIdentity | None:
    if run_blocking is None:
        return repo_identity(root)
    return await run_blocking(lambda: repo_identity(root))


async def follow_repository(
    store: StorePort,
    scope: MindScope,
    now: float,
    *,
    run_blocking: RunBlocking[RepoIdentity | None] | None = None,
) -> tuple[MindScope, RepoState]:
    """``scope`` bound to its approved link (if any) and the registry's state for it.

    Home has no project and nothing to follow. ``run_blocking`` runs the ``git`` calls off
    the loop (the Store's IO thread); ``None`` runs them inline (a one-shot CLI).
    """
    project = scope.project
    if project is None:
        return scope, RepoState()
    identity = await _identity(project.root, run_blocking)
    entries = await record_project(store, scope.layout, project.root, identity, now)
    files = resolve_root(entries, project.root)
    linked = None if files == project.root else files
    bound = dataclasses.replace(scope, project=ProjectRef(project.root, linked))
    offers = tuple(candidates(entries, project.root, identity))
    return bound, RepoState(identity, linked, offers)


async def approve_link(
    store: StorePort,
    scope: MindScope,
    to: str,
    now: float,
    *,
    approved: bool,
    run_blocking: RunBlocking[RepoIdentity | None] | None = None,
) -> tuple[MindScope, Candidate]:
    """Link the scope's project to ``to`` (refused without ``approved``); the new scope."""
    project = scope.project
    if project is None:
        from persona_mind.mind._errors import AccessRefused  # noqa: PLC0415 - rare path

        raise AccessRefused("scope.home_not_project", "home is not a project; nothing to link")
    identity = await _identity(project.root, run_blocking)
    chosen = await link_project(
        store, scope.layout, project.root, identity, to, approved=approved, now=now
    )
    return dataclasses.replace(scope, project=ProjectRef(project.root, chosen.root)), chosen


async def unlink(store: StorePort, scope: MindScope) -> tuple[MindScope, str | None]:
    """Undo the scope's link; the scope on its own files again and the root it shared."""
    project = scope.project
    if project is None:
        return scope, None
    was = await unlink_project(store, scope.layout, project.root)
    return dataclasses.replace(scope, project=ProjectRef(project.root)), was
