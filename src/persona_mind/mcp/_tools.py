"""The MCP server's own tools: what a Pi user reads from slash commands, as tools.

A Pi user lists and inspects the team with ``/persona-list`` and ``persona-mind persona
resolve``; an MCP client has only tools, so the server adds three next to the runtime's
(memory, backlog, persona_consult, persona_pack):

* ``persona_list`` — the session's team (name, role, description, identity).
* ``persona_resolve`` — one member's resolved system prompt, exactly as a consult gets it.
* ``memory_optimize`` — ``inspect`` answers with the typed ``optimize.unavailable`` refusal
  until the memory optimizer exists; the tool is declared now so clients need no change.

All three read the team from the runtime's Persona feature (the session's retained team
snapshot), never from the pack store directly, so they agree with what consults use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from persona_mind.errors import MindError
from persona_mind.messages.host import ToolResult, ToolSpec

if TYPE_CHECKING:
    from persona_mind._headless import HeadlessSession
    from persona_mind.persona import TeamSnapshot

__all__ = ("EXTRA_TOOLS", "OptimizerUnavailable", "call_extra")


class OptimizerUnavailable(MindError):
    """Raised by ``memory_optimize``: the optimizer is not part of this build yet."""


_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

EXTRA_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="persona_list",
        label="List the team",
        description="The personas of this project's team: name, role ([G] lead or "
        "specialist), description and memory identity. Use a name with persona_consult.",
        parameters=_NO_ARGS,
    ),
    ToolSpec(
        name="persona_resolve",
        label="Resolve a persona",
        description="The full resolved system prompt of one persona of this project's team.",
        parameters={
            "type": "object",
            "properties": {"persona": {"type": "string", "minLength": 1}},
            "required": ["persona"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        name="memory_optimize",
        label="Memory optimizer",
        description="inspect: what the memory optimizer would consolidate (not available in "
        "this build yet; the call says so).",
        parameters={
            "type": "object",
            "properties": {"action": {"type": "string", "enum": ["inspect"]}},
            "required": ["action"],
            "additionalProperties": False,
        },
    ),
)

_NO_TEAM = (
    "this project has no persona team; choose one with `persona-mind persona default set "
    "<pack>` (new sessions) or `/persona team select <pack>` in Pi, then restart the server"
)


async def _team(session: HeadlessSession) -> TeamSnapshot | None:
    return await session.runtime.team()  # GetTeam: asked of the Companion


async def call_extra(session: HeadlessSession, name: str, arguments: dict[str, Any]) -> ToolResult:
    """Answer one of :data:`EXTRA_TOOLS` (arguments are already schema-checked)."""
    if name == "memory_optimize":
        err = OptimizerUnavailable(
            "[optimize.unavailable] the memory optimizer is not part of this build yet; "
            "use memory recall/forget/supersede to curate facts by hand"
        )
        return ToolResult(text=str(err), details={"rule": "optimize.unavailable"}, is_error=True)
    team = await _team(session)
    if team is None:
        return ToolResult(text=_NO_TEAM, is_error=True)
    if name == "persona_list":
        members = [
            {
                "name": m.name,
                "role": m.role,
                "description": m.description,
                "identity": m.identity,
            }
            for m in team.members
        ]
        lines = [f"{team.pack_ref} {team.version}"] + [
            f"{'[G] ' if m['role'] == 'generalist' else ''}{m['name']} — {m['description']}"
            for m in members
        ]
        return ToolResult(
            text="\n".join(lines), details={"pack": team.pack_ref, "members": members}
        )
    member = team.member(str(arguments["persona"]))
    if member is None:
        names = ", ".join(m.name for m in team.members)
        return ToolResult(
            text=f"{team.pack_ref} has no persona {arguments['persona']!r}; members: {names}",
            is_error=True,
        )
    return ToolResult(
        text=member.system_prompt, details={"name": member.name, "identity": member.identity}
    )
