"""Result cards: compact sanitized chrome for the transcript, the full safe body on expansion.

Everything shown passes through :func:`sanitize` (control, format and invisible characters
dropped, whitespace collapsed per line), so stored text cannot restyle a terminal or hide
content (M-UI-1).  Compact lines are clipped to a terminal width; the full body keeps every
line.  Tool bodies never repeat the call's title (M-UI-2).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from persona_mind.mind._model import BacklogItem, Fact
from persona_mind.mind._text import collapse_ws

__all__ = ("COMPACT_LINES", "WIDTH", "Card", "backlog_line", "clip", "fact_line", "sanitize")

WIDTH = 100
COMPACT_LINES = 8


_HIDDEN = ("Cc", "Cf", "Co", "Cs")
_ASCII_CONTROL = dict.fromkeys([*range(32), 127])
"""The only ASCII characters in the hidden categories (ASCII has no Cf, Co or Cs)."""


def _kept(line: str) -> str:
    if line.isascii():  # the common case: one C-level pass instead of a lookup per character
        return line.translate(_ASCII_CONTROL)
    return "".join(ch for ch in line if unicodedata.category(ch) not in _HIDDEN)


def sanitize(text: str) -> str:
    """Drop control/format/private-use characters; collapse whitespace within each line."""
    return "\n".join(collapse_ws(_kept(line)) for line in text.splitlines()).strip("\n")


def clip(text: str, width: int = WIDTH) -> str:
    """One line of at most ``width`` characters (an ellipsis marks clipping)."""
    line = collapse_ws(text)
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass(frozen=True, slots=True)
class Card:
    """A titled card; ``compact`` for the transcript, ``full`` when expanded."""

    title: str
    lines: tuple[str, ...] = ()
    full_lines: tuple[str, ...] | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def compact(self, width: int = WIDTH) -> str:
        shown = [clip(sanitize(ln), width) for ln in self.lines[:COMPACT_LINES]]
        more = len(self.lines) - COMPACT_LINES
        if more > 0:
            shown.append(f"(+{more} more)")
        return "\n".join([clip(sanitize(self.title), width), *shown])

    def full(self) -> str:
        body = self.full_lines if self.full_lines is not None else self.lines
        return "\n".join([sanitize(self.title), *(sanitize(b) for b in body)])

    def details(self) -> dict[str, Any]:
        """Structured details for UIs: compact text, full text and data."""
        return {
            "title": sanitize(self.title),
            "compact": self.compact(),
            "full": self.full(),
            **self.data,
        }


def fact_line(tier: str, fact: Fact, extra: str = "") -> str:
    """``[tier kind id] text`` (+ tags) for cards and lists."""
    tags = f"  #{' #'.join(fact.tags)}" if fact.tags else ""
    who = f" ({fact.persona})" if fact.persona and tier in ("project", "stm") else ""
    return f"[{tier} {fact.kind} {fact.id}]{who} {fact.text}{tags}{extra}"


def backlog_line(item: BacklogItem) -> str:
    """``[id status] text`` for cards and lists."""
    return f"[{item.id} {item.status}] {item.text}"
