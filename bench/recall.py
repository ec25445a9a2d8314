"""Retrieval quality: Mind's injection against a plain BM25 written here, on evidence-labelled sets.

What is compared, in one run, per dataset:

* ``bm25`` — the floor: a textbook BM25 (k1 1.2, b 0.75, lower-cased word tokens, no
  stemming) written in this file, independent of Mind's ranking code; facts it does not
  match follow by recency, as in Mind's planner.
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
[--fusion score|rrf] [--ids production|dataset] [--json]``; a path that does not exist
skips cleanly (exit 0, one line saying why; with ``--json`` an empty ``results`` list and a
``skipped`` reason).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from persona_mind.embedding import SemanticEdge
from persona_mind.mind import Fact, FactIndex, InjectionInput, plan_injection
from persona_mind.mind.recall._fusion import Fusion

DATA = Path(__file__).parent / "data"
DEFAULTS = (DATA / "recall_synthetic.json", DATA / "coding_memory.json")
BUDGETS = (1_000, 2_400)
PROJECT_CAP = 4
NO_CAPS = {"ltm": 100_000, "project": 100_000, "stm": 100_000, "backlog": 100_000}
MARGIN = 0.05
_WORD = re.compile(r"[^\W_]+")


@dataclass
class Case:
    """One haystack and the questions asked of it."""

    facts: list[Fact]
    questions: list[tuple[str, str, set[str]]]


def _fact(fid: str, text: str, n: float, kind: str = "note", tags: Sequence[str] = ()) -> Fact:
    return Fact(
        id=fid,
        kind=kind,  # type: ignore[arg-type]
        text=text,
        tags=tuple(tags),
        recordedAt=float(n),
        lastSeenAt=float(n),
    )


def _sessions(doc: dict[str, Any], path: Path) -> list[Case]:
    facts: list[Fact] = []
    for session in doc["sessions"]:
        for turn in session.get("turns", []):
            text = f"{turn.get('speaker', '?')}: {turn['text']}"
            tag = str(session.get("id", "")).lower()
            facts.append(_fact(str(turn["id"]), text, len(facts) + 1, tags=(tag,)))
    questions = [
        (str(q["id"]), str(q["question"]), {str(e) for e in q["evidence"]})
        for q in doc.get("questions", [])
    ]
    if not questions:
        raise ValueError(f"{path}: no questions")
    return [Case(facts, questions)]


def _facts(doc: dict[str, Any], path: Path) -> list[Case]:
    facts = [
        _fact(
            str(f["id"]),
            str(f["text"]),
            float(f.get("recordedAt", i + 1)),
            str(f.get("kind", "note")),
            f.get("tags", ()),
        )
        for i, f in enumerate(doc["facts"])
    ]
    ids = {f.id for f in facts}
    questions = []
    for p in doc.get("prompts", []):
        expected = {str(e) for e in p["expected"]}
        if not expected or not expected <= ids:
            raise ValueError(f"{path}: prompt {p.get('id')!r} expects unknown facts")
        questions.append((str(p["id"]), str(p["prompt"]), expected))
    if not questions:
        raise ValueError(f"{path}: no prompts")
    return [Case(facts, questions)]


def _longmemeval(doc: list[Any], path: Path) -> list[Case]:
    cases: list[Case] = []
    for inst in doc:
        qid = str(inst["question_id"])
        if qid.endswith("_abs"):
            continue
        facts: list[Fact] = []
        evidence: set[str] = set()
        for s, (sid, turns) in enumerate(
            zip(inst["haystack_session_ids"], inst["haystack_sessions"], strict=True)
        ):
            for t, turn in enumerate(turns):
                fid = f"{sid}:{t}"
                facts.append(_fact(fid, f"{turn['role']}: {turn['content']}", len(facts) + 1))
                if turn.get("has_answer"):
                    evidence.add(fid)
            del s
        if evidence:
            cases.append(Case(facts, [(qid, str(inst["question"]), evidence)]))
    if not cases:
        raise ValueError(f"{path}: no instance with labelled evidence turns")
    return cases


def load(path: Path) -> list[Case]:
    """Parse and check a dataset; a malformed file raises ValueError naming the problem."""
    doc: Any = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(doc, list):
        return _longmemeval(doc, path)
    if isinstance(doc, dict) and isinstance(doc.get("facts"), list):
        return _facts(doc, path)
    if isinstance(doc, dict) and isinstance(doc.get("sessions"), list):
        return _sessions(doc, path)
    raise ValueError(f"{path}: expected 'sessions'/'questions', 'facts'/'prompts' or a list")


def production_ids(cases: Sequence[Case]) -> list[Case]:
    """The cases with every fact id replaced by one shaped like Mind's (``m_`` + 16 hex of
    a hash of the dataset id), evidence mapped alike.  Why: a dataset's own ids ("mem-12",
    "t3") are shorter than a real store's, and the block shows ids, so keeping them would
    flatter Mind within a token budget."""

    def ident(fid: str) -> str:
        return "m_" + hashlib.sha256(fid.encode()).hexdigest()[:16]

    return [
        Case(
            [msgspec.structs.replace(f, id=ident(f.id)) for f in case.facts],
            [(qid, q, {ident(e) for e in ev}) for qid, q, ev in case.questions],
        )
        for case in cases
    ]


# -- the in-benchmark BM25 floor ----------------------------------------------------------


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
        """Matches by score (ties by recency), then — as Mind's planner does — every other
        fact by recency, so neither side gains by filling room the other leaves empty."""
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
        hit = {i for _, i in scores}
        rest = sorted(
            (i for i in range(len(self.facts)) if i not in hit),
            key=lambda i: (-self.facts[i].lastSeenAt, self.facts[i].id),
        )
        return [self.facts[i] for _, i in scores] + [self.facts[i] for i in rest]


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


def mind_picker(edge: SemanticEdge | None, fusion: Fusion) -> Picker:
    def pick(
        case: Case, index: FactIndex, bm: BM25, q: str, cap: int | None, budget: int | None
    ) -> set[str]:
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
        return {item.id for item in plan.items}

    return pick


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
    path: Path, rankers: Sequence[str], fusion: Fusion, ids: str = "production"
) -> list[dict[str, object]]:
    cases = load(path)
    if ids == "production":
        cases = production_ids(cases)
    edge: SemanticEdge | None = None
    if "hybrid" in rankers:
        edge = SemanticEdge()
        status = edge.load_now()
        if not status.hybrid:
            raise RuntimeError(f"hybrid ranker unavailable: {status.reason}")
    settings: list[tuple[str, int | None, int | None]] = [("caps", PROJECT_CAP, None)]
    settings += [(f"budget@{b}", None, b) for b in BUDGETS]
    out: list[dict[str, object]] = []
    tag = path.stem
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
    return out


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
        results = [r for p in paths for r in run(p, rankers, args.fusion, args.ids)]
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
