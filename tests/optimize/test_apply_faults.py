"""Apply under kill -9 at every seam call, and two processes racing one plan.

M-OPTIMIZE-HISTORY-1, -8, -19, -20 and M-OPTIMIZE-MANUAL-38: whatever step the writer dies
at, the store reads back strictly as the old rows or the new rows, and a store that holds
the new rows always has its receipt (prepared or settled) — never lost; a receipt left
prepared is listed as needing recovery and blocks further applies until reconciled.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from persona_mind.storage import Layout, OptimizeHistory
from persona_mind.testing import ManualClock
from tests.optimize._helpers import consolidator, rows, scope_for, seed

ZYGOTE = Path(__file__).with_name("_apply_zygote.py")

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="SIGKILL and fork() are POSIX; Windows has neither"
)


def _spawn_zygote() -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, str(ZYGOTE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_kill9_at_every_step_of_apply_leaves_old_or_new_and_a_receipt(tmp_path: Path) -> None:
    clock = ManualClock()
    a, b, c = seed(tmp_path, clock, ["run ruff", "run mypy", "keep me"])
    old = rows(tmp_path, clock)
    template = tmp_path / "template"
    shutil.copytree(tmp_path / "agent", template)  # every cycle starts from these bytes
    work = tmp_path
    zygote = _spawn_zygote()
    assert zygote.stdin is not None
    assert zygote.stdout is not None
    seen_new = seen_old = seen_prepared = 0
    points: set[str] = set()
    try:
        k = 0
        while True:
            k += 1
            assert k < 400, "apply never completed"
            shutil.rmtree(work / "agent")
            shutil.copytree(template, work / "agent")
            ack = tmp_path / f"ack{k}.txt"
            line = (
                f"run {work / 'agent'} {work / 'code' / 'app'} {work / 'home'} {k} {ack} "
                f"{a.id} {b.id}\n"
            )
            zygote.stdin.write(line)
            zygote.stdin.flush()
            pid = int(zygote.stdout.readline())
            zygote.stdin.write(f"reap {pid}\n")
            zygote.stdin.flush()
            zygote.stdout.readline()
            log = ack.read_text() if ack.exists() else ""
            points.update(x.split()[1] for x in log.splitlines() if x.startswith("AT"))
            cons = consolidator(work, clock)
            scope = scope_for(work)
            now = rows(work, clock)  # strict read: never torn, never quarantined
            receipts = cons.receipts(scope, "project")
            if now == old:
                seen_old += 1
                assert all(r.outcome != "applied" for r in receipts)
            else:
                seen_new += 1
                assert {f.id: f.status for f in now}[c.id] == "active"
                assert len(now) == 4
                assert len(receipts) == 1, f"step {k}: new store without its receipt"
            prepared = [r for r in receipts if r.state == "prepared"]
            if prepared:
                seen_prepared += 1
                assert cons.list_history(scope, "project")[0]["needsRecovery"] is True
                target = scope.fact_target("project")
                report = OptimizeHistory(cons.engine).reconcile(target)
                assert len(report) == 1  # the store proves one side: settled on proof
            if "DONE" in log:
                break
    finally:
        zygote.stdin.close()
        zygote.wait(timeout=30)
        zygote.stdout.close()
    assert seen_old > 0
    assert seen_new > 0
    assert seen_prepared > 0
    assert {"replace", "fsync_dir"} <= points


def test_two_processes_applying_the_same_plan_commit_once_M_OPTIMIZE_MANUAL_38(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    a, b = seed(tmp_path, clock, ["run ruff", "run mypy"])
    zygote = _spawn_zygote()
    assert zygote.stdin is not None
    assert zygote.stdout is not None
    acks = [tmp_path / "ack1.txt", tmp_path / "ack2.txt"]
    try:
        pids = []
        for ack in acks:  # both forked before either is reaped: they race for the locks
            zygote.stdin.write(
                f"run {tmp_path / 'agent'} {tmp_path / 'code' / 'app'} {tmp_path / 'home'} "
                f"100000 {ack} {a.id} {b.id}\n"
            )
            zygote.stdin.flush()
            pids.append(int(zygote.stdout.readline()))
        for pid in pids:
            zygote.stdin.write(f"reap {pid}\n")
            zygote.stdin.flush()
            zygote.stdout.readline()
    finally:
        zygote.stdin.close()
        zygote.wait(timeout=30)
        zygote.stdout.close()
    done = [ack.exists() and "DONE applied" in ack.read_text() for ack in acks]
    receipts = consolidator(tmp_path, clock).receipts(scope_for(tmp_path), "project")
    assert sum(done) == 1
    assert len(receipts) == 1
    assert len(rows(tmp_path, clock)) == 3
    assert Layout.history(scope_for(tmp_path).fact_target("project").path).exists()
