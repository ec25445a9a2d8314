"""Every verdict of a labelled corpus as JSON lines, to diff two versions of the scanner.

A speed change to the rules must change no answer: dump on main and on the branch, then
``diff`` the two files (empty when level, reasons, score and findings all agree)::

    python bench/scanner_dump.py OUT.jsonl [CORPUS_DIR ...]

Default corpora: the own corpus (``tests/mind/scanner_corpus``).  One line per row:
corpus directory name, row index, level, reasons, score, findings of the verdict, and the
findings of ``scan`` alone (texts over ``CACHE_MAX_CHARS`` get the scan only).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/scanner_dump.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scanner import CORPUS, load
from persona_mind.mind.trust._scanner import scan
from persona_mind.mind.trust._verdict import CACHE_MAX_CHARS, verdict_uncached, warm


def dump(out: Path, corpora: list[Path]) -> int:
    """Write the lines; the number of rows."""
    warm()
    n = 0
    with out.open("w", encoding="utf-8") as fh:
        for corpus in corpora:
            for i, row in enumerate(load(corpus)):
                text = row["text"]
                v = verdict_uncached(text) if len(text) <= CACHE_MAX_CHARS else None
                record = [
                    corpus.name,
                    i,
                    v and v.level,
                    v and list(v.reasons),
                    v and v.score,
                    v and [[f.category, f.rule] for f in v.findings],
                    [[f.category, f.rule] for f in scan(text)],
                ]
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    corpora = [Path(a) for a in args[1:]] or [CORPUS]
    print(dump(Path(args[0]), corpora), "rows", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
