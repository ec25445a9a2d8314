"""Making untrusted trace strings safe to print in a terminal or a Mermaid diagram.

Actor names, type names and reasons come from a file; a newline or an escape sequence in
one must not forge a timeline row or break a diagram.
"""

from __future__ import annotations

import re

__all__ = ("mermaid_text", "terminal_text")

_MERMAID_UNSAFE = re.compile(r"[^\w \-.,:()/+=@\[\]!?*']")
_MERMAID_LIMIT = 160


def terminal_text(value: str) -> str:
    """``value`` with non-printable characters escaped (``\\n``, ``\\x1b``, …)."""
    if value.isprintable():
        return value
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in value)


def mermaid_text(value: str) -> str:
    """``value`` reduced to characters Mermaid message/note text accepts literally.

    ``;`` ends a statement, ``#…;`` is an entity, ``<``/``>`` are markup and a newline
    ends the line, so everything outside a conservative set becomes ``_``; very long
    text is cut with an ellipsis so a diagram stays readable.
    """
    cleaned = _MERMAID_UNSAFE.sub("_", value)
    if len(cleaned) > _MERMAID_LIMIT:
        cleaned = cleaned[: _MERMAID_LIMIT - 3] + "..."
    return cleaned
