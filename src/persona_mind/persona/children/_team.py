"""Adapting the Persona half's team snapshot to the child runner's :class:`ChildTeam`.

The child runner only needs names, roles, identities, resolved prompts and declared tools,
so it keeps its own small value type and converts here, in one place. Pure: the team
snapshot and the host state are values; nothing here reads a file or starts a process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from persona_mind.messages.child import DEFAULT_CHILD_TOOLS, ChildPersona, ChildTeam
from persona_mind.persona.children._launch import HostState, launch_problem, resolve_skills

if TYPE_CHECKING:
    from persona_mind.persona.binding._team import TeamSnapshot

__all__ = ("team_from_snapshot",)


def team_from_snapshot(snapshot: TeamSnapshot, host: HostState | None = None) -> ChildTeam:
    """One :class:`ChildPersona` per member: declared tools (else the read-only default),
    declared model and skills resolved against ``host`` (P-RESOLVER-21, P-CHILD-13)."""
    state = host or HostState()
    personas: list[ChildPersona] = []
    for m in snapshot.members:
        paths, missing = resolve_skills(m.skills, state)
        personas.append(
            ChildPersona(
                name=m.name,
                qualified_id=m.identity,
                role="generalist" if m.role == "generalist" else "specialist",
                system_prompt=m.system_prompt,
                description=m.description,
                tools=tuple(m.tools) or DEFAULT_CHILD_TOOLS,
                model=m.model or None,
                skills=tuple(m.skills),
                skill_paths=paths,
                unavailable=launch_problem(m.model, missing, state),
            )
        )
    return ChildTeam(pack=snapshot.pack_ref, personas=tuple(personas))
