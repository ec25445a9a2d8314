"""Where a remembered fact went and until when, in the MCP reply.

A fact saved to short-term memory lapses after :data:`~persona_mind.mind.STM_TTL` unless it
is promoted; a reply that reads only ``Saved stm note m_…`` lets a client believe it is kept
for good. This is the MCP face's own wording (no shared one exists yet): one line naming the
tier in words and its lifetime, appended to the runtime's text and added to the structured
content as ``expires_in_seconds`` (None: kept until forgotten).
"""

from __future__ import annotations

from typing import Any

from persona_mind.messages.host import ToolResult
from persona_mind.mind import STM_TTL

__all__ = ("where_it_went", "with_where")

_LASTING = {
    "project": "project long-term memory, kept until forgotten or superseded",
    "persona": "this persona's long-term memory, kept until forgotten or superseded",
    "shared": "memory shared by all personas, kept until forgotten or superseded",
    "session": "a session note, kept while this server process runs",
}


def where_it_went(tier: str) -> tuple[str, float | None]:
    """The sentence for ``tier`` and its lifetime in seconds (None: no expiry)."""
    if tier == "stm":
        hours = round(STM_TTL / 3600)
        return (
            f"Stored in project short-term memory: it expires in {hours} h unless promoted "
            "(memory promote with its id) or remembered with tier 'project'.",
            STM_TTL,
        )
    return (f"Stored in {_LASTING.get(tier, tier)}.", None)


def with_where(result: ToolResult) -> ToolResult:
    """``result`` of a successful remember with where it went and until when."""
    details = result.details
    if result.is_error or not isinstance(details, dict) or "tier" not in details:
        return result
    sentence, lifetime = where_it_went(str(details["tier"]))
    data: dict[str, Any] = {**details, "expires_in_seconds": lifetime}
    return ToolResult(text=f"{result.text}\n{sentence}", details=data, is_error=False)
