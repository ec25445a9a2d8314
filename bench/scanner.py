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
* ``scan_cost`` — rule scanner time per KiB over the whole corpus against the floor: one
  bare ``re`` pass (a single compiled alternation of the trigger words, case-insensitive
  ``finditer``) over the same texts.  Target ≤ 5×.
* ``learned_cost`` — the learned layer's time per KiB (fold, features, weights) against the
  same floor.  Target ≤ 10×.  ``verdict_cost`` — the whole uncached verdict (rules, then the
  learned layer when no rule fired), for information.
* ``withheld[<benign class>]`` — share of benign texts a rule refuses (what injection
  withholds; a *suspicious* verdict is not withheld).  Target ≤ 1 % for conversation turns.
* ``loop[4 MB input]``, ``loop[4 MB prompt]`` — worst event-loop ping (a 1 ms ticker's
  lateness) while a 4 MB text's verdict runs on the same loop in bounded steps
  (``verdict_async``, ``bench/_scanner_loop.py``).  Target ≤ 10 ms.  Floor: the ticker's
  worst lateness beside CPU-bound work already cut into 0.1 ms steps, for as long (the
  machine's own scheduling noise for a busy core).  ``--loop-executor`` adds the same scans
  with ``verdict`` on a worker thread, for comparison.

Detection counts a *refuse* or a *suspicious* verdict (``--layers rules``: rule findings
only, the pre-verdict measure), a false positive likewise.  ``--split train|dev|test``
keeps only the rows of that split (corpora built by ``bench/_scanner_more.py``);
``--longmemeval PATH`` adds ``withheld[evidence turns]`` for a LongMemEval-format file.

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
from bench._scanner_loop import evidence_withheld, learned_only, loop_rows
from persona_mind.mind import scan
from persona_mind.mind._text import collapse_ws
from persona_mind.mind.trust._fence import escape_memory, lookalike_brackets
from persona_mind.mind.trust._verdict import verdict, verdict_uncached

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "mind" / "scanner_corpus"
DETECT_TARGET = 0.98
FP_TARGET = 0.01
COST_TARGET = 5.0
LEARNED_TARGET = 10.0
WITHHELD_TARGET = 0.01
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
        # "\n" only: str.splitlines() also cuts at U+2028 and the like inside a JSON string
        for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
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
    return (
        ch in "<>"
        or any(k in name for k in _BRACKET_NAMES)
        or "ARROWHEAD" in name
        or ch in lookalike_brackets()  # TR39's confusables of < and >
    )


def neutralised(text: str) -> bool:
    """Whether ``text`` rendered as a memory entry can neither close the fence nor open a
    heading: no bracket-like character (by Unicode name, also after NFKC) and no ``#`` (or
    lookalike) starting a word."""
    rendered = escape_memory(collapse_ws(text))
    folded = unicodedata.normalize("NFKC", rendered)
    if any(_bracket_like(ch) for ch in rendered + folded):
        return False
    return not _OPENS_HEADING.search(folded)


def flagged_by_rules(text: str) -> bool:
    return bool(scan(text))


def flagged_by_any(text: str) -> bool:
    """A refuse or a suspicious verdict."""
    return verdict(text).level != "clean"


def stopped(row: Row, flagged: Callable[[str], bool] = flagged_by_rules) -> bool:
    """Whether the defence stops one attack case."""
    return neutralised(row["text"]) if row["class"] == "fence" else flagged(row["text"])


def rates(
    rows: Sequence[Row],
    *,
    by_source: bool = False,
    flagged: Callable[[str], bool] = flagged_by_rules,
) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Per class (or per class and source repository): (attacks stopped, attacks) and
    (benign flagged, benign)."""
    det: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fps: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        key = f"{row['class']} | {row['source'].split()[0]}" if by_source else row["class"]
        if row["label"] == "attack":
            det[key][0] += stopped(row, flagged)
            det[key][1] += 1
        else:
            fps[key][0] += flagged(row["text"])
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
    parser.add_argument("--split", choices=("train", "dev", "test"), help="rows of one split")
    parser.add_argument("--layers", choices=("all", "rules"), default="all")
    parser.add_argument("--longmemeval", type=Path, help="LongMemEval-format JSON file")
    parser.add_argument("--no-loop", action="store_true", help="skip the 4 MB rows")
    parser.add_argument(
        "--loop-executor", action="store_true", help="also the 4 MB rows on a worker thread"
    )
    args = parser.parse_args(argv)
    rows = load(args.corpus)
    if args.split:
        rows = [r for r in rows if r.get("split") == args.split]
    rows = [r for r in rows if r["class"] != "secret-lookalike" or not args.split]
    judge = flagged_by_any if args.layers == "all" else flagged_by_rules
    det, fps = rates(rows, by_source=args.by_source, flagged=judge)
    held, _ = rates([{**r, "label": "attack", "class": r["class"] + "@"}
                     for r in rows if r["label"] == "benign"],
                    by_source=args.by_source)  # fmt: skip
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
    for cls, (hit, total) in sorted(held.items()):
        value = hit / total
        target_ok = value <= WITHHELD_TARGET
        results.append(
            Result(f"withheld[{cls.rstrip('@')}] ({hit}/{total})", round(value, 4), "share",
                   None, None, f"<= {WITHHELD_TARGET}", target_ok)
        )  # fmt: skip
    if args.longmemeval:
        hit, total = evidence_withheld(args.longmemeval)
        value = hit / total if total else 0.0
        results.append(
            Result(f"withheld[evidence turns] ({hit}/{total})", round(value, 4), "share",
                   None, None, f"<= {WITHHELD_TARGET}", value <= WITHHELD_TARGET)
        )  # fmt: skip
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
    bare = lambda t: list(_BARE.finditer(t))  # noqa: E731
    for name, fn, target in (
        ("learned_cost", learned_only, LEARNED_TARGET),
        ("verdict_cost", verdict_uncached, None),
    ):
        ours_s, floor_s = paired_cost(fn, bare, texts, max(3, args.repeat // 3))
        ours, floor = ours_s / kib * 1e6, floor_s / kib * 1e6
        results.append(
            Result(name, round(ours, 2), "us/KiB", round(floor, 2), round(ours / floor, 2),
                   f"<= {target}x" if target else None,
                   ours / floor <= target if target else None)
        )  # fmt: skip
    if not args.no_loop:
        results.extend(loop_rows(executor=args.loop_executor))
    emit(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
