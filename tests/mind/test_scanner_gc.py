"""The scanner's TR39 table costs the garbage collector nothing once warmed.

Why: a full collection walks every tracked object while it holds the GIL; the event loop
waits that long. The confusables table is read from the package's data file into tuples
(untracked), not through ``confusable_homoglyphs.confusables``, whose module kept ~23,000
lists and dicts alive for the life of the process (M-TRUST scanner; issue 24's loop rows).
"""

from __future__ import annotations

import json
import subprocess
import sys

from confusable_homoglyphs.confusables import confusables_data

from persona_mind.mind.trust._normalize import tr39_confusables

_PROBE = """
import gc, json, sys
gc.collect()
before = len(gc.get_objects())
from persona_mind.mind.trust._verdict import warm
warm()
gc.collect()
print(json.dumps({
    "grown": len(gc.get_objects()) - before,
    "modules": sorted(m for m in sys.modules if m.startswith("confusable_homoglyphs")),
}))
"""


def test_warming_the_scanner_leaves_few_tracked_objects() -> None:
    # the import of the trust package itself happens before the count, so what grows is
    # what warm() keeps: the learned weights and the lookalike tables, not TR39's parse
    pre = "import persona_mind.mind.trust._verdict\n"
    out = subprocess.run(
        [sys.executable, "-c", pre + _PROBE],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    got = json.loads(out.stdout)
    assert "confusable_homoglyphs.confusables" not in got["modules"]
    assert got["grown"] < 2_000, got


def test_the_table_is_the_librarys_own() -> None:
    expected = {k: tuple(e["c"] for e in v) for k, v in confusables_data.items()}
    table = tr39_confusables()
    assert table == expected
    assert list(table) == list(expected)  # same order as the data file
