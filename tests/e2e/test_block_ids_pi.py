"""The lean memory block inside a real Pi with the real runtime (issue 16 follow-up).

A remembered fact reaches the next request's system prompt as one ``id text`` line whose id
is the 10-character prefix the block shows, and the model can cite exactly that prefix to
the ``memory`` tool: ``read`` answers with the whole fact and its full id (M-INJECT-7).
Fake model server on 127.0.0.1 (M-VERIFY-2).
"""

from __future__ import annotations

import re

import pytest

from .conftest import PiEnv

pytestmark = pytest.mark.e2e

TEXT = "Release branches are cut on Tuesdays BLOCK-7731"


def test_the_shown_id_is_what_memory_read_takes(pienv: PiEnv) -> None:
    del pienv.env["PERSONA_MIND_SIDECAR_RUNTIME"]  # the real runtime, as in test_trust_e2e
    pienv.fake.push(
        {
            "tool_calls": [
                {
                    "name": "memory",
                    "arguments": {
                        "action": "remember",
                        "kind": "convention",
                        "tier": "project",
                        "text": TEXT,
                    },
                }
            ]
        },
        {"text_from_last_tool": "SAVED: "},
    )
    with pienv.rpc(session=True) as rpc:
        rpc.prompt("remember when release branches are cut")
        saved = pienv.fake.tool_results(-1)[-1]
        full = re.search(r"\bm_[0-9a-f]{16}\b", saved)
        assert full, saved
        rpc.prompt("when are release branches cut?")
        system = pienv.fake.system_prompt(-1)
        block = system[system.index("<persona-mind-memory>") :]
        line = next(ln for ln in block.splitlines() if "BLOCK-7731" in ln)
        assert line == f"{full.group()[:10]} {TEXT}"  # no kind tag: a convention does not bind
        heading = next(
            ln for ln in reversed(block[: block.index(line)].splitlines()) if ln.startswith("## ")
        )
        assert heading == "## Project memory"
        pienv.fake.push(
            {
                "tool_calls": [
                    {"name": "memory", "arguments": {"action": "read", "id": full.group()[:10]}}
                ]
            },
            {"text_from_last_tool": "READ: "},
        )
        rpc.prompt("read that memory in full")
        result = pienv.fake.tool_results(-1)[-1]
    assert "BLOCK-7731" in result
    assert full.group() in result  # the card names the whole id
