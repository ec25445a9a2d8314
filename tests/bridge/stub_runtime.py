"""A small stand-in for ``persona_mind.runtime.Runtime`` that exercises every bridge path.

Loaded by the sidecar through ``PERSONA_MIND_SIDECAR_RUNTIME=<this file>:StubRuntime`` in the
bridge tests, so the bridge is tested on its own terms while the real runtime grows. Every
event and call is appended as one JSON line to ``$STUB_RUNTIME_LOG`` when set.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.actors import Actor, ActorSystem, RestartPolicy
from persona_mind.messages._base import Msg
from persona_mind.messages.host import (
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    DisplayMessage,
    HostEvent,
    PromptInjection,
    SessionStart,
    SessionTree,
    ToolCall,
    ToolResult,
    ToolSpec,
)

if TYPE_CHECKING:
    from persona_mind.clock import Clock
    from persona_mind.host import HostPort

TEXT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}


class Crash(Msg, frozen=True, kw_only=True):
    """Makes a :class:`Crasher` raise."""

    why: str


class Crasher(Actor[Crash]):
    """An actor that crashes on every message; spawned with no restarts, it escalates."""

    async def receive(self, message: Crash) -> None:
        raise RuntimeError(f"stub actor crashed on purpose: {message.why}")


class StubRuntime:
    """Echo tool, notes command, injection with a counter; logs everything.

    It runs a real :class:`ActorSystem` (``self.system``) so the sidecar's escalation watch
    is exercised: the ``stub_boom`` tool with text ``ESCALATE`` crashes an actor that may
    not restart, and the root supervisor gives up (issue 10).
    """

    #: In-process tests set this to hold ``__aenter__`` until they release it.
    start_gate: asyncio.Event | None = None

    def __init__(
        self,
        host: HostPort,
        *,
        agent_dir: Path,
        clock: Clock | None = None,
        trace_path: Path | None = None,
    ) -> None:
        self.host = host
        self.agent_dir = agent_dir
        self.injections = 0
        self.notes: list[Any] = []
        self.log_path = os.environ.get("STUB_RUNTIME_LOG")
        self.exited = False
        self.system = ActorSystem(clock=clock)
        if os.environ.get("STUB_RUNTIME_FAIL_START"):
            raise RuntimeError("stub runtime told to fail at start")

    def _log(self, kind: str, value: object) -> None:
        if self.log_path:
            with open(self.log_path, "a", encoding="utf-8") as fh:
                fh.write(
                    json.dumps(
                        {"kind": kind, "pid": os.getpid(), "value": msgspec.to_builtins(value)}
                    )
                    + "\n"
                )

    async def __aenter__(self) -> StubRuntime:
        if StubRuntime.start_gate is not None:
            await StubRuntime.start_gate.wait()
        await self.system.__aenter__()
        self._log("enter", str(self.agent_dir))
        if os.environ.get("STUB_RUNTIME_PRINT"):
            print("STRAY PRINT FROM THE RUNTIME")  # must land on stderr, not in the frames
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._log("exit", None)
        self.exited = True
        await self.system.__aexit__(None, None, None)  # raises Escalated if the root gave up

    async def escalate(self) -> None:
        """Crash an actor that may not restart: the root supervisor gives up."""
        ref = self.system.spawn(Crasher, name="crasher", restart=RestartPolicy(max_restarts=0))
        ref.tell(Crash(why="ESCALATE"))
        await self.system.wait_failed()
        await asyncio.Event().wait()  # the sidecar stops and cancels this call

    def tool_specs(self) -> Sequence[ToolSpec]:
        return (
            ToolSpec(
                name="stub_echo",
                description="Echo text back with the sidecar pid.",
                parameters=TEXT_SCHEMA,
                label="Stub echo",
            ),
            ToolSpec(
                name="stub_slow",
                description="Never finishes (for cancel tests).",
                parameters=TEXT_SCHEMA,
            ),
            ToolSpec(name="stub_boom", description="Always raises.", parameters=TEXT_SCHEMA),
            ToolSpec(
                name="stub_die", description="Kills the sidecar process.", parameters=TEXT_SCHEMA
            ),
        )

    def command_specs(self) -> Sequence[CommandSpec]:
        return (
            CommandSpec(name="stub-note", description="Save a session note."),
            CommandSpec(name="stub-reload", description="Ask for a reload (result|host)."),
            CommandSpec(name="stub-tools", description="Offer only these tools (a,b,...)."),
        )

    async def event(self, event: HostEvent) -> PromptInjection | None:
        self._log("event", event)
        match event:
            case SessionStart() | SessionTree():
                self.notes = [e.data for e in event.entries if e.custom_type == "stub-note"]
                return None
            case BeforeAgentStart() if "HANG" in event.prompt:
                await asyncio.Event().wait()  # a runtime that never answers
                return None
            case BeforeAgentStart() if "SWALLOW" in event.prompt:
                # a runtime that ignores being cancelled and answers anyway
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.Event().wait()
                return PromptInjection(sections=("SWALLOWED",))
            case BeforeAgentStart() if "CANCELLING" in event.prompt:
                task = asyncio.current_task()
                assert task is not None
                async with asyncio.timeout(5):  # a deadline scope works on this task
                    await asyncio.sleep(0)
                return PromptInjection(sections=(f"cancelling={task.cancelling()}",))
            case BeforeAgentStart():
                self.injections += 1
                notes = ",".join(str(n.get("text")) for n in self.notes if isinstance(n, dict))
                return PromptInjection(
                    sections=(f"STUB-MEMORY-{self.injections} notes=[{notes}]",),
                )
            case _:
                return None

    async def tool(self, call: ToolCall) -> ToolResult:
        self._log("tool", call)
        text = str(call.arguments.get("text", "")) * int(call.arguments.get("times", 1))
        match call.name:
            case "stub_echo":
                entries = await self.host.branch_entries()
                return ToolResult(
                    text=f"STUB-ECHO pid={os.getpid()} text={text} entries={len(entries)}"
                )
            case "stub_slow":
                await asyncio.Event().wait()
                raise AssertionError("unreachable")
            case "stub_die":
                os._exit(9)
            case "stub_boom" if text == "ESCALATE":
                await self.escalate()
                raise AssertionError("unreachable")
            case _:
                raise ValueError(f"stub tool {call.name} exploded on purpose")

    async def command(self, call: CommandCall) -> CommandResult:
        self._log("command", call)
        if call.name == "stub-tools":
            keep = set(call.args.split(","))
            await self.host.register_tools([t for t in self.tool_specs() if t.name in keep])
            return CommandResult(text=f"tools now: {sorted(keep)}")
        if call.name == "stub-reload":
            if call.args == "host":
                await self.host.request_reload()
                return CommandResult(text="reload requested through the host port")
            return CommandResult(text="reloading", reload=True)
        note = {"text": call.args}
        await self.host.append_entry("stub-note", note)
        self.notes.append(note)
        await self.host.set_status("stub", f"notes={len(self.notes)}")
        body = f"card body: {call.args}\nsecond line\tafter a tab \x1b[31mno colour\x1b[0m"
        await self.host.display(DisplayMessage(kind="stub", title="Stub card", body=body))
        await self.host.notify(f"noted: {call.args}")
        return CommandResult(text=f"saved note {call.args!r}")
