"""The declarations of ``persona_consult``, ``/persona-roundtable`` and ``persona_roundtable``.

One definition, kept apart from their implementations: offering a tool or a command must not
cost its implementation's import, so the runtime answers ``ready`` and ``SessionStart`` without
loading the child runner (``docs/bridge.md``, performance). The runner modules are imported at
the first consult or round-table.
"""

from __future__ import annotations

from collections.abc import Sequence

from persona_mind.messages.host import CommandSpec, ToolSpec

__all__ = ("CONSULT_TOOL", "ROUNDTABLE_COMMAND", "ROUNDTABLE_TOOL_NAME", "roundtable_tool")

ROUNDTABLE_TOOL_NAME = "persona_roundtable"

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


def roundtable_tool(specialists: Sequence[str], *, max_specialists: int = 5) -> ToolSpec:
    """The lead's ``persona_roundtable`` tool: its JSON Schema *is* the selection.

    Offered while a ``/persona-roundtable`` request waits for the lead (P-ROUNDTABLE-4):
    ``{query, specialists: [{name, reason}]}`` with names restricted to this team's
    specialists and a reason required for each. The runtime validates the call again
    (``validate_selection``): a host that skips schema validation gets the same errors.
    """
    return ToolSpec(
        name=ROUNDTABLE_TOOL_NAME,
        label="Round-table",
        description=(
            "Run the round-table the user asked for with /persona-roundtable. Call it exactly "
            "once, as the team's lead, with the query to delegate and the specialists you "
            "select (1 to 5), each with the contribution you assign to it. It runs Round 1, "
            "Round 2 and the moderated synthesis, and returns the synthesis: present it to "
            "the user in full, without paraphrasing or shortening it."
        ),
        parameters={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": "the question the round-table answers",
                },
                "specialists": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": max_specialists,
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "enum": list(specialists)},
                            "reason": {
                                "type": "string",
                                "minLength": 1,
                                "description": "the contribution assigned to this specialist",
                            },
                        },
                        "required": ["name", "reason"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["query", "specialists"],
            "additionalProperties": False,
        },
    )
