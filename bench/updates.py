"""Update detection and update order, on updates derived from the public coding set.

What is measured (``src/persona_mind/mind/facts/_updates.py``):

* **detection** — for every fact of ``bench/data/coding_memory.json`` (facts written from
  public repositories' contributor guides) one *update* is derived by changing one value in
  it: a number becomes another number, else an identifier-like word (a version, a path, a
  tool or file name: it carries a digit, ``.``, ``-``, ``_`` or an inner capital) or, failing
  both, its rarest content word is replaced by a word of another repository's facts.  Recall
  is the share of updates whose original is flagged; the false-positive rate is the share of
  pairs of two *different* facts of one repository that are flagged (they share the subject's
  words and are the hard negatives).
* **order** — a store of the repository's facts plus the update (recorded later), and each of
  the set's prompts that expects the original and gets the original or its update injected:
  the share of those prompts where the newer fact is injected above the older (or alone), and
  the count where both are injected and the older is marked ``(earlier)``.

Split by source: a repository's facts lie wholly in ``dev`` or ``test`` (by a hash of its
name); thresholds were chosen on ``dev``.  ``python bench/updates.py [--split dev|test|all]
[--json]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from persona_mind.mind import Fact, FactIndex, InjectionInput, plan_injection
from persona_mind.mind.facts._updates import is_update, terms_of

DATA = Path(__file__).parent / "data" / "coding_memory.json"
_NUM = re.compile(r"\b\d+(?:\.\d+)*\b")
_WORD = re.compile(r"[^\W_][\w.\-/]*[^\W_]|[^\W_]", re.UNICODE)
_IDENT = re.compile(r"\d|[._\-/]|[a-z][A-Z]")


def split_of(repo: str) -> str:
    return "dev" if hashlib.sha256(repo.encode()).digest()[0] % 2 == 0 else "test"


def _pick(seed: str, options: list[str]) -> str:
    return options[int(hashlib.sha256(seed.encode()).hexdigest(), 16) % len(options)]


def derive_update(text: str, fid: str, foreign: list[str]) -> str | None:
    """One value of ``text`` changed (see the module docstring); ``None`` if none can be."""
    num = _NUM.search(text)
    if num is not None:
        old = num.group(0)
        head, _, rest = old.partition(".")
        new = str(int(head) + 1 + int(hashlib.sha256(fid.encode()).hexdigest(), 16) % 7)
        new = new + ("." + rest if rest else "")
        return text[: num.start()] + new + text[num.end() :]
    words = _WORD.findall(text)
    idents = [w for w in words if _IDENT.search(w) and len(w) > 2]
    if idents:
        old = idents[0]
        return text.replace(old, _pick(fid, [f for f in foreign if f != old]), 1)
    content = sorted((w for w in words if len(w) > 4), key=lambda w: (-len(w), w))
    if not content:
        return None
    old = content[0]
    return re.sub(rf"\b{re.escape(old)}\b", _pick(fid, foreign), text, count=1)


def _fact(fid: str, kind: str, text: str, at: float) -> Fact:
    return Fact(id=fid, kind=kind, text=text, recordedAt=at, lastSeenAt=at)  # type: ignore[arg-type]


def run(split: str) -> dict[str, Any]:
    doc = json.loads(DATA.read_text(encoding="utf-8"))
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in doc["facts"]:
        by_repo[f["source"]["repo"]].append(f)
    idents_of = {
        repo: sorted({w for f in fs for w in _WORD.findall(f["text"]) if _IDENT.search(w)})
        for repo, fs in by_repo.items()
    }
    chosen = {r for r in by_repo if split == "all" or split_of(r) == split}
    hits = total = fp = pairs = 0
    missed: list[str] = []
    updates: dict[str, str] = {}
    for repo in sorted(chosen):
        facts = by_repo[repo]
        foreign = sorted({w for r, ws in idents_of.items() if r != repo for w in ws}) or ["x"]
        terms = {f["id"]: terms_of(f["text"]) for f in facts}
        for f in facts:
            new = derive_update(f["text"], f["id"], foreign)
            if new is None or new == f["text"]:
                continue
            updates[f["id"]] = new
            total += 1
            if is_update(terms_of(new), terms[f["id"]]):
                hits += 1
            else:
                missed.append(f"{f['text']!r} -> {new!r}")
        for i, a in enumerate(facts):
            for b in facts[i + 1 :]:
                pairs += 1
                if is_update(terms[a["id"]], terms[b["id"]]) or is_update(
                    terms[b["id"]], terms[a["id"]]
                ):
                    fp += 1
    above = both_marked = asked = 0
    for p in doc["prompts"]:
        for fid in p["expected"]:
            home = next((r for r, fs in by_repo.items() if any(f["id"] == fid for f in fs)), None)
            if home is None or home not in chosen or fid not in updates:
                continue
            store = [
                _fact(f["id"], f["kind"], f["text"], i + 1.0) for i, f in enumerate(by_repo[home])
            ]
            old = next(f for f in store if f.id == fid)
            store.append(_fact(fid + "-new", old.kind, updates[fid], 10_000.0))
            plan = plan_injection(
                InjectionInput(
                    prompt=p["prompt"], now=20_000.0, indexes={"project": FactIndex.build(store)}
                )
            )
            ids = [it.id for it in plan.items]
            if fid not in ids and fid + "-new" not in ids:
                continue  # a retrieval miss, not an order question (bench/recall.py counts it)
            asked += 1
            if fid + "-new" in ids and (fid not in ids or ids.index(fid + "-new") < ids.index(fid)):
                above += 1
            if fid + "-new" in ids and fid in ids and "(earlier)" in plan.text:
                both_marked += 1
    return {
        "split": split,
        "updates": total,
        "detected": hits,
        "recall": hits / total if total else 0.0,
        "pairs": pairs,
        "false_pairs": fp,
        "fp_rate": fp / pairs if pairs else 0.0,
        "order_prompts": asked,
        "newer_first": above / asked if asked else 0.0,
        "older_marked": both_marked,
        "missed_examples": missed[:8],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--split", choices=("dev", "test", "all"), default="test")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = run(args.split)
    if args.json:
        rows = [
            ("update_recall", r["recall"], 0.8),
            ("update_fp_rate", r["fp_rate"], 0.01),
            ("update_newer_first", r["newer_first"], 0.8),
        ]
        out = [
            {
                "name": f"{name}_{args.split}",
                "value": round(value, 4),
                "unit": "share",
                "floor": None,
                "ratio": None,
                "target": target,
                "ok": value <= target if name.endswith("fp_rate") else value >= target,
            }
            for name, value, target in rows
        ]
        print(json.dumps({"results": out, "detail": r}))
        return 0
    for k, v in r.items():
        if k != "missed_examples":
            print(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}")
    for m in r["missed_examples"]:
        print("  missed:", m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
