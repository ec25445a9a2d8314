"""Freeing a large index off the event loop: take it apart a few hundred items at a time.

Dropping the last reference to a big :class:`~persona_mind.mind.recall._retrieval.FactIndex`
frees millions of small objects in one C-level cascade that never releases the GIL, on
whichever thread drops it.  :func:`retire` returns a job that frees it piecewise from Python
instead, so the thread running the job (the offload) gives the GIL back between steps.  It
lives apart from the index because it is about the interpreter's memory, not about ranking;
:mod:`persona_mind.mind.recall._retrieval` re-exports it beside the index it frees.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from persona_mind.mind.recall._retrieval import FactIndex, TokenCache

__all__ = ("retire",)

_PIECE = 512
"""Items freed per step when an index is taken apart (a step frees at most a few thousand
objects, well under the interpreter's 5 ms switch interval)."""


def retire(index: FactIndex | None, *caches: TokenCache) -> Callable[[], None]:
    """A job that frees ``index`` (and ``caches``) piecewise on whichever thread runs it.

    Why: a 19,000-fact index is ~2.8 M small objects; dropping its last reference frees
    them in one C-level cascade that holds the GIL for 290–380 ms, wherever that happens
    (issue 15 item 9) — moving the drop to another thread alone would stall the loop just
    the same.  Taken apart a few hundred items at a time from Python, the thread that runs
    the job gives the GIL back between steps, so the event loop keeps running.

    The caller hands over its last reference (the job holds the only strong one).  If
    anything else still holds the index when the job runs (a turn ranking with it), the
    job only lets go: the index stays whole for that user and is freed when it is done.
    Objects shared with a newer index (facts, token tuples, untouched posting lists) only
    lose a reference.  Frozen objects (``gc.freeze``) are freed by reference counting like
    any other; freezing only kept the collector from walking them.
    """
    box: list[FactIndex] = [] if index is None else [index]
    held = list(caches)

    def job() -> None:
        while held:
            _empty(held.pop())
        if not box:
            return
        doomed = box.pop()
        # references now: ``doomed`` and getrefcount's own argument
        if sys.getrefcount(doomed) > 2:
            return
        for name in ("_weighted", "postings", "_idf", "_safe", "slot_of"):
            _empty(getattr(doomed, name))
        for name in ("tokens", "facts", "lengths", "norms", "by_recency", "priority"):
            rows: list[object] = getattr(doomed, name)
            while rows:
                del rows[-_PIECE:]

    return job


def _empty(table: dict[str, Any]) -> None:
    pop = table.popitem
    while table:
        for _ in range(min(_PIECE, len(table))):
            pop()
