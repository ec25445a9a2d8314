"""Retrieval quality: Mind's injection against a plain BM25 written here, on evidence-labelled sets.

What is compared, in one run, per dataset:

* ``bm25`` — the floor: a textbook BM25 (k1 1.2, b 0.75, lower-cased word tokens, no
  stemming) in ``bench/_bm25.py``, independent of Mind's ranking code; facts it does not
  match are never picked, as Mind's relevance floor leaves them out.
* ``lexical`` — Mind's planner ranking with BM25 over stemmed terms (no model).
* ``hybrid`` — Mind's planner with the semantic ranker fused in (needs the ``semantic``
  extra; skipped with the reason when the model is not installed).

Two settings: ``caps`` — the production caps and the 2,400-token block (project LTM admits
at most 4 entries), against BM25's top 4; ``budget@N`` — caps lifted, the whole block
within N tokens, against BM25 lines (``- text``, no wrapper) packed in score order within
the same N tokens.  Two measures: *any* — the share of questions with at least one
evidence fact injected; *share* — the mean share of a question's evidence injected.  Two
diagnostics without a target: *entries* — the mean number of facts injected (at a token
budget Mind's block pays for its wrapper, headings and entry tags, BM25's bare lines do
not) and *plan_ms*.  Facts are given ids shaped like Mind's own (``m_`` + 16 hex, see
:func:`production_ids`), so each entry's tag costs what it costs in production
(``--ids dataset`` keeps the dataset's shorter ids, as runs before issue 16's follow-up did).

*foreign tokens* — as *noanswer tokens* below, for the questions of the run's other datasets
(those sharing no
fact with this one) asked of this whole store: prompts nothing in it applies to.
*noanswer tokens* — the mean tokens Mind injects at the caps on *no-answer* prompts (each
question asked of its store with its source's facts taken out; ``bench/_noanswer.py``): all
of it is padding.  ``--split dev|test`` keeps the questions whose source (repository,
dialogue) hashes to that half: tune on ``dev``, report ``test``.

Datasets (``--dataset PATH``, repeatable; default: the two bundled sets):

``sessions`` (the bundled synthetic set)::

    {"sessions": [{"id": "s1", "turns": [{"id": "t1", "speaker": "user", "text": "..."}]}],
     "questions": [{"id": "q1", "question": "...", "evidence": ["t1", ...]}]}

``facts`` (the bundled coding-agent set)::

    {"facts": [{"id", "kind", "text", "tags", "source": {"repo", "path"}}],
     "prompts": [{"id", "prompt", "expected": ["fact id", ...]}]}

Converted public sets use the ``facts`` format (a fact may carry ``recordedAt``):
``python -m bench._madial`` (MADial-Bench, a public conversational-memory set with evidence
labels) and ``python -m bench._bigcoding`` (the coding set plus 1,250 distractors from
other projects' guides, 1,553 facts); neither output is committed — see
``bench/data/README.md``.

``longmemeval`` (a list of instances, one haystack each; see ``bench/data/README.md``):
every turn of ``haystack_sessions`` becomes a fact; turns with ``has_answer: true`` are the
evidence; abstention instances (``question_id`` ending ``_abs``) and instances without a
labelled turn are skipped.

``python bench/recall.py [--dataset PATH ...] [--ranker lexical|hybrid|both]
[--fusion score|rrf] [--ids production|dataset] [--split all|dev|test] [--json]``; a path
that does not exist skips cleanly (exit 0, one line saying why; with ``--json`` an empty
``results`` list and a ``skipped`` reason).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/recall.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._bm25 import BM25, bm25_pick
from bench._datasets import Case, in_split, load, production_ids
from bench._noanswer import Split
from persona_mind.embedding import SemanticEdge
from persona_mind.mind import FactIndex, InjectionInput, InjectionPlan, plan_injection
from persona_mind.mind.recall._fusion import Fusion

DATA = Path(__file__).parent / "data"
DEFAULTS = (DATA / "recall_synthetic.json", DATA / "coding_memory.json")
BUDGETS = (1_000, 2_400)
PROJECT_CAP = 4
NO_CAPS = {"ltm": 100_000, "project": 100_000, "stm": 100_000, "backlog": 100_000}
MARGIN = 0.05


# -- evaluation ------------------------------------------------------------------------------


@dataclass
class Score:
    any: float
    share: float
    entries: float
    ms: float


Picker = Callable[[Case, FactIndex, BM25, str, int | None, int | None], set[str]]


def _measure(cases: Sequence[Case], pick: Picker, cap: int | None, budget: int | None) -> Score:
    anys: list[float] = []
    shares: list[float] = []
    sizes: list[int] = []
    times: list[float] = []
    for case in cases:
        index = FactIndex.build(case.facts)
        bm = BM25(case.facts)
        for _, question, evidence in case.questions:
            t0 = time.perf_counter()
            got = pick(case, index, bm, question, cap, budget)
            times.append((time.perf_counter() - t0) * 1e3)
            hit = len(got & evidence)
            sizes.append(len(got))
            anys.append(float(hit > 0))
            shares.append(hit / len(evidence))
    return Score(
        statistics.fmean(anys),
        statistics.fmean(shares),
        statistics.fmean(sizes),
        statistics.median(times),
    )


def mind_plan(
    edge: SemanticEdge | None,
    fusion: Fusion,
    index: FactIndex,
    q: str,
    cap: int | None,
    budget: int | None,
) -> InjectionPlan:
    """Mind's plan for ``q`` over one project store: at the caps, or uncapped within ``budget``."""
    semantic = edge.for_prompt(q)[0] if edge is not None else None
    kwargs: dict[str, Any] = {"total_tokens": budget or 2_400}
    if cap is None:
        kwargs["caps"] = NO_CAPS
    plan = plan_injection(
        InjectionInput(
            prompt=q,
            now=1e12,
            indexes={"project": index},
            semantic=semantic,
            fusion=fusion,
            **kwargs,
        )
    )
    assert plan.tokens <= kwargs["total_tokens"]
    return plan


def mind_picker(edge: SemanticEdge | None, fusion: Fusion) -> Picker:
    def pick(
        case: Case, index: FactIndex, bm: BM25, q: str, cap: int | None, budget: int | None
    ) -> set[str]:
        return {item.id for item in mind_plan(edge, fusion, index, q, cap, budget).items}

    return pick


def no_answer(
    cases: Sequence[Case],
    edge: SemanticEdge | None,
    fusion: Fusion,
    foreign: Sequence[str] | None = None,
) -> tuple[float, float, int]:
    """(mean tokens, mean entries, prompts) Mind injects at the caps on no-answer prompts:
    each question asked of its store with its source's facts taken out (``_noanswer``), or,
    with ``foreign``, those prompts (another dataset's) asked of the whole store."""
    tokens: list[int] = []
    entries: list[int] = []
    for case in cases:
        stores: dict[frozenset[str], FactIndex] = {}
        asked = [(f"foreign{i}", q) for i, q in enumerate(foreign or ())]
        for qid, question in asked if foreign is not None else [t[:2] for t in case.questions]:
            drop = frozenset() if foreign is not None else case.source(qid)[1]
            index = stores.get(drop)
            if index is None:
                index = stores[drop] = FactIndex.build([f for f in case.facts if f.id not in drop])
            plan = mind_plan(edge, fusion, index, question, PROJECT_CAP, None)
            tokens.append(plan.tokens)
            entries.append(len(plan.items))
    if not tokens:
        return 0.0, 0.0, 0
    return statistics.fmean(tokens), statistics.fmean(entries), len(tokens)


def bm25_picker(
    case: Case, index: FactIndex, bm: BM25, q: str, cap: int | None, budget: int | None
) -> set[str]:
    return bm25_pick(bm, q, cap, budget)


def _row(name: str, value: float, floor: float, margin: float) -> dict[str, object]:
    """One measure against the BM25 floor; a floor too close to 1.0 to beat by ``margin``
    is reported as saturated (``ok`` None) rather than passed or failed."""
    target = f">= bm25 + {margin:.2f}" if margin else ">= bm25"
    ok: bool | None = value >= floor + margin - 1e-9
    if margin and floor + margin > 1.0:
        target, ok = f"saturated (bm25 > {1 - margin:.2f}); >= bm25", value >= floor - 1e-9
        ok = None if ok else False
    return {
        "name": name,
        "value": round(value, 3),
        "unit": "share",
        "floor": round(floor, 3),
        "ratio": round(value / floor, 2) if floor else None,
        "target": target,
        "ok": ok,
    }


def run(
    path: Path,
    rankers: Sequence[str],
    fusion: Fusion,
    ids: str = "production",
    split: Split = "all",
    foreign: Sequence[str] = (),
) -> list[dict[str, object]]:
    cases = load(path)
    if ids == "production":
        cases = production_ids(cases)
    cases = in_split(cases, split)
    edge: SemanticEdge | None = None
    if "hybrid" in rankers:
        edge = SemanticEdge()
        status = edge.load_now()
        if not status.hybrid:
            raise RuntimeError(f"hybrid ranker unavailable: {status.reason}")
    settings: list[tuple[str, int | None, int | None]] = [("caps", PROJECT_CAP, None)]
    settings += [(f"budget@{b}", None, b) for b in BUDGETS]
    out: list[dict[str, object]] = []
    tag = path.stem if split == "all" else f"{path.stem}[{split}]"
    for label, cap, budget in settings:
        floor = _measure(cases, bm25_picker, cap, budget)
        for ranker in rankers:
            pick = mind_picker(edge if ranker == "hybrid" else None, fusion)
            got = _measure(cases, pick, None if cap is None else cap, budget)
            margin = MARGIN if ranker == "hybrid" else 0.0
            out.append(_row(f"{tag} {label} any {ranker}", got.any, floor.any, margin))
            out.append(_row(f"{tag} {label} share {ranker}", got.share, floor.share, margin))
            out.append(
                {  # how many entries fit: the block's wrapper and tags cost room BM25's bare
                    # lines do not, so at a token budget Mind shows fewer entries
                    "name": f"{tag} {label} entries {ranker}",
                    "value": round(got.entries, 1),
                    "unit": "entries",
                    "floor": round(floor.entries, 1),
                    "ratio": round(got.entries / floor.entries, 2) if floor.entries else None,
                    "target": None,
                    "ok": None,
                }
            )
            out.append(
                {
                    "name": f"{tag} {label} plan_ms {ranker}",
                    "value": round(got.ms, 3),
                    "unit": "ms",
                    "floor": round(floor.ms, 3),
                    "ratio": None,
                    "target": None,
                    "ok": None,
                }
            )
    for ranker, kind in [(r, k) for r in rankers for k in ("noanswer", "foreign")]:
        if kind == "foreign" and not foreign:
            continue
        tokens, entries, n = no_answer(
            cases,
            edge if ranker == "hybrid" else None,
            fusion,
            foreign if kind == "foreign" else None,
        )
        out.append(
            {  # padding: every token injected when the store holds nothing the prompt asks
                "name": f"{tag} {kind} tokens {ranker}",
                "value": round(tokens, 1),
                "unit": "tokens",
                "floor": None,
                "ratio": None,
                "target": None,
                "ok": None,
                "entries": round(entries, 2),
                "prompts": n,
            }
        )
    return out


def foreign_to(path: Path, loaded: dict[Path, list[Case]]) -> list[str]:
    """The questions of the other datasets of this run that share no fact with ``path``'s
    (the large coding store contains the small one, so neither is foreign to the other)."""
    mine = {f.id for c in loaded[path] for f in c.facts}
    return [
        q
        for other, cases in loaded.items()
        if other != path and not mine & {f.id for c in cases for f in c.facts}
        for c in cases
        for _, q, _ in c.questions
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Mind evidence recall against in-benchmark BM25")
    ap.add_argument("legacy", nargs="?", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--dataset", type=Path, action="append", default=None)
    ap.add_argument("--ranker", choices=("lexical", "hybrid", "both"), default="both")
    ap.add_argument("--fusion", choices=("score", "rrf"), default="score")
    ap.add_argument(
        "--ids",
        choices=("production", "dataset"),
        default="production",
        help="fact ids shaped like Mind's (default) or the dataset's own, shorter ones",
    )
    ap.add_argument(
        "--split",
        choices=("all", "dev", "test"),
        default="all",
        help="only the questions whose source (repository, dialogue) hashes to this split",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    paths = list(args.dataset or ([args.legacy] if args.legacy else DEFAULTS))
    missing = [p for p in paths if not p.is_file()]
    if missing:
        reason = f"skipped: dataset {missing[0]} not found"
        print(json.dumps({"results": [], "skipped": reason}) if args.json else reason)
        return 0
    rankers = ("lexical", "hybrid") if args.ranker == "both" else (args.ranker,)
    try:
        loaded = {p: in_split(load(p), args.split) for p in paths}
        results = [
            r
            for p in paths
            for r in run(p, rankers, args.fusion, args.ids, args.split, foreign_to(p, loaded))
        ]
    except RuntimeError as exc:
        reason = f"skipped: {exc}"
        print(json.dumps({"results": [], "skipped": reason}) if args.json else reason)
        return 0
    if args.json:
        print(json.dumps({"results": results}))
    else:
        for r in results:
            verdict = {True: "ok", False: "MISS", None: ""}[r["ok"]]  # type: ignore[index]
            print(f"{r['name']:<48} {r['value']!s:>8} (bm25 {r['floor']}) {verdict}")
    return 0 if all(r["ok"] is not False for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
