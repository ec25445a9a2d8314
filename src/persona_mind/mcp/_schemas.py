"""What an MCP client is told each tool call needs, and the defaults the server fills in.

The runtime's tool schemas (:mod:`persona_mind.mind`) say only that ``action`` is required,
because a Pi model reads the description. A schema-driven MCP client fills what the schema
requires, so the MCP face declares each action's own requirements (``allOf`` of
``if``/``then`` on ``action``) and bounds on every free-text field; ``remember`` without a
``kind`` is a ``note``, so a client that gives only the text is not refused.
"""

from __future__ import annotations

import copy
from typing import Any

from persona_mind.messages.host import ToolSpec

__all__ = ("MAX_QUERY", "MAX_TEXT", "client_schema", "with_defaults")

MAX_TEXT = 8_000  # a fact or backlog item; longer is a document, not a memory
MAX_QUERY = 1_000  # a recall query; ranking a megabyte of words helps nobody

_NEEDS: dict[str, dict[str, tuple[str, ...]]] = {
    "memory": {
        "remember": ("text",),
        "read": ("id",),
        "forget": ("id",),
        "promote": ("id",),
        "supersede": ("id", "text"),
        "stage": ("operations",),
    },
    "backlog": {
        "add": ("text",),
        "take": ("id",),
        "done": ("id",),
        "drop": ("id",),
        "remind": ("id", "remind_in_minutes"),
    },
}
_DEFAULTS: dict[str, dict[str, dict[str, Any]]] = {"memory": {"remember": {"kind": "note"}}}
_BOUNDS = {"text": MAX_TEXT, "query": MAX_QUERY, "source": 500, "id": 200, "fingerprint": 200}


def client_schema(spec: ToolSpec) -> dict[str, Any]:
    """``spec``'s input schema as an MCP client sees it: per-action needs, bounded strings."""
    schema = copy.deepcopy(dict(spec.parameters))
    props = schema.get("properties", {})
    for name, limit in _BOUNDS.items():
        if props.get(name, {}).get("type") == "string":
            props[name].setdefault("maxLength", limit)
    for action, defaults in _DEFAULTS.get(spec.name, {}).items():
        for field, value in defaults.items():
            if field in props:
                props[field]["default"] = value
                props[field].setdefault("description", f"default for {action}: {value!r}")
    needs = _NEEDS.get(spec.name)
    if needs:
        schema["allOf"] = [
            {
                "if": {"properties": {"action": {"const": action}}, "required": ["action"]},
                "then": {"required": list(fields)},
            }
            for action, fields in needs.items()
        ]
    return schema


def with_defaults(spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with the action's defaults filled in (a client's values win)."""
    defaults = _DEFAULTS.get(spec.name, {}).get(str(arguments.get("action")), {})
    return {**defaults, **arguments}
