"""A session's persona team as the Persona half hands it out: every member resolved.

A value both sides speak: the Persona half resolves it (``persona.binding._team``), the
Companion answers it to ``GetTeam`` (the ``Team`` facade, the MCP server) and the children
feature turns it into the child runner's ``ChildTeam``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ("TeamMember", "TeamSnapshot")


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
