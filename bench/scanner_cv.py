"""Leave-sources-out cross-validation of the learned layer on the ``train`` and ``dev`` rows.

The dev split is small and was tuned on many times, so its figure overstates how the layer
does on attacks nobody tuned it for.  This estimate holds out whole sources instead: every
public repository (its attacks, its benign texts) is one group, each family of the own
family set (``bench/data/scanner_families.jsonl``, train and dev rows together) is one group
and each file of the own corpus is one; the groups are dealt, largest first, into
``--folds`` folds, and each fold is scored by a head trained (``bench/scanner_train.py``'s
``fit``, same row weights) on the trainable rows of the other folds.  One threshold is
then set on the pooled out-of-fold scores of every benign row (``--fp`` of them above it),
and the report gives the attacks stopped by a rule or by the learned layer, overall, as
the mean of the per-group shares (``macro``: every held-out source counts the same) and
per group.  ``--splits train`` cross-validates the train rows alone (the rows
``bench/scanner_train.py`` fits on), so its threshold can be shipped (``--threshold``) with
dev left unread; ``--grams N`` adds character N-grams to the features.  The test split is
never read.  Deterministic (no sampling).  Run::

    python bench/scanner_cv.py /tmp/scanner_split --l2 1e-3
    python bench/scanner_cv.py /tmp/scanner_split --splits train --l2 1e-2 --grams 4
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/scanner_cv.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scanner import load
from bench.scanner_train import FAMILY_SOURCE, LEFT_OUT, NOT_INSTRUCTIONS, fit_features
from persona_mind.mind import scan
from persona_mind.mind.trust._learned import Model, features
from persona_mind.mind.trust._verdict import model_form

Row = dict[str, str]


def group(row: Row) -> str:
    """The held-out unit of one row."""
    source = row["source"]
    if source.startswith(FAMILY_SOURCE):
        return f"families {row['class']} {row['label']}"
    if source.startswith("persona-mind"):
        return source
    return f"{source.split()[0]} {row['label']}"


def trainable(row: Row) -> bool:
    return row["class"] not in LEFT_OUT and not (
        row["label"] == "attack" and row["class"].startswith(NOT_INSTRUCTIONS)
    )


def folds_of(rows: list[Row], k: int) -> list[list[int]]:
    """Groups dealt into ``k`` folds, largest group first (ties by name)."""
    groups: defaultdict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        groups[group(row)].append(i)
    out: list[list[int]] = [[] for _ in range(k)]
    for j, (_, members) in enumerate(sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))):
        out[j % k].extend(members)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="directory built by bench._scanner_more")
    parser.add_argument("--l2", type=float, default=3e-3)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--min-df", type=int, default=2)
    parser.add_argument("--prune", type=float, default=0.02)
    parser.add_argument("--folds", type=int, default=8)
    parser.add_argument("--fp", type=float, default=0.008)
    parser.add_argument("--grams", type=int, default=0, help="character n-grams (0: none)")
    parser.add_argument(
        "--splits", default="train,dev", help="splits to cross-validate over (never test)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    splits = set(args.splits.split(",")) - {"test"}
    rows = [r for r in load(args.corpus) if r.get("split") in splits]
    forms = [model_form(r["text"]) for r in rows]
    feats = [features(f, grams=args.grams) for f in forms]
    ruled = [bool(scan(r["text"])) for r in rows]
    oof = [0.0] * len(rows)
    for held in folds_of(rows, args.folds):
        out = set(held)
        train = [i for i, r in enumerate(rows) if i not in out and trainable(r)]
        bias, weights = fit_features(
            [rows[i] for i in train], [feats[i] for i in train],
            l2=args.l2, steps=args.steps, min_df=args.min_df,
        )  # fmt: skip
        kept = {f: w for f, w in weights.items() if abs(w) >= args.prune}
        model = Model(bias, 0.5, kept, args.grams)
        for i in held:
            oof[i] = model.probability(forms[i])
    benign = sorted((oof[i] for i, r in enumerate(rows) if r["label"] == "benign"), reverse=True)
    threshold = benign[int(args.fp * len(benign))] + 1e-9
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for i, row in enumerate(rows):
        if row["label"] == "attack" and trainable(row):
            total[group(row)] += 1
            hit[group(row)] += ruled[i] or oof[i] >= threshold
    flagged = sum(
        ruled[i] or oof[i] >= threshold for i, r in enumerate(rows) if r["label"] == "benign"
    )
    report = {
        "l2": args.l2,
        "grams": args.grams,
        "splits": sorted(splits),
        "threshold": round(threshold, 4),
        "detected": sum(hit.values()),
        "attacks": sum(total.values()),
        "rules_alone": sum(
            ruled[i] for i, r in enumerate(rows) if r["label"] == "attack" and trainable(r)
        ),
        "macro": round(sum(hit[g] / total[g] for g in total) / len(total), 4),
        "benign_flagged": flagged,
        "benign": len(benign),
        "groups": {g: f"{hit[g]}/{total[g]}" for g in sorted(total)},
    }
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        for key, value in report.items():
            if key != "groups":
                print(f"{key}: {value}")
        for g, share in report["groups"].items():
            print(f"  {g}: {share}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
