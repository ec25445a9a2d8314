"""The hybrid memory ranker inside a real Pi session (issue 16).

The sidecar starts ready without the model; the Mind feature starts its background load
right after the ``ready`` frame (issue 15 item 9; before, at the first session event).
Turns before it lands rank lexically; once it is in, a turn gives the project's facts their
vectors, and the derived cache appears beside the store.
"""

from __future__ import annotations

import importlib.util
import time

import pytest

from .conftest import PiEnv

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        importlib.util.find_spec("wordllama") is None,
        reason="the semantic extra (wordllama) is not installed",
    ),
]

MARKER = "Makefiles here use tabs MARKER-4417"


def test_model_loads_in_the_background_and_turns_then_rank_hybrid(pienv: PiEnv) -> None:
    del pienv.env["PERSONA_MIND_SIDECAR_RUNTIME"]  # the real runtime, as in test_bridge_runtime
    pienv.env.pop("PERSONA_MIND_RANKER", None)  # tests/conftest.py opts every test out
    pienv.fake.push(
        {
            "tool_calls": [
                {
                    "name": "memory",
                    "arguments": {"action": "remember", "kind": "convention", "text": MARKER},
                }
            ]
        },
        {"text_from_last_tool": "SAVED: "},
    )
    store = pienv.root / "agent" / "persona-mind"
    with pienv.rpc(session=True) as rpc:
        rpc.prompt("remember that Makefiles use tabs")
        assert "MARKER-4417" in pienv.fake.tool_results(-1)[-1]
        # the event waited on: the first hybrid turn writes the vector cache; each prompt is
        # one more turn, and the deadline only bounds a broken install
        deadline = time.monotonic() + 90
        while not list(store.rglob("*.vec")):
            assert time.monotonic() < deadline, "the semantic model never became ready"
            rpc.prompt("how do we indent Makefiles?")
        assert "MARKER-4417" in pienv.fake.system_prompt(-1)
    log = pienv.bridge_log.read_text()
    assert "problem[" not in log
