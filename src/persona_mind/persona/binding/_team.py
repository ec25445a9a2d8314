"""Resolving the team snapshot other parts consume (child runner: consult, round-table).

Every member is resolved by the same resolver as direct persona mode, from the session's
retained snapshot, so a consulted persona receives its own awareness package
(P-RESOLVER-20) and later store changes never leak in (P-BINDING-4). The values
themselves (``TeamMember``, ``TeamSnapshot``) are defined in ``persona_mind.messages.team``
(the Companion answers ``GetTeam`` with one) and re-exported here unchanged.
"""

from __future__ import annotations

from persona_mind.messages.team import TeamMember, TeamSnapshot
from persona_mind.persona._resolver import Resolver
from persona_mind.persona.packs._model import Pack
from persona_mind.persona.workspace._files import Workspace

__all__ = ("TeamMember", "TeamSnapshot", "resolve_team")


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
