"""The memory fence: stored text can neither close the wrapper nor forge a section.

The block is ``<persona-mind-memory> … </persona-mind-memory>`` with ``## `` section
headings.  A model reads lookalikes as the real thing, so escaping only ASCII ``<``/``>``
is not enough: fullwidth ``＜``, small-form ``﹤``, angle quotation marks, mathematical and
Canadian-syllabics angles are turned into numeric character references too — every
character Unicode *names* an angle bracket, and every character Unicode TR39's confusables
table (through ``confusable-homoglyphs``) lists as confusable with ``<`` or ``>`` (runic
kauna, Miao zza, Greek instrumental notation …) — and a run of ``#`` (or its
fullwidth/small-form lookalike) that would open a heading is neutralised.
Entries are whitespace-collapsed before this runs, so no newline survives either.
"""

from __future__ import annotations

import re
from functools import cache

from persona_mind.mind.trust._normalize import tr39_confusables

__all__ = ("LOOKALIKE_BRACKETS", "escape_memory", "lookalike_brackets")

_BRACKET_CLASS = (
    "\u00ab\u00bb\u02c2-\u02c3\u02f1-\u02f2\u0f3a-\u0f3b\u1400\u1433\u1438\u2039-\u203a"
    "\u2264-\u226b\u226e-\u2279\u22d6-\u22dd\u22e6-\u22e7\u2329-\u232a\u2343-\u2344\u2369"
    "\u2746\u276c-\u2771\u27e8-\u27eb\u2976-\u2978\u2991-\u2996\u29c0-\u29c1\u29fc-\u29fd"
    "\u2a79-\u2aa9\u2af7-\u2afa\u2b43\u3008-\u300b\ufe3d-\ufe40\ufe64-\ufe65\uff1c\uff1e"
    "\U0001fbca"
)
"""Every character Unicode names a less-/greater-than sign, angle bracket, angle quotation
mark or chevron (generated from the character names; see ``bench/scanner.py``), plus the
modifier-letter, Canadian-syllabics and Tibetan angle shapes."""
LOOKALIKE_BRACKETS = frozenset(
    chr(cp)
    for lo, hi in re.findall(r"(.)(?:-(.))?", _BRACKET_CLASS)
    for cp in range(ord(lo), ord(hi or lo) + 1)
)
"""The name-generated set (no table needed); :func:`lookalike_brackets` adds TR39's."""
_LOOKALIKE_HASHES = "\uff03\ufe5f"


@cache
def lookalike_brackets() -> frozenset[str]:
    """Every single character that can pass for ``<`` or ``>``: the name-generated set and
    TR39's confusables of either (and of the angle brackets TR39 groups with them)."""
    table = tr39_confusables()
    found = set(LOOKALIKE_BRACKETS)
    for target in ("<", ">", "\u2039", "\u203a", "\u276e", "\u276f", "\u02c2", "\u02c3"):
        found.update(c for c in table.get(target, ()) if len(c) == 1)
    found.discard("<")
    found.discard(">")
    return frozenset(found)


@cache
def _special() -> re.Pattern[str]:
    chars = "".join(sorted(lookalike_brackets())) + _LOOKALIKE_HASHES
    return re.compile("[&<>" + re.escape(chars) + "]")


_HEADING = re.compile(r"(?:(?<=\s)|^)#(?=#{0,5}(?:\s|$))")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _entity(m: re.Match[str]) -> str:
    ch = m.group()
    return _ENTITIES.get(ch) or f"&#x{ord(ch):X};"


def escape_memory(text: str) -> str:
    """``text`` safe inside the fence: ``& < >``, every bracket lookalike (by name and by
    TR39) and every
    fullwidth/small-form ``#`` become character references; an ASCII ``#`` that would open
    a heading becomes ``&#35;``."""
    special = _special()
    out = special.sub(_entity, text) if special.search(text) else text
    if "#" in out:
        out = _HEADING.sub("&#35;", out)
    return out
