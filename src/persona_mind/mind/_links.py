"""Known projects, their repository identity and the links between their paths.

Why: project memory is named after the canonical path (M-SCOPE-13), which is right — two
folders called ``app`` must never share memory — but it leaves a second clone or a moved
checkout empty. This registry records, per canonical project root, the repository identity
``git`` gives (``mind/_repo_identity.py``) and an optional ``linkedTo``: the root whose
project tiers (project LTM, STM, backlog) this path shares. The path stays the identity; a
link only says which files a path reads and writes, and it is made only by an explicit
approval (``persona-mind memory link ROOT``, ``/mind link``, or a chat plan the user
replied to) — never because two identities happen to match.

The registry is one store file, ``<agentDir>/persona-mind/memory/repositories.json``,
written through the StorePort like every other store (locked, atomic, fsynced, a corrupt
file refused — never read as empty). A link always names a root that is not itself linked,
so resolution is one step and there are no chains or cycles.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from persona_mind.mind._errors import AccessRefused, InvalidArgument, NotFound
from persona_mind.mind._repo_identity import RepoIdentity
from persona_mind.storage.layout import Layout
from persona_mind.storage.port import StorePort, StoreTarget

__all__ = (
    "Candidate",
    "ProjectRecord",
    "candidates",
    "link_project",
    "record_project",
    "registry_target",
    "resolve_root",
    "unlink_project",
)


class ProjectRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One known project: its canonical root, its repository identity and its link."""

    id: str
    """The canonical project root (M-SCOPE-13): unique in the registry."""
    roots: tuple[str, ...] = ()
    remote: str | None = None
    linkedTo: str | None = None  # noqa: N815 - camelCase on disk, like every store
    seenAt: float = 0.0  # noqa: N815

    @property
    def identity(self) -> RepoIdentity | None:
        return RepoIdentity(self.roots, self.remote) if self.roots else None


def registry_target(layout: Layout) -> StoreTarget[ProjectRecord]:
    """``memory/repositories.json`` (under the memory lock: a link changes memory scope)."""
    return StoreTarget(layout.root / "memory" / "repositories.json", ProjectRecord, lock="memory")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A known project the current path could share memory with."""

    root: str
    identity: RepoIdentity
    paths: tuple[str, ...]
    """Every known path already sharing that project's tiers (its root first)."""


def resolve_root(entries: tuple[ProjectRecord, ...], root: str) -> str:
    """The root whose project files ``root`` uses: its link, else itself."""
    record = next((r for r in entries if r.id == root), None)
    return record.linkedTo if record is not None and record.linkedTo else root


def candidates(
    entries: tuple[ProjectRecord, ...], root: str, identity: RepoIdentity | None
) -> list[Candidate]:
    """Known projects of the same repository (shared root commit and remote) that ``root``
    does not already share memory with; a project that is itself linked is offered as the
    root it shares."""
    if identity is None:
        return []
    mine = resolve_root(entries, root)
    found: dict[str, Candidate] = {}
    for record in entries:
        other = record.identity
        if record.id == root or other is None or not identity.same_repository(other):
            continue
        target = record.linkedTo or record.id
        if target == mine or target in found:
            continue
        head = next((r for r in entries if r.id == target), record)
        paths = (target, *(r.id for r in entries if r.linkedTo == target and r.id != root))
        found[target] = Candidate(target, head.identity or other, paths)
    return sorted(found.values(), key=lambda c: c.root)


async def record_project(
    store: StorePort, layout: Layout, root: str, identity: RepoIdentity | None, now: float
) -> tuple[ProjectRecord, ...]:
    """Record (or refresh) ``root``'s identity; the registry's entries after it.

    Writes only when something changed (a first visit, a new remote); a path without an
    identity or without a remote is not recorded (there is nothing to match it by) but is
    still resolved.
    """
    target = registry_target(layout)
    snap = await store.read(target)
    entries = () if snap is None else snap.entries
    if identity is None or identity.remote is None:
        return entries  # nothing to match it by (``RepoIdentity.same_repository``)
    current = next((r for r in entries if r.id == root), None)
    if current is not None and current.identity == identity:
        return entries

    def step(rows: tuple[ProjectRecord, ...]) -> tuple[ProjectRecord, ...]:
        old = next((r for r in rows if r.id == root), None)
        new = ProjectRecord(
            id=root,
            roots=identity.roots,
            remote=identity.remote,
            linkedTo=None if old is None else old.linkedTo,
            seenAt=now,
        )
        return (*(r for r in rows if r.id != root), new)

    return (await store.mutate(target, step)).entries


async def link_project(
    store: StorePort,
    layout: Layout,
    root: str,
    identity: RepoIdentity | None,
    to: str,
    *,
    approved: bool,
    now: float,
) -> Candidate:
    """Make ``root`` share ``to``'s project tiers — only with the user's approval, and only
    when ``to`` is a known project of the same repository (shared root and remote)."""
    if not approved:
        raise AccessRefused(
            "link.unapproved",
            "linking project memory needs the user's approval; run `persona-mind memory "
            "link ROOT` yourself, or confirm the chat plan after the user agreed",
        )
    if identity is None:
        raise InvalidArgument(
            "link.no_identity",
            f"{root} has no repository identity (not a git repository, no commit yet, or "
            "git is unavailable); only clones of one repository can share project memory",
        )
    target = registry_target(layout)
    result: list[Candidate] = []

    def step(rows: tuple[ProjectRecord, ...]) -> tuple[ProjectRecord, ...]:
        offered = {c.root: c for c in candidates(rows, root, identity)}
        chosen = offered.get(resolve_root(rows, to))
        if chosen is None:
            known = ", ".join(offered) or "none"
            raise NotFound(
                "link.not_candidate",
                f"{to} is not a known clone of this repository (same root commit and "
                f"remote); candidates: {known}. `persona-mind memory link` lists them",
            )
        result.append(chosen)
        old = next((r for r in rows if r.id == root), None)
        new = ProjectRecord(
            id=root,
            roots=identity.roots,
            remote=identity.remote,
            linkedTo=chosen.root,
            seenAt=now if old is None else old.seenAt,
        )
        # whoever shared ``root``'s files follows it to the new root: links stay one step
        moved = tuple(
            msgspec.structs.replace(r, linkedTo=chosen.root) if r.linkedTo == root else r
            for r in rows
            if r.id != root
        )
        return (*moved, new)

    await store.mutate(target, step)
    return result[0]


async def unlink_project(store: StorePort, layout: Layout, root: str) -> str | None:
    """Stop ``root`` sharing another project's tiers; the root it shared, or ``None``.

    The shared files are untouched: the other path keeps them, this path is empty again
    (its own files, if it had any before the link, come back).
    """
    target = registry_target(layout)
    snap = await store.read(target)
    record = None if snap is None else next((r for r in snap.entries if r.id == root), None)
    if record is None or record.linkedTo is None:
        return None
    was = record.linkedTo

    def step(rows: tuple[ProjectRecord, ...]) -> tuple[ProjectRecord, ...]:
        return tuple(msgspec.structs.replace(r, linkedTo=None) if r.id == root else r for r in rows)

    await store.mutate(target, step)
    return was
