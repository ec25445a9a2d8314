"""Session notes on the per-turn injection path: ``NotesLedger.views()`` with 50 notes.

``views()`` runs on every turn (``MindSession.before_agent_start``). It used to re-run
the content scanner on every active note each turn (~336 µs/KiB: ~5 ms for 50 notes of
300 bytes); it now keeps each text's verdict (found in a review of the turn path).

Rows (50 saved notes of ~300 bytes, the median of many turns):

* ``notes_views_per_turn`` — one ``views()`` call against the floor measured in the same
  run: building the same ``NoteView`` tuple with no scanner verdict at all. Target ≤ 3×.
* ``notes_rescan_per_turn`` — what every turn paid before: the same views with each text
  scanned again, against the same floor (no target: the reason for the row above).

    python bench/notes.py [--json] [--quick]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/notes.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit, parse_args
from persona_mind.mind import NotesLedger, OwnerKey, scan

NOTES = 50
TARGET = 3.0


def _ledger() -> NotesLedger:
    led = NotesLedger(OwnerKey("pi", "bench", None))
    for i in range(NOTES):
        words = " ".join(f"parser{i} cache retry schema token fence" for _ in range(7))
        led.decide_save(f"note {i}: {words}"[:300], now=float(i))
    return led


def _per_call_us(fn: Callable[[], object], calls: int, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def run(quick: bool) -> list[Result]:
    led = _ledger()
    records = list(led.notes.values())
    assert len(led.views()) == NOTES

    def floor() -> object:
        return tuple(r.view() for r in records)

    def rescan() -> object:
        return tuple(r.view() for r in records if not scan(r.text))

    calls, rounds = (20, 5) if quick else (200, 15)
    f = _per_call_us(floor, calls, rounds)
    views = _per_call_us(led.views, calls, rounds)
    old = _per_call_us(rescan, max(1, calls // 20), rounds)
    return [
        Result(
            "notes_views_per_turn", views, "us", f, views / f, f"<= {TARGET}x", views / f <= TARGET
        ),
        Result("notes_rescan_per_turn", old, "us", f, old / f, None, None),
    ]


def main() -> int:
    args = parse_args(__doc__.splitlines()[0] if __doc__ else "notes")
    results = run(args.quick)
    emit(results, args.json)
    return 0 if all(r.ok is not False for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
