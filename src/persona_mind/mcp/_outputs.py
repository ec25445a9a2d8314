"""What each MCP tool's ``structuredContent`` holds, declared as the tool's ``outputSchema``.

A client that validates results (the official SDK client does, against the schema it
listed) needs every successful result to carry an object that matches, so every result
carries one: the data of the tool's details (ids, tiers, counts, usage…), ``{}`` when a
result has none. The card's ``title``/``compact``/``full`` renderings are dropped: the text
content block is the one rendering of the text.

The schemas name the fields a client can rely on with their types and leave the rest open
(``additionalProperties``): the runtime's tools add fields per action, and a closed schema
would turn each new field into a validation failure in every client.
"""

from __future__ import annotations

import json
from typing import Any

from persona_mind.messages.host import ToolResult

__all__ = ("RENDERINGS", "output_schema", "structured")

RENDERINGS = frozenset({"title", "compact", "full"})

_STR: dict[str, Any] = {"type": "string"}
_STRS: dict[str, Any] = {"type": "array", "items": _STR}
_RULE: dict[str, Any] = {**_STR, "description": "the rule of a refusal (error results)"}
_USAGE: dict[str, Any] = {
    "type": "object",
    "description": "what the children spent",
    "properties": {
        name: {"type": "number"}
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "cost",
        )
    },
}
_MEMBER: dict[str, Any] = {
    "type": "object",
    "properties": {"name": _STR, "role": _STR, "description": _STR, "identity": _STR},
    "required": ["name", "role", "description", "identity"],
}
_PROPERTIES: dict[str, dict[str, Any]] = {
    "memory": {
        "id": {**_STR, "description": "the fact or session note an action touched"},
        "ids": {**_STRS, "description": "recall/list: the ids shown, in order"},
        "tier": {**_STR, "description": "remember/promote: the tier the fact is in"},
        "tiers": {**_STRS, "description": "list: each shown fact's tier"},
        "total": {"type": "integer", "description": "list: live facts in scope"},
        "expires_in_seconds": {
            "type": ["number", "null"],
            "description": "remember: the fact's lifetime (null: kept until forgotten)",
        },
        "planId": {**_STR, "description": "a write waiting for the user's decision"},
        "rule": _RULE,
    },
    "backlog": {
        "id": {**_STR, "description": "the item an action touched"},
        "ids": {**_STRS, "description": "list: the items shown"},
        "rule": _RULE,
    },
    "persona_consult": {"usage": _USAGE, "rule": _RULE},
    "persona_pack": {"ref": {**_STR, "description": "the pack an action touched"}, "rule": _RULE},
    "persona_list": {"pack": _STR, "members": {"type": "array", "items": _MEMBER}},
    "persona_resolve": {"name": _STR, "identity": _STR},
    "memory_optimize": {"rule": _RULE},
}


def output_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of ``tool``'s structured content."""
    return {
        "type": "object",
        "properties": json.loads(json.dumps(_PROPERTIES.get(tool, {}))),  # a fresh copy
        "additionalProperties": True,
    }


def structured(result: ToolResult) -> dict[str, Any]:
    """``result``'s data as plain JSON for the wire (tuples, floats, None), renderings off."""
    details = result.details if isinstance(result.details, dict) else {}
    data = {k: v for k, v in details.items() if k not in RENDERINGS}
    plain: dict[str, Any] = json.loads(json.dumps(data, default=str))
    return plain
