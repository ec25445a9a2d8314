"""Taint and the default write policy on scripted sessions (issue 27 acceptance).

Rows:

* ``ordinary_pending_pct`` — share of the ordinary writes (paraphrases of the user,
  summaries of real project files and peer answers in the model's own words,
  :func:`bench._taint_cases.ordinary_cases`) that the default policy
  ``confirm-untrusted`` turns into pending proposals (taint or a suspicious verdict).
  Target ≤ 2 %.  The pending cases are listed on stderr.
* ``copies_caught_pct`` — share of writes that reproduce untrusted text (verbatim,
  re-cased, re-spaced, re-punctuated, 70 % excerpts, wrapped) that become pending or are
  refused.  Target ≥ 95 %.
* ``taint_check_us`` — one :meth:`TaintLedger.taint` call against a session that read the
  whole ``docs/`` tree, against the floor of :func:`fold` on the same write.  Target ≤ 50×.

``--json`` prints exactly one JSON object; otherwise a table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit, parse_args
from bench._taint_cases import Case, copy_cases, ordinary_cases
from persona_mind.mind._policy import DEFAULT_POLICY, decide
from persona_mind.mind.trust._normalize import fold
from persona_mind.mind.trust._taint import TaintLedger
from persona_mind.mind.trust._verdict import verdict


def outcome(case: Case) -> tuple[str, str]:
    """(action, reason) of the default policy for one scripted session."""
    ledger = TaintLedger()
    for said in case.user:
        ledger.observe_user(said)
    for source, text in case.untrusted:
        ledger.observe(source, text)  # type: ignore[arg-type]
    found = verdict(case.write)
    if found.refused:
        return "refuse", ", ".join(found.reasons)
    d = decide(DEFAULT_POLICY, ledger.taint(case.write), found)
    return d.action, d.reason


def main() -> None:
    args = parse_args(__doc__ or "")
    ordinary = ordinary_cases()
    pending = [(c, outcome(c)) for c in ordinary]
    pending = [(c, o) for c, o in pending if o[0] != "store"]
    for c, (action, reason) in pending:
        print(f"ordinary {action}: {c.name}: {c.write!r} — {reason}", file=sys.stderr)
    copies = copy_cases()
    missed = [c for c in copies if outcome(c)[0] == "store"]
    for c in missed:
        print(f"copy stored: {c.name}: {c.write!r}", file=sys.stderr)
    ordinary_pct = 100 * len(pending) / len(ordinary)
    caught_pct = 100 * (len(copies) - len(missed)) / len(copies)

    ledger = TaintLedger()
    for p in sorted((Path(__file__).resolve().parent.parent / "docs").glob("*.md")):
        ledger.observe("tool-output", p.read_text(encoding="utf-8"))
    writes = [c.write for c in ordinary]
    t0 = time.perf_counter()
    for w in writes:
        fold(w)
    floor = (time.perf_counter() - t0) / len(writes) * 1e6
    t0 = time.perf_counter()
    for w in writes:
        ledger.taint(w)
    cost = (time.perf_counter() - t0) / len(writes) * 1e6
    emit(
        [
            Result(
                f"ordinary_pending_pct (n={len(ordinary)})",
                round(ordinary_pct, 2),
                "%",
                None,
                None,
                "<= 2",
                ordinary_pct <= 2,
            ),
            Result(
                f"copies_caught_pct (n={len(copies)})",
                round(caught_pct, 2),
                "%",
                None,
                None,
                ">= 95",
                caught_pct >= 95,
            ),
            Result(
                "taint_check_us",
                round(cost, 2),
                "us",
                round(floor, 2),
                round(cost / floor, 2),
                "<= 50",
                cost / floor <= 50,
            ),
        ],
        args.json,
    )


if __name__ == "__main__":
    main()
