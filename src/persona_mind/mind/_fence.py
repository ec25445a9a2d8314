"""The memory fence: stored text can neither close the wrapper nor forge a section.

The block is ``<persona-mind-memory> … </persona-mind-memory>`` with ``## `` section
headings.  A model reads lookalikes as the real thing, so escaping only ASCII ``<``/``>``
is not enough: fullwidth ``＜``, small-form ``﹤``, angle quotation marks, mathematical and
Canadian-syllabics angles are turned into numeric character references too, and a run of
``#`` (or its fullwidth/small-form lookalike) that would open a heading is neutralised.
Entries are whitespace-collapsed before this runs, so no newline survives either.
"""

from __future__ import annotations

import re

__all__ = ("LOOKALIKE_BRACKETS", "escape_memory")

LOOKALIKE_BRACKETS = frozenset(
    "\uff1c\uff1e\ufe64\ufe65\u2039\u203a\u2329\u232a\u3008\u3009\u27e8\u27e9\u276c\u276d"
    "\u276e\u276f\u2770\u2771\u02c2\u02c3\u1438\u1433\u22d6\u22d7\u29fc\u29fd\u2aa1\u2aa2"
    "\u227a\u227b\u02f1\u02f2\u2a7d\u2a7e\u1400\u0f3a\u0f3b\u2264\u2265\u226e\u226f"
)
_LOOKALIKE_HASHES = "\uff03\ufe5f"
_SPECIAL = re.compile("[&<>" + "".join(sorted(LOOKALIKE_BRACKETS)) + _LOOKALIKE_HASHES + "]")
_HEADING = re.compile(r"(?:(?<=\s)|^)#(?=#{0,5}(?:\s|$))")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _entity(m: re.Match[str]) -> str:
    ch = m.group()
    return _ENTITIES.get(ch) or f"&#x{ord(ch):X};"


def escape_memory(text: str) -> str:
    """``text`` safe inside the fence: ``& < >``, every bracket lookalike and every
    fullwidth/small-form ``#`` become character references; an ASCII ``#`` that would open
    a heading becomes ``&#35;``."""
    out = _SPECIAL.sub(_entity, text) if _SPECIAL.search(text) else text
    if "#" in out:
        out = _HEADING.sub("&#35;", out)
    return out
