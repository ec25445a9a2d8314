"""The declarations of ``persona_consult`` and ``/persona-roundtable``, and nothing else.

One definition, kept apart from their implementations: offering a tool or a command must not
cost its implementation's import, so the runtime answers ``ready`` and ``SessionStart`` without
loading the child runner (``docs/bridge.md``, performance). The runner modules are imported at
the first consult or round-table.
"""

from __future__ import annotations

from persona_mind.messages.host import CommandSpec, ToolSpec

__all__ = ("CONSULT_TOOL", "ROUNDTABLE_COMMAND")

CONSULT_TOOL = ToolSpec(
    name="persona_consult",
    label="Consult a peer persona",
    description=(
        "Ask one persona of this session's team for its expert view. It answers as a leaf "
        "(it cannot consult others) and you write the synthesis. Several independent "
        "consults may run in parallel."
    ),
    parameters={
        "type": "object",
        "properties": {
            "consultant": {"type": "string", "description": "a persona name of this team"},
            "question": {"type": "string", "description": "what you need to know"},
            "context": {"type": "string", "description": "facts the consultant needs"},
            "requester": {"type": "string", "description": "you (the active persona)"},
        },
        "required": ["consultant", "question"],
        "additionalProperties": False,
    },
)

ROUNDTABLE_COMMAND = CommandSpec(
    name="persona-roundtable",
    description="Ask this session's team: the [G] lead picks 1-5 specialists, two rounds, "
    "one moderated synthesis",
)
