"""The project's secret rules against ``detect-secrets``' plugins, on the same public data.

Issue 27 asks whether to adopt ``detect-secrets`` (Yelp) instead of, or beside, the
project's own secret rules (``mind/trust/_secrets.py``, ``_random_tokens.py``).  This
script measures four detectors on a corpus built by ``bench/_scanner_more.py``:

* ``rules`` — the scanner's ``secret`` findings only;
* ``ds-all`` — every default ``detect-secrets`` plugin, as its file scan runs them (its
  default filters on, entropy limits at their defaults), one memory text as one file;
* ``ds-regex`` — the same without the two high-entropy plugins (provider formats, keyword
  assignments, private keys, JWTs …);
* ``rules+ds-regex`` — either.

Detection is the share of ``secret`` attack rows (gitleaks' rule examples, trufflehog's
detector fixtures, the own corpus and family set) with a finding; false positives are the
share of benign rows (developer prose, tool output, conversations, memories, code and
config notes) with one.  ``detect-secrets`` is needed only to run this (``pip install
detect-secrets``), never by the package.  Run::

    python bench/scanner_secrets.py /tmp/scanner_split [--json]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/scanner_secrets.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit
from bench.scanner import load
from persona_mind.mind import scan

ENTROPY = ("Base64HighEntropyString", "HexHighEntropyString")


def _ds(texts: list[str], *, skip_entropy: bool) -> dict[str, bool]:
    """Whether ``detect-secrets`` finds a secret in each text (one text, one file)."""
    from detect_secrets.core import scan as ds_scan  # noqa: PLC0415 - optional, bench only
    from detect_secrets.settings import default_settings, get_settings  # noqa: PLC0415

    out: dict[str, bool] = {}
    with default_settings():
        if skip_entropy:
            get_settings().disable_plugins(*ENTROPY)
        for text in texts:
            lines = list(enumerate(text.splitlines() or [text], 1))
            out[text] = any(True for _ in ds_scan._process_line_based_plugins(lines, "memory.txt"))
    return out


def _rules(text: str) -> bool:
    return any(f.category == "secret" for f in scan(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--benign-cap", type=int, default=1000, help="benign rows per group")
    args = parser.parse_args(argv)
    rows = load(args.corpus)
    attacks = [r for r in rows if r["label"] == "attack" and r["class"].startswith("secret")]
    per_group: dict[str, int] = defaultdict(int)
    benign = []
    for r in rows:
        if r["label"] != "benign" or r["class"] == "secret-lookalike":
            continue
        group = f"{r['class']} · {r.get('split', '?')}"
        if per_group[group] < args.benign_cap:
            per_group[group] += 1
            benign.append(r)
    texts = [r["text"] for r in (*attacks, *benign)]
    ds_all, ds_regex = _ds(texts, skip_entropy=False), _ds(texts, skip_entropy=True)
    detectors: dict[str, Callable[[str], bool]] = {
        "rules": _rules,
        "ds-all": ds_all.__getitem__,
        "ds-regex": ds_regex.__getitem__,
        "rules+ds-regex": lambda t: _rules(t) or ds_regex[t],
    }
    results: list[Result] = []
    for name, found in detectors.items():
        by_src: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in attacks:
            key = r["source"].split()[0]
            by_src[key][0] += found(r["text"])
            by_src[key][1] += 1
        for key, (hit, total) in sorted(by_src.items()):
            results.append(Result(f"{name}: detect[{key}] ({hit}/{total})", round(hit / total, 4),
                                  "share", None, None, None, None))  # fmt: skip
        fp: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in benign:
            fp[r["class"]][0] += found(r["text"])
            fp[r["class"]][1] += 1
        for key, (hit, total) in sorted(fp.items()):
            results.append(Result(f"{name}: false_positive[{key}] ({hit}/{total})",
                                  round(hit / total, 4), "share",
                                  None, None, None, None))  # fmt: skip
        flagged = sum(h for h, _ in fp.values())
        total = sum(t for _, t in fp.values())
        results.append(Result(f"{name}: false_positive[all benign] ({flagged}/{total})",
                              round(flagged / total, 4), "share", None, None, "<= 0.01",
                              flagged / total <= 0.01))  # fmt: skip
    emit(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
