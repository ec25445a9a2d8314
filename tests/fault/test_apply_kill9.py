"""Issue 24 M2: a kill -9 between the prepared receipt and the store write does not wedge
consolidation.

A real child process stages and applies a consolidation and is SIGKILLed at the first step
of the store write, after its prepared receipt is durable. The store still shows the
receipt's before-fingerprint, which proves the replacement never happened: the next apply
settles that receipt ``aborted`` by itself — with a line saying so in the receipt history —
and goes on. On the issue's main every later apply was refused (``HistoryBlocked``) until
someone ran ``persona-mind store history reconcile`` by hand.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from persona_mind.cli import main as cli_main
from persona_mind.mind.optimize._plans import PlanRegistry
from persona_mind.storage import Layout
from persona_mind.testing import ManualClock
from tests.optimize._helpers import consolidator, rows, scope_for, seed

CHILD = Path(__file__).with_name("_killed_apply.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def test_kill9_after_the_prepared_receipt_is_settled_aborted_by_the_next_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = ManualClock()
    a, b, c = seed(tmp_path, clock, ["run ruff", "run mypy", "keep me"])
    old = rows(tmp_path, clock)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.run(
        [
            sys.executable,
            str(CHILD),
            str(tmp_path / "agent"),
            str(tmp_path / "code" / "app"),
            str(tmp_path / "home"),
            a.id,
            b.id,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr

    scope = scope_for(tmp_path)
    cons = consolidator(tmp_path, clock)
    assert rows(tmp_path, clock) == old  # the store write never started
    (stuck,) = cons.receipts(scope, "project")
    assert (stuck.state, stuck.outcome) == ("prepared", "pending")

    ops = [{"sources": [a.id, c.id], "text": "merged"}]
    staged = cons.stage(scope, "project", ops, now=clock.wall())
    plan = PlanRegistry().add(
        owner="s",
        tier="project",
        store=staged.store,
        persona=scope.persona,
        fingerprint=staged.fingerprint,
        replacements=staged.replacements,
        now=clock.wall(),
    )
    done = cons.apply(plan, scope)  # not refused: the store proves the first never happened
    assert done.outcome == "applied"
    first, second = cons.receipts(scope, "project")
    assert first.id == stuck.id
    assert (first.state, first.outcome) == ("settled", "aborted")
    assert "settled aborted by the next apply" in first.note
    assert "before-fingerprint" in first.note
    assert (second.state, second.outcome) == ("settled", "applied")

    store = scope.fact_target("project").path
    assert cli_main(["store", "history", "list", str(store)]) == 0
    listing = capsys.readouterr().out
    assert f"{stuck.id}  settled  aborted" in listing
    assert "settled aborted by the next apply" in listing
    assert Layout.history(store).exists()
