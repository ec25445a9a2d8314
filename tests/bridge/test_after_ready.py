"""The semantic model starts loading right after ``ready`` (issue 15 item 9).

Its load holds the GIL for one ~55 ms tokenizer parse that cannot be split; started at the
first session event it landed inside the first turn (the worst first-turn ping).  Now the
sidecar calls ``runtime.after_ready()`` once the ``ready`` frame is written, and the Mind
feature's hook starts the process-wide model edge there.  Checked by order and by what is
imported when — never by timing (figures: ``bench/_bridge_limits.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import persona_mind.embedding as embedding
from persona_mind.embedding import SemanticEdge
from persona_mind.messages import bridge as b
from persona_mind.runners.sidecar import Sidecar
from persona_mind.runtime import Runtime
from tests.bridge.stub_runtime import StubRuntime
from tests.mind.test_hybrid import BagEncoder


class AfterReadyRuntime(StubRuntime):
    """Records which frames the host had been sent when ``after_ready`` ran."""

    sent: list[str]
    seen_at_hook: list[list[str]]

    def after_ready(self) -> None:
        self.seen_at_hook.append(list(self.sent))


@pytest.mark.asyncio
async def test_the_sidecar_runs_after_ready_once_the_ready_frame_is_written() -> None:
    sent: list[str] = []
    AfterReadyRuntime.sent, AfterReadyRuntime.seen_at_hook = sent, []
    side = Sidecar(lambda line: sent.append(json.loads(line)["type"]), lambda: AfterReadyRuntime)
    side.feed(b.encode_frame(b.Hello(protocol=b.PROTOCOL_VERSION, agent_dir="/tmp/agent")))
    for _ in range(200):
        if AfterReadyRuntime.seen_at_hook:
            break
        await asyncio.sleep(0.01)
    assert AfterReadyRuntime.seen_at_hook == [["ready"]]  # once, and after the frame
    await side.stop(0)


class Host:
    async def register_tools(self, tools: object) -> None: ...
    async def register_commands(self, commands: object) -> None: ...
    async def append_entry(self, custom_type: str, data: object) -> None: ...
    async def branch_entries(self) -> tuple[()]:
        return ()
    async def notify(self, text: str, level: str = "info") -> None: ...
    async def set_status(self, key: str, text: str | None) -> None: ...
    async def display(self, message: object) -> None: ...
    async def send_user_message(self, text: str) -> None: ...
    async def request_reload(self) -> None: ...


@pytest.fixture
def fake_edge(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SemanticEdge, threading.Event]]:
    """The process-wide edge replaced by one whose loader records that it ran."""
    loaded = threading.Event()

    def loader() -> BagEncoder:
        loaded.set()
        return BagEncoder()

    edge = SemanticEdge(loader=loader)
    monkeypatch.setattr(embedding, "_SHARED", edge)
    monkeypatch.delenv("PERSONA_MIND_RANKER", raising=False)
    for key in ("PI_PERSONA_LEG", "PI_PERSONA_CHILD"):
        monkeypatch.delenv(key, raising=False)
    yield edge, loaded
    edge.settled.wait(10)


@pytest.mark.asyncio
async def test_the_runtimes_after_ready_starts_the_model_load(
    tmp_path: Path, fake_edge: tuple[SemanticEdge, threading.Event]
) -> None:
    edge, loaded = fake_edge
    async with Runtime(Host(), agent_dir=tmp_path / "agent") as rt:  # type: ignore[arg-type]
        assert not loaded.is_set()  # entering the runtime (before ready) loads nothing
        rt.after_ready()
        assert await asyncio.to_thread(edge.settled.wait, 10)
        assert loaded.is_set()
        assert edge.status().hybrid


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("key", "value"), [("PERSONA_MIND_RANKER", "lexical"), ("PI_PERSONA_LEG", "1")]
)
async def test_lexical_ranking_and_delegated_legs_load_no_model(
    tmp_path: Path,
    fake_edge: tuple[SemanticEdge, threading.Event],
    monkeypatch: pytest.MonkeyPatch,
    key: str,
    value: str,
) -> None:
    edge, loaded = fake_edge
    monkeypatch.setenv(key, value)
    async with Runtime(Host(), agent_dir=tmp_path / "agent") as rt:  # type: ignore[arg-type]
        rt.after_ready()
    assert not loaded.is_set()
    assert "not started" in edge.status().reason


PROBE = textwrap.dedent(
    """
    import asyncio, json, sys

    from persona_mind.messages import bridge as b
    from persona_mind.runners.sidecar import Sidecar

    SEMANTIC = ("persona_mind.embedding", "wordllama", "tokenizers", "numpy")
    at_ready = []


    def send(line):
        if json.loads(line)["type"] == "ready":
            at_ready.append(sorted(m for m in SEMANTIC if m in sys.modules))


    async def main():
        side = Sidecar(send)
        side.feed(b.encode_frame(b.Hello(protocol=b.PROTOCOL_VERSION, agent_dir=sys.argv[1])))
        while not at_ready:
            await asyncio.sleep(0.01)
        import persona_mind.embedding as e
        edge = e.shared_edge()
        settled = await asyncio.to_thread(edge.settled.wait, 60)
        await side.stop(0)
        print(json.dumps({"at_ready": at_ready[0], "settled": settled,
                          "reason": edge.status().reason}))


    asyncio.run(main())
    """
)


def test_nothing_semantic_is_imported_before_ready_and_the_load_starts_after(
    tmp_path: Path,
) -> None:
    """The real sidecar engine and Runtime in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    for key in ("PERSONA_MIND_RANKER", "PI_PERSONA_LEG", "PI_PERSONA_CHILD",
                "PERSONA_MIND_SIDECAR_RUNTIME"):
        env.pop(key, None)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "agent")],
        capture_output=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out: dict[str, Any] = json.loads(proc.stdout)
    assert out["at_ready"] == []
    assert out["settled"]  # started without any session event, and finished
    assert "not started" not in out["reason"]
