"""F4: 8 processes x 200 concurrent read-modify-write commits of one store (M-STORE-8, -21).

Every commit is a blind write computed from a read taken outside the lock and guarded by
``expect_fingerprint``. Pass: 0 lost updates (all 1,600 ids present), none applied twice,
every stale CAS refused (conflicts counted), sequence == number of commits.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from persona_mind.storage import FileStore, StoreTarget
from tests.fault._rmw_worker import Item

WORKER = Path(__file__).with_name("_rmw_worker.py")


def test_f4_eight_processes_no_lost_updates(
    tmp_path: Path, soak: bool, record_property: Callable[[str, object], None]
) -> None:
    processes, rounds = (32, 2000) if soak else (8, 200)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(tmp_path), str(w), str(rounds)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for w in range(processes)
    ]
    summaries = []
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0
        summaries.append(json.loads(out))
    target = StoreTarget(path=tmp_path / "store.json", entry_type=Item)
    snap = FileStore().read(target)
    assert snap is not None
    counts = collections.Counter(item.id for item in snap.entries)
    expected = {f"w{w}-{i}" for w in range(processes) for i in range(rounds)}
    assert set(counts) == expected, f"lost updates: {len(expected - set(counts))}"
    assert max(counts.values()) == 1  # a stale CAS was never applied (twice or at all)
    assert snap.sequence == processes * rounds
    conflicts = sum(s["conflicts"] for s in summaries)
    record_property("rmw_commits", processes * rounds)
    record_property("rmw_conflicts_refused", conflicts)
    print(f"\nF4: {processes}x{rounds} commits, 0 lost, {conflicts} stale CAS refused")
    assert conflicts > 0  # the processes really raced
