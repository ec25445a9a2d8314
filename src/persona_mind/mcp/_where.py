"""Until when a remembered fact lasts, in the MCP reply's structured content.

The reply's text already says where the fact went and until when, in the wording every face
shares (``persona_mind.mind.where_saved``, used by the memory tool's card). A client that
reads structured content gets the lifetime as ``expires_in_seconds`` (None: kept until
forgotten or superseded), so it need not parse the sentence.
"""

from __future__ import annotations

from typing import Any

from persona_mind.messages.host import ToolResult
from persona_mind.mind import STM_TTL

__all__ = ("lifetime", "with_where")


def lifetime(tier: str) -> float | None:
    """A fact's lifetime in ``tier``, in seconds (None: no expiry)."""
    return STM_TTL if tier == "stm" else None


def with_where(result: ToolResult) -> ToolResult:
    """``result`` of a successful remember with its lifetime in the structured content."""
    details = result.details
    if result.is_error or not isinstance(details, dict) or "tier" not in details:
        return result
    data: dict[str, Any] = {**details, "expires_in_seconds": lifetime(str(details["tier"]))}
    return ToolResult(text=result.text, details=data, is_error=False)
