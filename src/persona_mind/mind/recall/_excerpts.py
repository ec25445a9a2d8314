"""A fact's excerpt for the memory block, memoised per index (issue 10, ``before_agent_start``).

An excerpt is a pure function of the fact's text: whitespace collapsed, clipped to
:data:`EXCERPT_CHARS` characters, fence and heading markers escaped. Computing it takes a
regex pass over the whole text and another for the escape (~1.4 µs for a 400-character
fact), on every admitted line of every turn; the texts of a store change only when the store
does, so the excerpts are kept beside the :class:`FactIndex` they came from (a weak key: they
go when the index goes) and keyed by the text itself — never by the prompt.
"""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING

from persona_mind.mind._text import collapse_ws
from persona_mind.mind.trust._fence import escape_memory

if TYPE_CHECKING:
    from persona_mind.mind.recall._retrieval import FactIndex

__all__ = ("EXCERPT_CHARS", "excerpt", "excerpts_of")

EXCERPT_CHARS = 700

_PLAIN = re.compile(r"\S+(?: \S+)*")

Memo = dict[str, tuple[str, bool]]
_MEMO: weakref.WeakKeyDictionary[FactIndex, Memo] = weakref.WeakKeyDictionary()


def excerpt(text: str) -> tuple[str, bool]:
    """(the escaped excerpt of ``text``, whether it was clipped)."""
    flat = text if _PLAIN.fullmatch(text) else collapse_ws(text)
    if len(flat) <= EXCERPT_CHARS:
        return escape_memory(flat), False
    return escape_memory(flat[: EXCERPT_CHARS - 1] + "…"), True


def excerpts_of(index: FactIndex) -> Memo:
    """The memo of excerpts (text → :func:`excerpt`) for ``index``'s facts."""
    memo = _MEMO.get(index)
    if memo is None:
        memo = _MEMO[index] = {}
    return memo
