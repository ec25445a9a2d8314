"""The HostProxy: no actor awaits host IO inside ``receive`` (issue 10, ownership).

A host that takes its time answering (Pi redrawing its TUI, a slow pipe) holds only the
HostProxy; the Companion keeps answering, and the host still sees every request in the
order the runtime made it, before the call that made them returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.host_proxy import HostClient, HostProxy
from persona_mind.messages.companion import Describe
from persona_mind.messages.host import CustomEntry, ToolSpec
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost


class SlowHost(SimHost):
    """Blocks in ``register_tools`` while ``gate`` is armed."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()

    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        if self.gate is not None:
            self.entered.set()
            await self.gate.wait()
        await super().register_tools(tools)


@pytest.mark.asyncio
async def test_a_blocked_host_does_not_hold_the_companion(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    host = SlowHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock())
    async with host:
        host.gate = asyncio.Event()
        starting = asyncio.ensure_future(host.start())  # registers tools: the host blocks
        await host.entered.wait()
        tools, _ = await host.runtime.companion.ask(Describe())  # answered meanwhile
        assert tools  # the session's tools are offered; the host has not seen them yet
        assert not starting.done()  # the call waits until the host has seen its requests
        host.gate.set()
        await starting
        assert {t.name for t in host.tools} == {t.name for t in tools}


class Recording:
    """A host port that records the order of the requests it performs."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        self.seen.append("tools")

    async def register_commands(self, commands: Sequence[object]) -> None:
        self.seen.append("commands")

    async def append_entry(self, custom_type: str, data: object) -> None:
        self.seen.append(f"entry:{custom_type}")

    async def branch_entries(self) -> Sequence[CustomEntry]:
        self.seen.append("read")
        return (CustomEntry(custom_type="x", data=len(self.seen)),)

    async def notify(self, text: str, level: str = "info") -> None:
        self.seen.append(f"notify:{text}")
        if text == "fails":
            raise RuntimeError("the host said no")

    async def set_status(self, key: str, text: str | None) -> None:
        self.seen.append("status")

    async def display(self, message: object) -> None:
        self.seen.append("display")

    async def send_user_message(self, text: str) -> None:
        self.seen.append("user")

    async def tool_update(self, call_id: str, text: str, details: object = None) -> None:
        self.seen.append(f"tool_update:{call_id}")

    async def request_reload(self) -> None:
        self.seen.append("reload")


@pytest.mark.asyncio
async def test_requests_reach_the_host_in_order_and_a_failure_is_not_a_crash() -> None:
    port = Recording()
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(lambda: HostProxy(port), name="host-proxy")
        host = HostClient(ref)
        await host.append_entry("a", 1)
        await host.notify("fails")
        await host.notify("after")
        entries = await host.branch_entries()  # after everything sent before it
        await host.request_reload()
        await host.flush()
        assert port.seen == ["entry:a", "notify:fails", "notify:after", "read", "reload"]
        assert entries == (CustomEntry(custom_type="x", data=4),)
        assert ref.statistics().restarts == 0


@pytest.mark.asyncio
async def test_flush_asks_only_when_something_was_told_since_the_last_flush() -> None:
    """Issue 10: the facade flushes after every call; a call that told the host nothing
    costs no ask, and one that did still waits until the host has performed it."""
    port = Recording()
    async with ActorSystem(clock=ManualClock()) as system:
        ref = system.spawn(lambda: HostProxy(port), name="host-proxy")
        host = HostClient(ref)
        await host.flush()
        await host.flush()
        assert ref.statistics().delivered == 0  # nothing told: no Flush reached the bridge
        await host.notify("one")
        await host.flush()  # waits for the notify to be performed
        assert port.seen == ["notify:one"]
        delivered = ref.statistics().delivered
        await host.flush()
        assert ref.statistics().delivered == delivered  # nothing new since that flush
        await host.set_status("k", "v")
        await host.flush()
        assert port.seen == ["notify:one", "status"]
