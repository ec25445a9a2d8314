"""Retrieval-quality harness: evidence recall of Mind injection at 1,000 / 2,400 / 4,000 tokens.

Dataset (JSON)::

    {"sessions": [{"id": "s1", "turns": [{"id": "t1", "speaker": "user", "text": "..."}]}],
     "questions": [{"id": "q1", "question": "...", "evidence": ["t1", ...]}]}

Every turn is ingested as one project-LTM fact (``speaker: text``, tagged with its session);
each question is the prompt of one injection plan, and *evidence recall* is the share of a
question's evidence turns that appear in the injected block, averaged over questions.  Two
modes per budget: ``seed caps`` (the production 8/4/5/6 caps — project LTM admits at most 4
entries, so recall is cap-bound) and ``budget only`` (caps lifted: ranking quality under the
token budget).  The floor of each recall row is a recency-only baseline at the same budget
(no lexical ranking); tokens injected and planning latency are reported too.

``python bench/recall.py [DATASET] [--json]``: without a path the bundled synthetic set
``bench/data/recall_synthetic.json`` is used; a path that does not exist skips cleanly
(exit 0, one line saying why; with ``--json`` an empty ``results`` list and a ``skipped``
reason).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_mind.mind import Fact, FactIndex, InjectionInput, plan_injection

BUDGETS = (1_000, 2_400, 4_000)
DEFAULT = Path(__file__).parent / "data" / "recall_synthetic.json"
NO_CAPS = {"ltm": 10_000, "project": 10_000, "stm": 10_000, "backlog": 10_000}


@dataclass
class Dataset:
    facts: list[Fact]
    questions: list[tuple[str, str, set[str]]]


def load(path: Path) -> Dataset:
    """Parse and check the dataset; a malformed file raises ValueError naming the problem."""
    doc: Any = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("sessions"), list):
        raise ValueError(f"{path}: expected an object with 'sessions' and 'questions'")
    facts: list[Fact] = []
    n = 0
    for session in doc["sessions"]:
        for turn in session.get("turns", []):
            n += 1
            text = f"{turn.get('speaker', '?')}: {turn['text']}"
            facts.append(
                Fact(
                    id=str(turn["id"]),
                    kind="note",
                    text=text,
                    tags=(str(session.get("id", "")).lower(),),
                    recordedAt=float(n),
                    lastSeenAt=float(n),
                )
            )
    questions = [
        (str(q["id"]), str(q["question"]), {str(e) for e in q["evidence"]})
        for q in doc.get("questions", [])
    ]
    if not questions:
        raise ValueError(f"{path}: no questions")
    return Dataset(facts, questions)


def evaluate(
    data: Dataset, budget: int, caps: dict[str, int] | None, recency_only: bool
) -> tuple[float, float, float]:
    """(mean evidence recall, mean tokens injected, median planning ms)."""
    index = FactIndex.build(data.facts)
    recalls: list[float] = []
    tokens: list[int] = []
    times: list[float] = []
    for _, question, evidence in data.questions:
        t0 = time.perf_counter()
        kwargs: dict[str, Any] = {} if caps is None else {"caps": caps}
        plan = plan_injection(
            InjectionInput(
                prompt="" if recency_only else question,
                now=1e12,
                indexes={"project": index},
                total_tokens=budget,
                **kwargs,
            )
        )
        times.append((time.perf_counter() - t0) * 1e3)
        got = {item.id for item in plan.items}
        recalls.append(len(got & evidence) / len(evidence))
        tokens.append(plan.tokens)
    return statistics.fmean(recalls), statistics.fmean(tokens), statistics.median(times)


def run(path: Path) -> list[dict[str, object]]:
    data = load(path)
    out: list[dict[str, object]] = []
    for mode, caps in (("seed caps", None), ("budget only", NO_CAPS)):
        for budget in BUDGETS:
            rec, tok, ms = evaluate(data, budget, caps, recency_only=False)
            base, _, _ = evaluate(data, budget, caps, recency_only=True)
            name = f"recall@{budget} ({mode})"
            out.append(
                {
                    "name": name,
                    "value": round(rec, 3),
                    "unit": "recall",
                    "floor": round(base, 3),
                    "ratio": round(rec / base, 2) if base else None,
                    "target": ">= recency baseline",
                    "ok": rec >= base,
                }
            )
            out.append(
                {
                    "name": f"tokens@{budget} ({mode})",
                    "value": round(tok, 1),
                    "unit": "tokens",
                    "floor": None,
                    "ratio": None,
                    "target": f"<= {budget}",
                    "ok": tok <= budget,
                }
            )
            out.append(
                {
                    "name": f"plan_ms@{budget} ({mode})",
                    "value": round(ms, 3),
                    "unit": "ms",
                    "floor": None,
                    "ratio": None,
                    "target": None,
                    "ok": None,
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Mind evidence recall at 1,000/2,400/4,000 tokens")
    ap.add_argument("dataset", nargs="?", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    path = args.dataset or DEFAULT
    if not path.is_file():
        reason = f"skipped: dataset {path} not found"
        print(json.dumps({"results": [], "skipped": reason}) if args.json else reason)
        return 0
    results = run(path)
    if args.json:
        print(json.dumps({"results": results}))
    else:
        print(f"dataset: {path}")
        for r in results:
            floor = "" if r["floor"] is None else f" (recency baseline {r['floor']})"
            print(f"{r['name']:<34} {r['value']!s:>9} {r['unit']}{floor}")
    return 0 if all(r["ok"] is not False for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
