"""The domain warm-up runs no full collection and leaves nothing for a later one to walk.

Why: ``warm_domain`` compiles the scanner's ~355 rule regexes on the Store's IO thread at
the first ``SessionStart``; the containers that allocates triggered two full collections
there, each walking the whole heap (~11 ms) with the GIL held, so the event loop could not
answer a ping meanwhile (issue 24's loop rows, P-PERF). The warm-up holds full collections
off and freezes what it loaded (``persona_mind._quietgc``). No timing: a fresh interpreter
counts generation-2 collections with ``gc.callbacks`` and the objects the collector still
tracks afterwards (``gc.get_objects`` does not list the frozen ones).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import gc, json
    from persona_mind.features import _warm

    full = []
    gc.callbacks.append(
        lambda phase, info: full.append(1) if phase == "start" and info["generation"] == 2 else None
    )
    _warm.warm_domain()
    _warm.warm_persona()
    print(json.dumps({"full": len(full), "tracked": len(gc.get_objects()),
                      "frozen": gc.get_freeze_count()}))
    """
)


def test_warm_up_runs_no_full_collection_and_freezes_what_it_loaded() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    got = json.loads(out.stdout)
    assert got["full"] == 0, got
    # everything the warm-up built is in the permanent generation, out of every later walk
    assert got["frozen"] > 20_000, got
    assert got["tracked"] < 5_000, got
