"""Injection latency at 1,000 and 10,000 facts, and remember→durable latency (Mind).

Rows (each measured against a floor in the same run):

* ``inject_1k`` / ``inject_10k`` — one ``plan_injection`` call (ranking, caps, budget,
  scanning of resurfaced entries, rendering) over cached per-tier indexes, against a
  *reference* inverted-index BM25 top-k written here (postings built once, heap top-k per
  tier, no rendering).  Target ≤ 2× the reference at 10,000 facts.
* ``inject_scaling`` — our 10k time / our 1k time; target ≤ 12.
* ``index_build_10k`` — building the four tier indexes from 10,000 facts (done once per
  store snapshot, cached by the service) against building the reference index.
* ``index_rebuild_10k`` — the incremental index update after one new row (what the service
  does after a ``remember``), against the reference's full build.  Target ≤ 1×.
* ``remember_durable`` — ``MemoryService.remember`` over the Store actor on real files, as
  every face runs it (validation, scanner, identity, the hop to the IO thread, atomic write
  + fsync) against the storage floor: a raw ``FileStore.mutate`` appending an equivalent
  row.  Target ≤ 2×.
* ``hybrid_inject_10k`` — the same plan with the semantic ranker (prompt embedding, one
  matrix-vector product per tier, fusion) against the lexical planner in the same run.
  Target ≤ 3×.  ``hybrid_scaling`` — hybrid 10k / hybrid 1k; target ≤ 12.
* ``embed_on_remember`` — giving the index after a ``remember`` its vectors: embedding the
  new fact, appending its record to the cache file beside the store, extending the matrix;
  against the remember→durable floor.  Target ≤ 2×.  (Hybrid rows need the ``semantic``
  extra; without it they are reported with ``ok`` null and the reason.)

``--json`` prints exactly one JSON object; otherwise a table.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import heapq
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import cast

from persona_mind.actors import ActorSystem
from persona_mind.actors.store import spawn_store
from persona_mind.clock import MonotonicClock
from persona_mind.embedding import SemanticEdge
from persona_mind.mind import (
    Fact,
    FactIndex,
    InjectionInput,
    Kind,
    MemoryService,
    MindScope,
    ProjectRef,
    Tier,
    plan_injection,
)
from persona_mind.mind._model import fact_id
from persona_mind.mind._text import lexical_tokens
from persona_mind.mind.recall._retrieval import TokenCache
from persona_mind.storage import FileStore, Layout

WORDS = [f"w{i}" for i in range(3000)]
TIERS = (("persona", 0.4), ("shared", 0.1), ("project", 0.3), ("stm", 0.2))
CAPS = {"persona": 8, "shared": 8, "project": 4, "stm": 5}
KINDS: tuple[Kind, ...] = (
    "objective",
    "invariant",
    "preference",
    "convention",
    "gotcha",
    "rationale",
    "note",
)


def make_facts(n: int, rng: random.Random) -> dict[str, list[Fact]]:
    out: dict[str, list[Fact]] = {t: [] for t, _ in TIERS}
    for i in range(n):
        r = rng.random()
        acc = 0.0
        tier = "stm"
        for t, share in TIERS:
            acc += share
            if r < acc:
                tier = t
                break
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
        tags = tuple(sorted({rng.choice(WORDS) for _ in range(rng.randint(0, 3))}))
        kind: Kind = KINDS[rng.randrange(len(KINDS))] if rng.random() < 0.2 else "note"
        out[tier].append(
            Fact(
                id=f"m_{i:08x}",
                kind=kind,
                text=text,
                tags=tags,
                recordedAt=float(i),
                lastSeenAt=float(i),
            )
        )
    return out


class Reference:
    """A plain inverted index + BM25 + heap top-k per tier: the floor we compare against."""

    def __init__(self, facts: list[Fact]) -> None:
        self.facts = facts
        self.post: dict[str, list[tuple[int, int]]] = {}
        self.len: list[int] = []
        for i, f in enumerate(facts):
            c = Counter(lexical_tokens(f.text))
            for t in f.tags:
                c[t] += 2
            self.len.append(sum(c.values()))
            for tok, tf in c.items():
                self.post.setdefault(tok, []).append((i, tf))
        self.avg = sum(self.len) / max(1, len(self.len))

    def top(self, query: str, k: int) -> list[Fact]:
        n = len(self.facts)
        acc: dict[int, float] = {}
        for tok in set(lexical_tokens(query)):
            plist = self.post.get(tok)
            if not plist:
                continue
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            for d, tf in plist:
                norm = 1.2 * (0.25 + 0.75 * self.len[d] / self.avg)
                acc[d] = acc.get(d, 0.0) + idf * tf * 2.2 / (tf + norm)
        best = heapq.nlargest(k, acc.items(), key=lambda kv: kv[1])
        return [self.facts[d] for d, _ in best]


def paired(
    ours: Callable[[], object], ref: Callable[[], object], repeat: int, warm: int = 1
) -> tuple[float, float]:
    """Median times of ``ours`` and ``ref`` measured alternately (they share the noise)."""
    for _ in range(warm):
        ours()
        ref()
    a: list[float] = []
    b: list[float] = []
    gc.collect()
    gc.disable()  # as timeit does: a collector pause lands on whichever side runs then
    try:
        samples = _samples(ours, ref, repeat)
    finally:
        gc.enable()
    a, b = samples
    return statistics.median(a), statistics.median(b)


def _samples(
    ours: Callable[[], object], ref: Callable[[], object], repeat: int
) -> tuple[list[float], list[float]]:
    a: list[float] = []
    b: list[float] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        ours()
        t1 = time.perf_counter()
        ref()
        t2 = time.perf_counter()
        a.append(t1 - t0)
        b.append(t2 - t1)
    return a, b


def bench_inject(n: int, rng: random.Random, repeat: int) -> tuple[float, float]:
    facts = make_facts(n, rng)
    indexes: dict[Tier, FactIndex] = {cast(Tier, t): FactIndex.build(fs) for t, fs in facts.items()}
    refs = {t: Reference(fs) for t, fs in facts.items()}
    queries = [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(16)]
    qi = iter(range(10**9))

    def ours() -> object:
        q = queries[next(qi) % len(queries)]
        return plan_injection(InjectionInput(prompt=q, now=1e12, indexes=indexes))

    def ref() -> object:
        q = queries[next(qi) % len(queries)]
        return [refs[t].top(q, CAPS[t]) for t in refs]

    # steady state: one warm-up pass over every query (per-token weights cached in the index,
    # as they are across turns in a session); index builds are measured separately
    return paired(ours, ref, repeat, warm=len(queries))


def bench_hybrid(
    n: int, rng: random.Random, repeat: int, edge: SemanticEdge
) -> tuple[float, float]:
    """(hybrid plan, lexical plan) medians over the same cached indexes and prompts.

    Steady state, as in a session: indexes are built and given their vectors once per store
    snapshot (measured by ``embed_on_remember`` for the incremental case); each turn embeds
    its prompt and ranks.
    """
    facts = make_facts(n, rng)
    indexes: dict[Tier, FactIndex] = {cast(Tier, t): FactIndex.build(fs) for t, fs in facts.items()}
    for index in indexes.values():
        edge.bind(index, None)
    queries = [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(16)]
    qi = iter(range(10**9))

    def hybrid() -> object:
        q = queries[next(qi) % len(queries)]
        semantic, status = edge.for_prompt(q)
        return plan_injection(
            InjectionInput(prompt=q, now=1e12, indexes=indexes, semantic=semantic, ranker=status)
        )

    def lexical() -> object:
        q = queries[next(qi) % len(queries)]
        return plan_injection(InjectionInput(prompt=q, now=1e12, indexes=indexes))

    return paired(hybrid, lexical, repeat, warm=len(queries))


def bench_build(n: int, rng: random.Random) -> tuple[float, float, float]:
    """Index builds against the reference build: cold, and a rebuild after one new row.

    The service keeps per-fact token counts across rebuilds, so the rebuild that follows a
    ``remember`` re-tokenises only the changed row.
    """
    facts = make_facts(n, rng)
    caches: dict[str, TokenCache] = {t: {} for t in facts}

    def cold() -> object:
        return [FactIndex.build(fs) for fs in facts.values()]

    def ref() -> object:
        return [Reference(fs) for fs in facts.values()]

    cold_t, ref_t = paired(cold, ref, 5)
    built = {t: FactIndex.build(fs, None, caches[t]) for t, fs in facts.items()}
    extra = Fact(
        id="m_new", kind="note", text="a freshly remembered fact", recordedAt=0.0, lastSeenAt=0.0
    )

    def rebuild() -> object:
        out = []
        for t, fs in facts.items():
            idx = built[t].updated([*fs, extra], None, caches[t])
            out.append(idx if idx is not None else FactIndex.build([*fs, extra], None, caches[t]))
        return out

    warm_t, _ = paired(rebuild, ref, 5)
    return cold_t, warm_t, ref_t


async def bench_remember(repeat: int, edge: SemanticEdge | None) -> tuple[float, float, float]:
    """(remember, raw durable floor, embedding the new fact on remember) medians."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        engine = FileStore(Layout(root))
        scope = MindScope(root, "official/bench/persona", ProjectRef(str(root / "repo")))
        async with ActorSystem() as system:
            return await _remember_rows(
                MemoryService(spawn_store(system, root), MonotonicClock(), scope),
                engine,
                repeat,
                edge,
            )


async def _remember_rows(
    svc: MemoryService, engine: FileStore, repeat: int, edge: SemanticEdge | None
) -> tuple[float, float, float]:
    """The remember rows' medians: ours, the raw durable floor, embedding on remember."""
    scope = svc.scope
    for i in range(200):
        await svc.remember("note", f"seed fact {i} " + " ".join(WORDS[i : i + 10]))
    target = scope.fact_target("stm")
    ours: list[float] = []
    floor: list[float] = []
    embed: list[float] = []
    if edge is not None:
        edge.bind(await svc.index("stm", svc.now()), target.path)
    for i in range(repeat):
        t0 = time.perf_counter()
        await svc.remember("note", f"benchmark fact number {i} about caching")
        ours.append(time.perf_counter() - t0)
        if edge is not None:
            index = await svc.index("stm", svc.now())
            t0 = time.perf_counter()
            edge.bind(index, target.path)
            embed.append(time.perf_counter() - t0)
        row = Fact(
            id=fact_id("stm", f"floor {i}", None),
            kind="note",
            text=f"floor fact number {i} about caching",
            recordedAt=0.0,
            lastSeenAt=0.0,
            expiresAt=1e12,
        )
        t0 = time.perf_counter()
        engine.mutate(target, lambda rows, r=row: (*rows, r))  # type: ignore[misc]
        floor.append(time.perf_counter() - t0)
    return (
        statistics.median(ours),
        statistics.median(floor),
        statistics.median(embed) if embed else float("nan"),
    )


def row(
    name: str, value: float, floor: float, target: float, unit: str = "ms"
) -> dict[str, object]:
    ratio = value / floor if floor else float("inf")
    return {
        "name": name,
        "value": round(value * 1e3, 3),
        "unit": unit,
        "floor": round(floor * 1e3, 3),
        "ratio": round(ratio, 2),
        "target": target,
        "ok": ratio <= target,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)
    rng = random.Random(7)
    edge: SemanticEdge | None = SemanticEdge()
    assert edge is not None
    status = edge.load_now()
    if not status.hybrid:
        edge = None
    ours1, ref1 = bench_inject(1_000, rng, args.repeat)
    ours10, ref10 = bench_inject(10_000, rng, args.repeat)
    build, rebuild, build_ref = bench_build(10_000, rng)
    rem, rem_floor, embed = asyncio.run(bench_remember(args.repeat, edge))
    results = [
        row("inject_1k", ours1, ref1, 2.0),
        row("inject_10k", ours10, ref10, 2.0),
        {
            "name": "inject_scaling",
            "value": round(ours10 / ours1, 2),
            "unit": "x",
            "floor": 1.0,
            "ratio": round(ours10 / ours1, 2),
            "target": 12.0,
            "ok": ours10 / ours1 <= 12.0,
        },
        row("index_build_10k", build, build_ref, 2.0),
        row("index_rebuild_10k", rebuild, build_ref, 1.0),
        row("remember_durable", rem, rem_floor, 2.0),
    ]
    # informational: the 2x target applies at 10,000 facts (fixed per-call costs dominate at 1k)
    results[0]["target"] = None
    results[0]["ok"] = None
    if edge is not None:
        hyb1, _ = bench_hybrid(1_000, rng, args.repeat, edge)
        hyb10, lex10 = bench_hybrid(10_000, rng, args.repeat, edge)
        results += [
            row("hybrid_inject_10k", hyb10, lex10, 3.0),
            {
                "name": "hybrid_scaling",
                "value": round(hyb10 / hyb1, 2),
                "unit": "x",
                "floor": 1.0,
                "ratio": round(hyb10 / hyb1, 2),
                "target": 12.0,
                "ok": hyb10 / hyb1 <= 12.0,
            },
            row("embed_on_remember", embed, rem_floor, 2.0),
        ]
    else:
        for name in ("hybrid_inject_10k", "hybrid_scaling", "embed_on_remember"):
            results.append(
                {
                    "name": name,
                    "value": None,
                    "unit": "ms",
                    "floor": None,
                    "ratio": None,
                    "target": f"skipped: {status.reason}",
                    "ok": None,
                }
            )
    if args.json:
        print(json.dumps({"results": results}))
    else:
        print(f"{'name':<18}{'value':>10}{'unit':>6}{'floor':>10}{'ratio':>8}{'target':>8}  ok")
        for r in results:
            print(
                f"{r['name']:<18}{r['value']:>10}{r['unit']:>6}{r['floor']:>10}"
                f"{r['ratio']:>8}{r['target'] or '-':>8}  {'' if r['ok'] is None else r['ok']}"
            )
    return 0 if all(r["ok"] is not False for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
