"""Train the scanner's learned layer on the ``train`` split, pick its threshold on ``dev``.

Input: a directory built by ``python -m bench._scanner_more ROOT DIR`` (every row has a
``split`` by source).  Output: the weights file the package ships
(``src/persona_mind/mind/trust/_learned_weights.json``, or ``--out``).

Model: logistic regression over the binary features of
:func:`persona_mind.mind.trust._learned.features` (tokens, five-letter prefixes, token
pairs, scaled by 1/sqrt(feature count)), features seen in at least two training texts,
L2-regularised, fitted full-batch with Adam (numpy; deterministic: no sampling).  Each row
is weighted so that every (label, source) group weighs the square root of its size (the
own family set three times that), and attacks and benign texts weigh the same in total:
one large source (Tensor Trust's 489 hijacks) does not decide what an attack looks like.
``secret-lookalike`` rows are left out (about half of gitleaks' "false positives" are
real-format keys), and so are the attack classes of credentials, fence and
invisible-character tricks (the rules' job).

The threshold is the smallest score at which at most ``--dev-fp`` of the dev benign texts
would be suspicious (the figure it prints is the learned layer alone, not rules or learned),
or ``--threshold`` as given — ``bench/scanner_cv.py --splits train``'s, set on the pooled
out-of-fold scores of every train benign row, so that no dev row is read and dev stays a
held-out check; the test split is never read here.  ``--grams N`` adds character N-grams
(:func:`persona_mind.mind.trust._learned.features`; the weights file records it).  Run::

    python bench/scanner_train.py /tmp/scanner_split
    python bench/scanner.py --corpus /tmp/scanner_split --split test
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as `python bench/scanner_train.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scanner import load
from persona_mind.mind.trust._learned import Model, features
from persona_mind.mind.trust._verdict import model_form

OUT = (
    Path(__file__).resolve().parents[1]
    / "src" / "persona_mind" / "mind" / "trust" / "_learned_weights.json"
)  # fmt: skip
LEFT_OUT = frozenset({"secret-lookalike"})
NOT_INSTRUCTIONS = ("secret", "fence", "hidden-lookalike")
"""Attack classes the learned layer is not trained on: credentials and fence/invisible-character
tricks are the rules' job (exact formats); trained on them, the head learned "looks like a
config line" and flagged ``API_KEY=<your-api-key>`` and ``ignore = ["E501"]``."""
FAMILY_SOURCE = "persona-mind families"
FAMILY_WEIGHT = 3.0
"""The own family set (``bench/data/scanner_families.jsonl``) is the only training data for
several of the families issue 27 names (persisting, delayed, claimed-authority, comment
and fake-tool instructions); weighing it three times a public group of its size raised
dev-split detection at 1 % false positives from 68 to 83 of 218 attacks (other weightings
tried: none, flat per row)."""


def _weights(rows: list[dict[str, str]]) -> np.ndarray:
    groups = Counter((r["label"], r["source"].split()[0]) for r in rows)
    w = np.array([1.0 / math.sqrt(groups[(r["label"], r["source"].split()[0])]) for r in rows])
    own = np.array([r["source"].startswith(FAMILY_SOURCE) for r in rows])
    w[own] *= FAMILY_WEIGHT
    attack = np.array([r["label"] == "attack" for r in rows])
    w[attack] *= w[~attack].sum() / w[attack].sum()
    out: np.ndarray = w / w.mean()
    return out


def fit(
    rows: list[dict[str, str]], *, l2: float, steps: int, min_df: int, grams: int = 0
) -> tuple[float, dict[str, float]]:
    """Bias and weights by feature."""
    feats = [features(model_form(r["text"]), grams=grams) for r in rows]
    return fit_features(rows, feats, l2=l2, steps=steps, min_df=min_df)


def fit_features(
    rows: list[dict[str, str]], feats: list[set[str]], *, l2: float, steps: int, min_df: int
) -> tuple[float, dict[str, float]]:
    """Bias and weights by feature, from each row's feature set (``feats[i]`` of
    ``rows[i]``; ``bench/scanner_cv.py`` featurises once for all its folds)."""
    df = Counter(f for fs in feats for f in fs)
    vocab = {f: i for i, f in enumerate(sorted(f for f, n in df.items() if n >= min_df))}
    indptr = [0]
    indices: list[int] = []
    values: list[float] = []
    for fs in feats:
        scale = 1.0 / math.sqrt(len(fs)) if fs else 0.0
        ids = sorted(vocab[f] for f in fs if f in vocab)
        indices.extend(ids)
        values.extend([scale] * len(ids))
        indptr.append(len(indices))
    idx = np.array(indices, dtype=np.int64)
    val = np.array(values)
    rowid = np.repeat(np.arange(len(rows)), np.diff(np.array(indptr)))
    y = np.array([r["label"] == "attack" for r in rows], dtype=float)
    sw = _weights(rows)
    n, d = len(rows), len(vocab)
    theta = np.zeros(d + 1)
    m = np.zeros(d + 1)
    v = np.zeros(d + 1)
    lr, b1, b2 = 0.05, 0.9, 0.999
    for t in range(1, steps + 1):
        z = np.bincount(rowid, weights=theta[idx] * val, minlength=n) + theta[d]
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))
        r = (p - y) * sw / n
        g = np.empty(d + 1)
        g[:d] = np.bincount(idx, weights=r[rowid] * val, minlength=d) + l2 * theta[:d]
        g[d] = r.sum()
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        theta -= lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + 1e-8)
    names = sorted(vocab, key=vocab.__getitem__)
    return float(theta[d]), {f: float(theta[i]) for i, f in enumerate(names)}


def pick_threshold(model: Model, benign: list[str], max_fp: float) -> float:
    """The smallest probability at which at most ``max_fp`` of ``benign`` score above."""
    scores = sorted((model.probability(model_form(t)) for t in benign), reverse=True)
    allowed = int(max_fp * len(scores))
    return min(0.99, max(0.5, scores[allowed] + 1e-6)) if scores else 0.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="directory built by bench._scanner_more")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--l2", type=float, default=3e-4)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--min-df", type=int, default=2)
    parser.add_argument("--prune", type=float, default=0.02, help="drop |weight| below")
    parser.add_argument("--dev-fp", type=float, default=0.008)
    parser.add_argument("--grams", type=int, default=0, help="character n-grams (0: none)")
    parser.add_argument(
        "--threshold",
        type=float,
        help="ship this threshold (e.g. bench/scanner_cv.py's on the train split) and read "
        "no dev row",
    )
    args = parser.parse_args(argv)
    rows = [
        r for r in load(args.corpus)
        if r["class"] not in LEFT_OUT
        and not (r["label"] == "attack" and r["class"].startswith(NOT_INSTRUCTIONS))
    ]  # fmt: skip
    train = [r for r in rows if r.get("split") == "train"]
    dev = [r for r in rows if r.get("split") == "dev"]
    bias, weights = fit(train, l2=args.l2, steps=args.steps, min_df=args.min_df, grams=args.grams)
    kept = {f: round(w, 4) for f, w in sorted(weights.items()) if abs(w) >= args.prune}
    model = Model(bias, 0.5, kept, args.grams)
    if args.threshold is None:
        threshold = pick_threshold(model, [r["text"] for r in dev if r["label"] == "benign"],
                                   args.dev_fp)  # fmt: skip
        attacks = [r for r in dev if r["label"] == "attack"]
        hit = sum(model.probability(model_form(r["text"])) >= threshold for r in attacks)
        on_dev = f"; dev attacks over the threshold (learned layer alone) {hit}/{len(attacks)}"
    else:
        threshold, on_dev = args.threshold, ""
    shipped = {
        "bias": round(bias, 4),
        "threshold": round(threshold, 4),
        "trained_on": sorted({r["source"].split()[0] for r in train}),
        "weights": kept,
    }
    if args.grams:
        shipped["grams"] = args.grams
    args.out.write_text(
        json.dumps(shipped, ensure_ascii=False, sort_keys=True, indent=0) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    print(
        f"{len(train)} train rows, {len(weights)} features, {len(kept)} kept; "
        f"threshold {threshold:.4f}{on_dev} -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
