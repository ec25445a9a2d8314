"""The in-benchmark BM25 floor of ``bench/recall.py``: textbook BM25 written independently of
Mind's ranking code, and its picks at a cap or within a token budget."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from persona_mind.mind import Fact

__all__ = ("BM25", "bm25_pick")

_WORD = re.compile(r"[^\W_]+")


def _plain(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


class BM25:
    """Textbook BM25 over each fact's text and tags (no stemming, no priorities)."""

    def __init__(self, facts: Sequence[Fact], k1: float = 1.2, b: float = 0.75) -> None:
        self.facts = list(facts)
        self.tf = [Counter(_plain(" ".join((f.text, *f.tags)))) for f in self.facts]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = (sum(self.len) / len(self.len)) if self.len else 1.0
        df: Counter[str] = Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(self.facts)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.k1, self.b = k1, b

    def ranked(self, query: str) -> list[Fact]:
        """Matches by score, ties by recency.  Facts it does not match are never picked: as
        in Mind's planner (its relevance floor), so neither side gains by filling room with
        facts that match nothing."""
        q = set(_plain(query))
        scores: list[tuple[float, int]] = []
        for i, c in enumerate(self.tf):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.len[i] / (self.avg or 1.0))
            for t in q & c.keys():
                s += self.idf[t] * c[t] * (self.k1 + 1) / (c[t] + norm)
            if s > 0:
                scores.append((s, i))
        scores.sort(key=lambda x: (-x[0], -self.facts[x[1]].lastSeenAt, self.facts[x[1]].id))
        return [self.facts[i] for _, i in scores]


def bm25_pick(bm: BM25, query: str, cap: int | None, budget: int | None) -> set[str]:
    """BM25's top ``cap`` facts, or its lines packed within ``budget`` tokens."""
    ranked = bm.ranked(query)
    if cap is not None:
        return {f.id for f in ranked[:cap]}
    assert budget is not None
    room, out = budget * 3, set()
    for f in ranked:
        cost = len(f"- {f.text}\n".encode())
        if cost <= room:
            room -= cost
            out.add(f.id)
    return out
