"""Automatic review through the real Pi session and the bridge (issue 12).

Pi with the persona-mind extension and the real sidecar runtime, the fake model server on
127.0.0.1: in a fresh session a remember followed by the agent settling launches one review
worker (a child Pi asking with the worker's system prompt) after the coalescing window; a
new user prompt cancels it and leaves no child process; ``/mind optimize auto off`` then a
remember launches nothing (M-OPTIMIZE-AUTO-4, -5, -10, -18, -27).
"""

from __future__ import annotations

import re
import time

import pytest

from .conftest import PiEnv, use_architect
from .test_bridge_runtime import _children_of

pytestmark = pytest.mark.e2e

FACT = (
    "Release checklist: run the integration suite, tag the commit, and publish the "
    "changelog before announcing any release of the service MARKER-4411"
)
WORKER_PROMPT = "You review stored memory facts for consolidation"


def _remember_step(text: str) -> dict[str, object]:
    args = {"action": "remember", "kind": "convention", "text": text, "tier": "stm"}
    return {"tool_calls": [{"name": "memory", "arguments": args}]}


def _saved(real: PiEnv) -> bool:
    return any(
        p.is_file() and "MARKER-4411" in p.read_text(errors="replace")
        for p in (real.root / "agent" / "persona-mind").rglob("*")
    )


def _worker_requests(real: PiEnv) -> list[int]:
    return [
        i for i in range(len(real.fake.requests)) if WORKER_PROMPT in real.fake.system_prompt(i)
    ]


def test_remember_and_settle_launch_one_worker_and_a_new_prompt_cancels_it(
    real: PiEnv,
) -> None:
    with real.rpc(session=True) as rpc:
        use_architect(rpc)
        real.fake.push(
            _remember_step(FACT),
            {"text": "SAVED"},
            {"delay": 40, "text": '{"operations": []}'},  # the review worker hangs
        )
        before = len(real.fake.requests)
        settled_at = time.monotonic()
        rpc.prompt("remember the release checklist")
        assert real.fake.wait_for_requests(before + 3, timeout=60)  # the worker asks
        assert _saved(real)
        assert time.monotonic() - settled_at >= 2.0
        assert len(_worker_requests(real)) == 1
        [sidecar] = re.findall(r" ready pid=(\d+)", real.bridge_log.read_text())[-1:]
        assert _children_of(int(sidecar)), "a child Pi runs the review"
        real.fake.push({"text": "next answer"})
        rpc.prompt("a new question")  # incoming input cancels the review
        deadline = time.monotonic() + 30
        while _children_of(int(sidecar)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _children_of(int(sidecar)) == [], "the review worker was stopped"
        assert len(_worker_requests(real)) == 1


def test_auto_off_then_remember_launches_nothing(real: PiEnv) -> None:
    with real.rpc(session=True) as rpc:
        use_architect(rpc)
        rpc.call({"type": "prompt", "message": "/mind optimize auto off"})
        rpc.wait_notify("automatic review: off")
        real.fake.push(_remember_step(FACT), {"text": "SAVED"})
        rpc.prompt("remember the release checklist")
        assert _saved(real), "the remember succeeded while automatic review was off"
        time.sleep(3.0)  # past the 2 s window
        real.fake.push({"text": "fine"})
        rpc.prompt("anything else?")
        assert _worker_requests(real) == []
