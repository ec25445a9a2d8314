"""``/mind optimize project`` typed in a real Pi session (issue 11, M-OPTIMIZE-BATCH-8..10).

Pi with the persona-mind extension and the real sidecar runtime, the fake model server on
127.0.0.1. The command answers at acceptance (a toast naming the target); a real child Pi
worker (the worker's system prompt, the session model) proposes a consolidation, the
proposal is applied, the report card arrives afterwards with every source (-) and the
replacement (+), and ``/mind optimize undo`` restores the sources. ``/new`` during a review
cancels the worker: no report card, no change, no child process left
(M-OPTIMIZE-BATCH-20, -28).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import PiEnv, RpcPi, use_architect
from .test_bridge_runtime import _children_of

pytestmark = pytest.mark.e2e

LONG = " before every push, and keep the integration suite green for each release"
TEXTS = (f"lint with ruff{LONG} MARKER-7731", f"run ruff to lint{LONG} MARKER-7732")
MERGED = f"Lint with ruff{LONG} MARKER-7733."
WORKER_PROMPT = "You review stored memory facts for consolidation"


def _remember(text: str) -> dict[str, Any]:
    args = {"action": "remember", "kind": "convention", "text": text, "tier": "project"}
    return {"tool_calls": [{"name": "memory", "arguments": args}]}


def _project_rows(real: PiEnv) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in (real.root / "agent" / "persona-mind" / "memory" / "project").glob("*.json"):
        if ".optimize-history" in path.name:
            continue
        rows += json.loads(path.read_text())["entries"]
    return rows


def _seed(real: PiEnv, rpc: RpcPi) -> list[str]:
    use_architect(rpc)
    # The automatic review would start its own worker 2 s after the seeding turn settles
    # (its first attempt needs no token gate) and race the `/mind optimize` these tests send:
    # off, so the only review is the one each test asks for.
    rpc.call({"type": "prompt", "message": "/mind optimize auto off"})
    real.fake.push(_remember(TEXTS[0]), _remember(TEXTS[1]), {"text": "SAVED"})
    rpc.prompt("remember how we lint")
    ids = [r["id"] for t in TEXTS for r in _project_rows(real) if r["text"] == t]
    assert len(ids) == 2, _project_rows(real)
    return ids


def _sidecar(real: PiEnv) -> int:
    [pid] = re.findall(r" ready pid=(\d+)", real.bridge_log.read_text())[-1:]
    return int(pid)


def _worker_requests(real: PiEnv) -> list[int]:
    return [
        i for i in range(len(real.fake.requests)) if WORKER_PROMPT in real.fake.system_prompt(i)
    ]


def _active(real: PiEnv) -> set[str]:
    return {r["text"] for r in _project_rows(real) if not r.get("supersededBy")}


def test_optimize_project_applies_the_worker_proposal_and_undo_restores_it(
    real: PiEnv,
) -> None:
    with real.rpc(session=True) as rpc:
        ids = _seed(real, rpc)
        answer = {"operations": [{"sources": ids, "text": MERGED}]}
        real.fake.push({"text": json.dumps(answer)})
        rpc.call({"type": "prompt", "message": "/mind optimize project"})
        rpc.wait_notify("Optimize review accepted: project")  # answered at acceptance
        card = str(rpc.wait_notify("project applied", timeout=150)["message"])
        lines = card.splitlines()
        for text in TEXTS:  # every source shown as removed
            assert any(ln.startswith("- ") and text[:40] in ln for ln in lines), card
        assert any(ln.startswith("+ ") and MERGED[:40] in ln for ln in lines), card
        assert len(_worker_requests(real)) == 1
        worker = real.fake.requests[_worker_requests(real)[0]]
        assert worker["model"] == real.fake.requests[0]["model"]  # the session's model
        assert not worker.get("tools"), "the worker runs with no tools"
        assert MERGED in _active(real)
        assert not set(TEXTS) & _active(real)
        receipt = re.findall(r"undo with: /mind optimize undo (\S+) project", card)[0]
        rpc.call({"type": "prompt", "message": f"/mind optimize undo {receipt} project"})
        rpc.wait_notify("Undid consolidation")
        assert set(TEXTS) <= _active(real)
        assert MERGED not in _active(real)
        assert _children_of(_sidecar(real)) == []


def test_new_session_during_a_review_cancels_the_worker_without_a_report(
    real: PiEnv,
) -> None:
    with real.rpc(session=True) as rpc:
        ids = _seed(real, rpc)
        before = _active(real)
        answer = {"operations": [{"sources": ids, "text": MERGED}]}
        real.fake.push({"delay": 40, "text": json.dumps(answer)})  # the worker hangs
        asked = len(real.fake.requests)
        rpc.call({"type": "prompt", "message": "/mind optimize project"})
        rpc.wait_notify("Optimize review accepted: project")
        assert real.fake.wait_for_requests(asked + 1, timeout=60)  # the worker asks
        assert _worker_requests(real)
        assert _children_of(_sidecar(real)), "a child Pi runs the review"
        rpc.call({"type": "new_session"})
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and _children_of(_sidecar(real)):
            time.sleep(0.05)
        assert _children_of(_sidecar(real)) == [], "the review worker was stopped"
        time.sleep(2.0)  # a stale report would be shown by now; none may come
        assert not [n for n in rpc.notifications() if "Optimize review:" in n]
        assert _active(real) == before
    sessions = "".join(p.read_text() for p in Path(real.session_dir).rglob("*.jsonl"))
    assert "project applied" not in sessions
