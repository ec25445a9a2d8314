"""The unsafe-content scanner on the labelled corpus: detection, false positives, cost.

Rows:

* ``detect[<class>]`` — share of the attack cases of one class that the defence stops: a
  scanner finding for every class except ``fence``, whose defence is the fence itself (the
  rendered entry must contain no bracket or bracket lookalike and open no heading, see
  :func:`neutralised`).  Target ≥ 98 % per class.
* ``false_positive[<class>]`` and ``false_positive[all benign]`` — share of benign texts
  with any finding.  Target ≤ 1 % over all benign texts.
* with ``--by-source``, the same two rows per class *and* source repository
  (``detect[override | owner/name]``): for a corpus built from several public sets
  (``bench/_scanner_public.py``), where one set's template must not hide another's misses.
* ``scan_cost`` — scanner time per KiB over the whole corpus against the floor: one bare
  ``re`` pass (a single compiled alternation of the trigger words, case-insensitive
  ``finditer``) over the same texts.  Target ≤ 5×.

The corpus is ``tests/mind/scanner_corpus/*.jsonl`` (``--corpus DIR`` for another one with
the same format: one JSON object per line with ``label`` attack|benign, ``class``,
``source`` and ``text``).  ``--json`` prints exactly one JSON object; otherwise a table.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/scanner.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit
from persona_mind.mind import scan
from persona_mind.mind._text import collapse_ws
from persona_mind.mind.trust._fence import escape_memory

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "mind" / "scanner_corpus"
DETECT_TARGET = 0.98
FP_TARGET = 0.01
COST_TARGET = 5.0
_BARE = re.compile(
    r"password|secret|token|api[_-]?key|private key|ignore|disregard|instructions|system"
    r"|you are now|the user",
    re.IGNORECASE,
)
_OPENS_HEADING = re.compile(r"(?:^|\s)[#\uff03\ufe5f]")

Row = dict[str, str]


def load(corpus: Path) -> list[Row]:
    """Every case of every ``*.jsonl`` file under ``corpus``; a malformed line is an error."""
    rows: list[Row] = []
    for path in sorted(corpus.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if row.get("label") not in ("attack", "benign") or not row.get("class"):
                raise ValueError(f"{path}:{n}: needs label attack|benign and a class")
            rows.append(row)
    return rows


_BRACKET_NAMES = ("LESS-THAN", "GREATER-THAN", "ANGLE BRACKET", "ANGLE QUOTATION", "CHEVRON")


def _bracket_like(ch: str) -> bool:
    """Judged from the Unicode name, independently of the fence's own list."""
    name = unicodedata.name(ch, "")
    return ch in "<>" or any(k in name for k in _BRACKET_NAMES) or "ARROWHEAD" in name


def neutralised(text: str) -> bool:
    """Whether ``text`` rendered as a memory entry can neither close the fence nor open a
    heading: no bracket-like character (by Unicode name, also after NFKC) and no ``#`` (or
    lookalike) starting a word."""
    rendered = escape_memory(collapse_ws(text))
    folded = unicodedata.normalize("NFKC", rendered)
    if any(_bracket_like(ch) for ch in rendered + folded):
        return False
    return not _OPENS_HEADING.search(folded)


def stopped(row: Row) -> bool:
    """Whether the defence stops one attack case."""
    return neutralised(row["text"]) if row["class"] == "fence" else bool(scan(row["text"]))


def rates(
    rows: Sequence[Row], *, by_source: bool = False
) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Per class (or per class and source repository): (attacks stopped, attacks) and
    (benign flagged, benign)."""
    det: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fps: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        key = f"{row['class']} | {row['source'].split()[0]}" if by_source else row["class"]
        if row["label"] == "attack":
            det[key][0] += stopped(row)
            det[key][1] += 1
        else:
            fps[key][0] += bool(scan(row["text"]))
            fps[key][1] += 1
    return ({k: (v[0], v[1]) for k, v in det.items()}, {k: (v[0], v[1]) for k, v in fps.items()})


def _chunks(texts: Sequence[str], size: int = 2048) -> list[list[str]]:
    out: list[list[str]] = [[]]
    used = 0
    for t in texts:
        if used >= size:
            out.append([])
            used = 0
        out[-1].append(t)
        used += len(t.encode("utf-8"))
    return out


def paired_cost(
    ours: Callable[[str], object],
    floor: Callable[[str], object],
    texts: Sequence[str],
    repeat: int,
) -> tuple[float, float]:
    """Seconds for ``ours`` and ``floor`` over ``texts``: per ~2 KiB chunk the best of
    ``repeat`` interleaved runs, summed (a noisy neighbour inflates single runs, not minima)."""
    total_ours = total_floor = 0.0
    gc.disable()
    try:
        for chunk in _chunks(texts):
            best_ours = best_floor = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                for t in chunk:
                    floor(t)
                t1 = time.perf_counter()
                for t in chunk:
                    ours(t)
                t2 = time.perf_counter()
                best_floor = min(best_floor, t1 - t0)
                best_ours = min(best_ours, t2 - t1)
            total_ours += best_ours
            total_floor += best_floor
    finally:
        gc.enable()
    return total_ours, total_floor


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="directory of *.jsonl")
    parser.add_argument("--repeat", type=int, default=15, help="timing repetitions (best of)")
    parser.add_argument(
        "--by-source", action="store_true", help="rates per class and source repository"
    )
    args = parser.parse_args(argv)
    rows = load(args.corpus)
    det, fps = rates(rows, by_source=args.by_source)
    results: list[Result] = []
    for cls, (hit, total) in sorted(det.items()):
        value = hit / total
        results.append(
            Result(
                f"detect[{cls}] ({hit}/{total})",
                round(value, 4),
                "share",
                None,
                None,
                f">= {DETECT_TARGET}",
                value >= DETECT_TARGET,
            )
        )
    for cls, (hit, total) in sorted(fps.items()):
        results.append(
            Result(
                f"false_positive[{cls}] ({hit}/{total})",
                round(hit / total, 4),
                "share",
                None,
                None,
                None,
                None,
            )
        )
    flagged = sum(h for h, _ in fps.values())
    benign = sum(t for _, t in fps.values())
    share = flagged / benign if benign else 0.0
    results.append(
        Result(
            f"false_positive[all benign] ({flagged}/{benign})",
            round(share, 4),
            "share",
            None,
            None,
            f"<= {FP_TARGET}",
            share <= FP_TARGET,
        )
    )
    texts = [r["text"] for r in rows]
    kib = sum(len(t.encode("utf-8")) for t in texts) / 1024
    for t in texts:  # warm compiled patterns and caches
        scan(t)
    ours_s, floor_s = paired_cost(scan, lambda t: list(_BARE.finditer(t)), texts, args.repeat)
    ours, floor = ours_s / kib * 1e6, floor_s / kib * 1e6
    results.append(
        Result(
            "scan_cost",
            round(ours, 2),
            "us/KiB",
            round(floor, 2),
            round(ours / floor, 2),
            f"<= {COST_TARGET}x",
            ours / floor <= COST_TARGET,
        )
    )
    emit(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
