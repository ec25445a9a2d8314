"""The team snapshot other parts consume (child runner: consult, round-table).

Every member is resolved by the same resolver as direct persona mode, from the session's
retained snapshot, so a consulted persona receives its own awareness package
(P-RESOLVER-20) and later store changes never leak in (P-BINDING-4).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from persona_mind.persona._resolver import Resolver
from persona_mind.persona.packs._model import Pack
from persona_mind.persona.workspace._files import Workspace

__all__ = ("TeamMember", "TeamSnapshot", "resolve_team")


@dataclass(frozen=True, slots=True)
class TeamMember:
    """One persona of the team, fully resolved."""

    name: str
    role: str
    """``generalist`` (the ``[G]`` lead) or ``specialist``."""
    description: str
    identity: str
    """``<source>/<pack>/<persona>``: the key Mind scopes memory by."""
    system_prompt: str
    skills: tuple[str, ...]
    tools: tuple[str, ...]
    """Declared Pi built-in tools (empty: the child runner's read-only default)."""
    model: str | None


@dataclass(frozen=True, slots=True)
class TeamSnapshot:
    """A session's team as its retained snapshot defines it."""

    pack_ref: str
    version: str
    revision: str
    root: Path
    members: tuple[TeamMember, ...]

    @property
    def lead(self) -> TeamMember | None:
        """The ``[G]`` lead (``None`` only for a legacy workspace roster)."""
        return next((m for m in self.members if m.role == "generalist"), None)

    @property
    def specialists(self) -> tuple[TeamMember, ...]:
        """Every specialist, roster order."""
        return tuple(m for m in self.members if m.role != "generalist")

    def member(self, name: str) -> TeamMember | None:
        """The member called ``name``."""
        return next((m for m in self.members if m.name == name), None)


def resolve_team(
    pack: Pack, workspace: Workspace, resolver: Resolver | None = None
) -> TeamSnapshot:
    """Resolve every persona of ``pack`` for ``workspace``."""
    resolver = resolver or Resolver()
    members = []
    for p in pack.personas:
        r = resolver.resolve(pack, p.name, workspace)
        members.append(
            TeamMember(
                name=r.name,
                role=r.role,
                description=r.description,
                identity=r.identity,
                system_prompt=r.system_prompt,
                skills=r.skills,
                tools=r.tools,
                model=r.model,
            )
        )
    return TeamSnapshot(
        pack_ref=pack.ref,
        version=pack.manifest.version,
        revision=pack.digest,
        root=pack.root,
        members=tuple(members),
    )
