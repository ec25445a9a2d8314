"""Two learned-layer weights files side by side on the ``dev`` split: the retrain gate's check.

``bench/scanner_cv.py`` and ``bench/scanner_train.py`` count different things and set the
threshold on different texts, so their figures do not compare: the CV counts attacks a rule
*or* the learned layer stops and sets one threshold on the pooled out-of-fold scores of the
train (and dev) benign rows; ``scanner_train`` prints the dev attacks the learned layer
alone scores over a threshold it sets on the dev benign rows (0.8 % above, clamped to
0.5-0.99).  This report gives, for each weights file, both counts at both thresholds (the
one the file ships and the one ``scanner_train`` would pick on dev), the benign texts
flagged and, of those, the ones only the learned layer flags by source, and the attacks
stopped split into the own family set's dev rows (whose families also have train rows) and
the public dev sources (held out whole, as the CV holds out every group).  Only trainable
attack rows count (``bench/scanner_train.py``'s filter); the test split is never read.
Run::

    python bench/scanner_gate.py /work/tools/scanner_split main.json candidate.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/scanner_gate.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scanner import load
from bench.scanner_cv import trainable
from bench.scanner_train import FAMILY_SOURCE, pick_threshold
from persona_mind.mind import scan
from persona_mind.mind.trust._learned import Model
from persona_mind.mind.trust._verdict import model_form


def read_model(path: Path) -> Model:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Model(data["bias"], data["threshold"], data["weights"], int(data.get("grams", 0)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="directory built by bench._scanner_more")
    parser.add_argument("weights", type=Path, nargs="+", help="weights files to compare")
    parser.add_argument("--dev-fp", type=float, default=0.008)
    args = parser.parse_args(argv)
    rows = [
        r for r in load(args.corpus)
        if r.get("split") == "dev" and r["class"] != "secret-lookalike"
    ]  # fmt: skip
    ruled = [bool(scan(r["text"])) for r in rows]
    forms = [model_form(r["text"]) for r in rows]
    benign = [i for i, r in enumerate(rows) if r["label"] == "benign"]
    attacks = [i for i, r in enumerate(rows) if r["label"] == "attack" and trainable(r)]
    own = [i for i in attacks if rows[i]["source"].startswith(FAMILY_SOURCE)]
    public = [i for i in attacks if not rows[i]["source"].startswith("persona-mind")]
    print(
        f"dev: {len(attacks)} trainable attacks ({len(own)} own-family, {len(public)} public), "
        f"{len(benign)} benign; rules alone stop {sum(ruled[i] for i in attacks)}"
    )
    for path in args.weights:
        model = read_model(path)
        scores = [model.probability(f) for f in forms]
        picked = pick_threshold(model, [rows[i]["text"] for i in benign], args.dev_fp)
        for name, t in (("shipped", model.threshold), ("dev-picked", picked)):
            up = [s >= t for s in scores]
            stop = [ruled[i] or up[i] for i in range(len(rows))]
            by_source = Counter(
                rows[i]["source"].split()[0] for i in benign if up[i] and not ruled[i]
            )
            print(
                f"{path.name} {name} threshold {t:.4f}: learned alone "
                f"{sum(up[i] for i in attacks)}/{len(attacks)}, rules or learned "
                f"{sum(stop[i] for i in attacks)}/{len(attacks)} (own-family "
                f"{sum(stop[i] for i in own)}/{len(own)}, public "
                f"{sum(stop[i] for i in public)}/{len(public)}); benign flagged "
                f"{sum(stop[i] for i in benign)}/{len(benign)}, learned only by source "
                f"{dict(sorted(by_source.items()))}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
