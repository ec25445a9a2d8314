"""Explainable lexical ranking: BM25 over stemmed text and tags with an inverted index.

Why lexical: it is deterministic, explainable (every score names its matched terms) and
fast — an index built once per store snapshot ranks 10,000 facts in milliseconds.  Order
(M-INJECT-14): facts matching the current task first (by BM25 score), then the rest by
recency (``lastSeenAt``; reads never change it, M-FACT-10), ties broken by id so the same
input always gives the same order.  Objective/invariant priority is applied by the planner
and bounded there (M-INJECT-5/6).  Terms are stemmed (:func:`index_terms`); explanations
name the fact's own words.  The semantic signal is fused in by the planner
(:mod:`persona_mind.mind.recall._fusion`), which hands each :class:`Ranked` its similarity.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections import Counter
from dataclasses import dataclass, field
from operator import itemgetter

from persona_mind._quietgc import freeze_survivors, no_full_collections
from persona_mind.mind._model import Fact
from persona_mind.mind._text import index_terms, lexical_tokens, stem
from persona_mind.mind.recall._retire import retire
from persona_mind.mind.trust._scanner import is_safe

__all__ = (
    "BM25_B",
    "BM25_K1",
    "PRIORITY_KINDS",
    "TAG_WEIGHT",
    "FactIndex",
    "Ranked",
    "TokenCache",
    "retire",
)

BM25_K1 = 1.2
BM25_B = 0.75
PRIORITY_KINDS = frozenset({"objective", "invariant"})
TAG_WEIGHT = 2
"""A tag token counts as this many text occurrences: tags are the author's own labels."""


class Ranked:
    """One ranked fact and why it ranked there (matched terms are computed on demand)."""

    __slots__ = ("_matched", "_qtokens", "cover", "fact", "score", "semantic")

    def __init__(
        self,
        fact: Fact,
        score: float,
        matched: tuple[str, ...] | None = None,
        *,
        qtokens: frozenset[str] = frozenset(),
        semantic: float | None = None,
    ) -> None:
        self.fact = fact
        self.score = score
        self._matched = matched
        self._qtokens = qtokens
        self.semantic = semantic
        """Cosine similarity of the prompt and the fact (``None``: lexical ranking only)."""
        self.cover: float | None = None
        """Covered information, the floor's lexical signal (set by the planner, ``_floor``)."""

    @property
    def matched(self) -> tuple[str, ...]:
        """The fact's own words (text or tags) whose index term the prompt shares."""
        if self._matched is None:
            words = set(lexical_tokens(self.fact.text))
            for tag in self.fact.tags:
                words.update(lexical_tokens(tag))
            q = self._qtokens
            self._matched = tuple(sorted(w for w in words if stem(w) in q))
        return self._matched

    @property
    def reason(self) -> str:
        sim = "" if self.semantic is None else f"semantic {self.semantic:.2f}"
        if self.score > 0:
            terms = ", ".join(self.matched)
            parts = [f"task match {self.score:.2f}"]
            if terms:
                parts.append(f"on {terms}")
            if sim:
                parts.append(f"({sim})")
            return " ".join(parts)
        return f"recent ({sim})" if sim else "recent"

    def __repr__(self) -> str:
        return f"Ranked({self.fact.id!r}, {self.score:.3f})"


TokenCache = dict[str, tuple[str, tuple[str, ...], tuple[tuple[str, int], ...]]]
"""Per-fact token counts kept across index rebuilds (keyed by fact id)."""


def _tokens(fact: Fact, cache: TokenCache | None) -> tuple[tuple[str, int], ...]:
    hit = cache.get(fact.id) if cache is not None else None
    if hit is not None and hit[0] == fact.text and hit[1] == fact.tags:
        return hit[2]
    counts = Counter(index_terms(fact.text))
    for tag in fact.tags:
        for tok in index_terms(tag):
            counts[tok] += TAG_WEIGHT
    items = tuple(counts.items())
    if cache is not None:
        cache[fact.id] = (fact.text, fact.tags, items)
    return items


FREEZE_MIN_DOCS = 5_000
"""A build of at least this many documents freezes what survives it (``_quietgc``)."""

MAX_INCREMENTAL = 64
"""Above this many changed rows an update rebuilds the index from scratch."""


@functools.lru_cache(maxsize=16)
def query_terms(query: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """A prompt's distinct index terms, sorted, and as a set (memoised per prompt).

    One plan ranks the same prompt against every tier, and each ranking tokenised and
    stemmed it again; a turn now does that once (issue 10, ``before_agent_start``).
    """
    terms = frozenset(index_terms(query))
    return tuple(sorted(terms)), terms


@dataclass(slots=True, eq=False, weakref_slot=True)
class FactIndex:
    """An inverted index over a snapshot's *live* facts (build once, rank many prompts).

    Documents live in slots; an incremental :meth:`updated` appends changed rows to new
    slots and drops the old slots from the postings, so a write costs O(changed rows +
    touched tokens) plus O(n) bookkeeping instead of re-tokenising the store.  Rankings never
    depend on slot order (ties are broken by recency and id), so an updated index ranks
    exactly like a fresh build of the same rows.
    """

    facts: list[Fact]
    postings: dict[str, list[tuple[int, int]]]
    lengths: list[int]
    avgdl: float
    by_recency: list[int]
    priority: list[int]
    norms: list[float] = field(default_factory=list)
    priority_set: frozenset[int] = frozenset()
    slot_of: dict[str, int] = field(default_factory=dict)
    tokens: list[tuple[tuple[str, int], ...]] = field(default_factory=list)
    dead: int = 0
    _idf: dict[str, float] = field(default_factory=dict)
    _safe: dict[str, bool] = field(default_factory=dict)
    _weighted: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    _sets: dict[int, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        facts: tuple[Fact, ...] | list[Fact],
        now: float | None = None,
        cache: TokenCache | None = None,
    ) -> FactIndex:
        """Index ``facts`` (only live ones when ``now`` is given).

        ``cache`` (fact id → (text, tags, token counts)) lets a rebuild re-tokenise only the
        rows that changed; it is updated in place.

        Full garbage collections are held off while it runs (a 19,000-fact build allocates
        millions of objects, and each full collection it would trigger stops every thread
        for 40–100 ms, issue 15 item 9); a large index is frozen out of later ones.
        """
        with no_full_collections():
            index = cls._build(facts, now, cache)
            if len(index.facts) >= FREEZE_MIN_DOCS:
                freeze_survivors()
        return index

    @classmethod
    def _build(
        cls, facts: tuple[Fact, ...] | list[Fact], now: float | None, cache: TokenCache | None
    ) -> FactIndex:
        docs = [f for f in facts if now is None or f.live(now)]
        postings: dict[str, list[tuple[int, int]]] = {}
        lengths: list[int] = []
        tokens: list[tuple[tuple[str, int], ...]] = []
        for i, fact in enumerate(docs):
            items = _tokens(fact, cache)
            tokens.append(items)
            lengths.append(sum(tf for _, tf in items))
            for tok, tf in items:
                postings.setdefault(tok, []).append((i, tf))
        index = cls(docs, postings, lengths, 1.0, [], [], tokens=tokens)
        index.slot_of = {f.id: i for i, f in enumerate(docs)}
        index._finish(cache_safe=None)
        return index

    def _finish(self, cache_safe: dict[str, bool] | None) -> None:
        """Recompute what depends on the whole live set: avgdl, norms, recency, priority."""
        live = self.slot_of
        total = sum(self.lengths[s] for s in live.values())
        self.avgdl = (total / len(live)) if live else 1.0
        avg = self.avgdl or 1.0
        self.norms = [BM25_K1 * (1 - BM25_B + BM25_B * n / avg) for n in self.lengths]
        facts = self.facts
        self.by_recency = sorted(live.values(), key=lambda i: (-facts[i].lastSeenAt, facts[i].id))
        self.priority = [i for i in self.by_recency if facts[i].kind in PRIORITY_KINDS]
        self.priority_set = frozenset(self.priority)
        self._idf = {}
        self._weighted = {}
        self._safe = dict(cache_safe) if cache_safe is not None else {}

    def updated(
        self,
        rows: tuple[Fact, ...] | list[Fact],
        now: float | None = None,
        cache: TokenCache | None = None,
    ) -> FactIndex | None:
        """This index brought up to ``rows`` incrementally, or ``None`` if a rebuild is better."""
        new_live = {f.id: f for f in rows if now is None or f.live(now)}
        removed = [
            i
            for fid, i in self.slot_of.items()
            if fid not in new_live or new_live[fid] != self.facts[i]
        ]
        added = [
            f
            for fid, f in new_live.items()
            if fid not in self.slot_of or self.facts[self.slot_of[fid]] != f
        ]
        if len(removed) + len(added) > MAX_INCREMENTAL or self.dead + len(removed) > len(new_live):
            return None
        facts = list(self.facts)
        lengths = list(self.lengths)
        tokens = list(self.tokens)
        slot_of = dict(self.slot_of)
        postings = dict(self.postings)
        copied: set[str] = set()

        def own(tok: str) -> list[tuple[int, int]]:
            if tok not in copied:
                postings[tok] = list(postings.get(tok, ()))
                copied.add(tok)
            return postings[tok]

        gone = set(removed)
        for slot in removed:
            del slot_of[facts[slot].id]
            for tok, _ in tokens[slot]:
                kept = [p for p in own(tok) if p[0] != slot]
                if kept:
                    postings[tok] = kept
                else:
                    del postings[tok]
                    copied.discard(tok)
        for fact in added:
            slot = len(facts)
            items = _tokens(fact, cache)
            facts.append(fact)
            tokens.append(items)
            lengths.append(sum(tf for _, tf in items))
            slot_of[fact.id] = slot
            for tok, tf in items:
                own(tok).append((slot, tf))
        index = FactIndex(
            facts, postings, lengths, 1.0, [], [], tokens=tokens, dead=self.dead + len(gone)
        )
        index.slot_of = slot_of
        changed = {facts[s].id for s in removed}
        index._finish({k: v for k, v in self._safe.items() if k not in changed})
        return index

    def __len__(self) -> int:
        return len(self.slot_of)

    def idf(self, token: str) -> float:
        cached = self._idf.get(token)
        if cached is None:
            n = len(self.slot_of)
            df = len(self.postings.get(token, ()))
            cached = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            self._idf[token] = cached
        return cached

    def term_order(self, slot: int) -> dict[str, int]:
        """The distinct terms of the fact in ``slot``, each with its place in the fact's term
        order, memoised: a slot's fact never changes within one index, and every turn's
        relevance floor asks it of the same top facts (as a dict, so a prompt's few terms
        are looked up in it, not its few dozen in the prompt's)."""
        got = self._sets.get(slot)
        if got is None:
            got = self._sets[slot] = {t: i for i, (t, _) in enumerate(self.tokens[slot])}
        return got

    def weighted(self, token: str) -> list[tuple[int, float]]:
        """``token``'s postings with each document's full BM25 contribution, memoised.

        A contribution depends only on the token and the document (idf, tf, length), never
        on the rest of the query, so it is computed once per index and token.
        """
        cached = self._weighted.get(token)
        if cached is None:
            idf = self.idf(token)
            k1 = BM25_K1 + 1
            norms = self.norms
            cached = [
                (doc, idf * tf * k1 / (tf + norms[doc])) for doc, tf in self.postings.get(token, ())
            ]
            self._weighted[token] = cached
        return cached

    def scores(self, query: str) -> dict[int, float]:
        """BM25 score of every document sharing a token with ``query``."""
        out: dict[int, float] = {}
        get = out.get
        for tok in query_terms(query)[0]:
            if tok not in self.postings:
                continue
            for doc, gain in self.weighted(tok):
                out[doc] = get(doc, 0.0) + gain
        return out

    def ranked(self, doc: int, qtokens: frozenset[str], scored: dict[int, float]) -> Ranked:
        """A :class:`Ranked` for ``doc`` (score 0 when it did not match)."""
        score = scored.get(doc)
        if score is None:
            return Ranked(self.facts[doc], 0.0, ())
        return Ranked(self.facts[doc], score, qtokens=qtokens)

    def rank(
        self,
        query: str,
        limit: int | None = None,
        scored: dict[int, float] | None = None,
    ) -> list[Ranked]:
        """Matches by score (then recency, then id), followed by the rest by recency.

        ``scored`` reuses a :meth:`scores` result; with ``limit`` only the best ``limit``
        matches are selected (a heap, not a full sort).
        """
        if scored is None:
            scored = self.scores(query)
        facts = self.facts

        def key(d: int) -> tuple[float, float, str]:
            return (-scored[d], -facts[d].lastSeenAt, facts[d].id)

        if limit is None:
            matched = sorted(scored, key=key)
        elif len(scored) <= 2 * limit:
            # few matches (the usual prompt against a project store): the full order of all
            # of them costs less than the heap and the tie pool below, and its first
            # ``limit`` are the same documents in the same order
            matched = sorted(scored, key=key)[:limit]
        else:
            # a C-level heap on the score alone, then every document tied with the cut-off
            # score, then the full (score, recency, id) order on that small set: exact, and
            # independent of slot order
            top = heapq.nlargest(limit, scored.items(), key=itemgetter(1))
            if top:
                cut = top[-1][1]
                pool = {d for d, _ in top} | {d for d, sc in scored.items() if sc == cut}
            else:  # limit 0
                pool = set()
            matched = sorted(pool, key=key)[:limit]
        qtokens = query_terms(query)[1]
        # every matched document is in ``scored`` (what :meth:`ranked` would look up)
        out = [Ranked(facts[d], scored[d], qtokens=qtokens) for d in matched]
        if limit is not None and len(out) >= limit:
            return out
        for d in self.by_recency:
            if d in scored:
                continue
            out.append(Ranked(facts[d], 0.0, ()))
            if limit is not None and len(out) >= limit:
                break
        return out

    def is_safe(self, fact: Fact) -> bool:
        """The scanner verdict for ``fact`` (text and tags), memoised with the index."""
        verdict = self._safe.get(fact.id)
        if verdict is None:
            verdict = is_safe(fact.text, *fact.tags)
            self._safe[fact.id] = verdict
        return verdict
