"""Which stored fact a new fact updates: the same subject with a changed value.

Why lexical: an update in a developer's memory mostly keeps the sentence and changes a value
— a port, a version, a service or tool name, a reversed yes/no ("the API listens on 8080" →
"… on 9090").  On index terms (stemmed, stop words dropped, :func:`index_terms`) two facts
are an update pair when

* they share most of their terms — Dice coefficient ≥ :data:`DICE` — so they speak of the
  same subject;
* each has a term the other lacks (a changed value; a pure extension or a re-record is not
  an update), and neither lacks more than :data:`MAX_CHANGED` terms (a small edit, not a
  second fact about the same thing);
* for two facts of one kind (an invariant does not update a note).

Measured by ``python bench/updates.py`` on updates derived from the public coding set's facts
(values swapped) against every other pair of facts of the same repository: the figures are in
docs/mind.md, "Updates".  Pure and cheap: a fact has a few dozen terms, and the callers
compare a new fact with one store (at ``remember``) or the dozen entries a block admits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from persona_mind.mind._model import Fact
from persona_mind.mind._text import index_terms

__all__ = ("DICE", "MAX_CHANGED", "Terms", "is_update", "terms_of", "update_offer", "updated_by")

DICE = 0.6
MAX_CHANGED = 3


Terms = Counter[str]
"""A fact's index terms with their counts: a value replaced by a word the sentence already
holds elsewhere ("adr-tools … Unix tools" → "sub-crate … Unix tools") still drops one."""


def terms_of(text: str) -> Terms:
    """The index terms (with counts) an update is compared on."""
    return Counter(index_terms(text))


def is_update(newer: Mapping[str, int], older: Mapping[str, int]) -> bool:
    """Whether the fact with terms ``newer`` changes a value of the one with ``older``
    (term → count; a plain loop, as the planner asks it for a dozen pairs a section)."""
    n_new, n_old = sum(newer.values()), sum(older.values())
    if not n_new or not n_old or abs(n_new - n_old) > MAX_CHANGED:
        return False
    get = older.get
    shared = 0
    for term, count in newer.items():
        other = get(term)
        if other:
            shared += count if count < other else other
    added, dropped = n_new - shared, n_old - shared
    if not added or not dropped or added > MAX_CHANGED or dropped > MAX_CHANGED:
        return False
    return 2 * shared >= DICE * (n_new + n_old)


def updated_by(fact: Fact, rows: Iterable[Fact], *, limit: int = 3) -> list[Fact]:
    """The active rows ``fact`` likely updates, most similar first (at most ``limit``).

    Never the fact itself; rows of another kind are not compared.
    """
    mine = terms_of(fact.text)
    found: list[tuple[int, float, str, Fact]] = []
    for row in rows:
        if row.id == fact.id or row.kind != fact.kind or row.status != "active":
            continue
        theirs = terms_of(row.text)
        if is_update(mine, theirs):
            found.append((-sum((mine & theirs).values()), -row.lastSeenAt, row.id, row))
    found.sort(key=lambda t: t[:3])
    return [t[3] for t in found[:limit]]


def update_offer(old: Fact, supersede_hint: str) -> str:
    """``This may update m_… ("old text"); if it replaces it: <hint>`` — one wording for every
    face; ``supersede_hint`` is the face's own command (a CLI line or a tool call)."""
    quoted = old.text if len(old.text) <= 80 else old.text[:77] + "..."
    return f'This may update {old.id} ("{quoted}"); if it replaces it: {supersede_hint}'
