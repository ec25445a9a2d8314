"""Consolidation inspection: a bounded, paged, read-only view of one store's safe entries.

Why this shape (M-OPTIMIZE-MANUAL-6..14): the foreground agent needs the *full* text of
old facts to propose exact replacements, but a prompt cannot hold a whole store. So one
inspection returns at most 100 safe entries (20 by default) in a stable order (oldest
first, so old facts stay reachable), the exact raw-byte fingerprint of the file the page
came from, how many rows were left out and why, and ``offset`` / ``matched`` /
``nextOffset`` for the next page. A next page names the fingerprint it continues; if the
file's bytes changed in between, the page is refused (the offsets may now point at other
rows) and the caller starts again at offset 0.

Candidate pairs are *advisory*: a lexical overlap score over the entries of one page only
(negation keeps nearly every word while reversing the meaning, M-OPTIMIZE-MANUAL-11).
Everything here is pure: the caller passes the rows and fingerprint of a strict read.

The values ``Inspection``, ``Omitted`` and ``CandidatePair`` are defined in
``persona_mind.messages.consolidation`` (the Optimizer answers them) and re-exported here
unchanged.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable
from operator import attrgetter

from persona_mind.messages.consolidation import CandidatePair, Inspection, Omitted
from persona_mind.mind._errors import InvalidArgument, LimitExceeded
from persona_mind.mind._model import Fact, Tier
from persona_mind.mind._text import lexical_tokens
from persona_mind.mind.optimize._errors import StaleSnapshot
from persona_mind.mind.trust._scanner import is_safe

__all__ = (
    "DEFAULT_INSPECT_LIMIT",
    "MAX_CANDIDATE_PAIRS",
    "MAX_INSPECT_LIMIT",
    "PAIR_THRESHOLD",
    "CandidatePair",
    "Inspection",
    "Omitted",
    "SafetyMemo",
    "inspect_rows",
    "safe_row",
)

MAX_INSPECT_LIMIT = 100
DEFAULT_INSPECT_LIMIT = 20
MAX_CANDIDATE_PAIRS = 12
PAIR_THRESHOLD = 0.5
"""Minimum Jaccard overlap of two entries' word sets to be listed as a candidate pair."""


def safe_row(row: Fact) -> bool:
    """Scanner-clean in every field a replacement would carry forward.

    The fields are scanned as one newline-joined text: every finding of a single field is
    still found (newlines are boundaries for every rule), and a phrase split across two
    fields is flagged too — stricter, never looser, at a quarter of the scans.
    """
    return is_safe("\n".join((row.text, *row.tags, row.source or "")))


class SafetyMemo:
    """``safe_row`` remembered per content, so paging a large store scans each row once.

    Keyed by exactly the scanned fields (text, tags, source), so an edited row is scanned
    again; bounded, oldest entries dropped first.
    """

    def __init__(self, capacity: int = 40_000) -> None:
        self.capacity = capacity
        # text -> (tags, source, verdict): keyed by the text alone (its hash is cached by
        # the str; a tuple key would rehash the tags on every lookup), the other scanned
        # fields compared on a hit — one remembered variant per text
        self._seen: dict[str, tuple[tuple[str, ...], str | None, bool]] = {}

    def __call__(self, row: Fact) -> bool:
        hit = self._seen.get(row.text)
        if hit is not None and hit[0] == row.tags and hit[1] == row.source:
            return hit[2]
        verdict = safe_row(row)
        self._seen[row.text] = (row.tags, row.source, verdict)
        if len(self._seen) > self.capacity:
            del self._seen[next(iter(self._seen))]
        return verdict


def _int_arg(name: str, value: object, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}.malformed", f"{name} must be a whole number")
    return value


def _pairs(page: tuple[Fact, ...]) -> tuple[CandidatePair, ...]:
    """Jaccard overlap of word sets, as bitmasks (one ``&`` and a popcount per pair)."""
    vocab: dict[str, int] = {}
    masks: list[int] = []
    for fact in page:
        mask = 0
        for word in lexical_tokens(fact.text):
            mask |= 1 << vocab.setdefault(word, len(vocab))
        masks.append(mask)
    sizes = [m.bit_count() for m in masks]
    ids = [f.id for f in page]
    found: list[tuple[float, str, str]] = []
    # below this unrounded Jaccard the rounded score cannot reach the threshold; only the
    # pairs above it pay for a division and a round (issue 11: inspect within 3x a read)
    floor = PAIR_THRESHOLD - 0.0005
    n = len(page)
    for i in range(n):
        a, mask_a = sizes[i], masks[i]
        if not a:
            continue
        low, high = PAIR_THRESHOLD * a, a / PAIR_THRESHOLD  # sizes a Jaccard >= T allows
        for j in range(i + 1, n):
            b = sizes[j]
            if b < low or b > high:  # Jaccard <= small / large < T
                continue
            inter = (mask_a & masks[j]).bit_count()
            union = a + b - inter
            if inter >= floor * union:
                score = round(inter / union, 3)
                if score >= PAIR_THRESHOLD:
                    found.append((-score, ids[i], ids[j]))
    best = heapq.nsmallest(MAX_CANDIDATE_PAIRS, found)
    return tuple(CandidatePair(a, b, -neg) for neg, a, b in best)


def inspect_rows(
    rows: tuple[Fact, ...],
    fingerprint: str,
    *,
    tier: Tier,
    persona: str | None,
    now: float,
    offset: object = 0,
    limit: object = None,
    expect_fingerprint: str | None = None,
    is_safe_row: Callable[[Fact], bool] = safe_row,
    after: tuple[float, str] | None = None,
) -> Inspection:
    """One page of ``rows`` (a strict read whose raw bytes hash to ``fingerprint``).

    ``expect_fingerprint`` is the fingerprint a continued page was cut from; a different
    current fingerprint raises :class:`StaleSnapshot` (M-OPTIMIZE-MANUAL-13). ``after``
    (a review's progress cursor: ``(recordedAt, id)``) starts the page after that entry.
    """
    start = _int_arg("offset", offset, 0)
    size = _int_arg("limit", limit, DEFAULT_INSPECT_LIMIT)
    if start < 0:
        raise InvalidArgument("offset.malformed", "offset must be 0 or more")
    if size < 1:
        raise InvalidArgument("limit.malformed", "limit must be at least 1")
    if size > MAX_INSPECT_LIMIT:
        raise LimitExceeded(
            "inspect.limit",
            f"limit {size} is above the maximum of {MAX_INSPECT_LIMIT} entries per page; "
            "page through with offset instead",
        )
    if expect_fingerprint is not None and expect_fingerprint != fingerprint:
        raise StaleSnapshot(
            "inspect.stale",
            "the store changed since the page you are continuing was read; inspect again "
            "from offset 0",
        )
    expired = superseded = foreign = unsafe = 0
    safe: list[Fact] = []
    for row in rows:
        if row.status != "active":
            superseded += 1
        elif row.expiresAt is not None and row.expiresAt <= now:
            expired += 1
        elif tier in ("project", "stm") and row.persona != persona:
            foreign += 1
        elif not is_safe_row(row):
            unsafe += 1
        else:
            safe.append(row)
    safe.sort(key=attrgetter("recordedAt", "id"))
    if after is not None:
        start = bisect.bisect_right(safe, after, key=attrgetter("recordedAt", "id"))
    page = tuple(safe[start : start + size])
    end = start + len(page)
    return Inspection(
        tier=tier,
        fingerprint=fingerprint,
        entries=page,
        offset=start,
        matched=len(safe),
        next_offset=end if end < len(safe) else None,
        omitted=Omitted(expired, superseded, foreign, unsafe),
        pairs=_pairs(page),
        newest=safe[-1] if safe else None,
    )
