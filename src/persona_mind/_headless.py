"""A headless host: a :class:`~persona_mind.HostPort` and the session it drives, without Pi.

An MCP client (Claude Code, Codex CLI, Cursor…) and a program using ``persona_mind.Team`` are
hosts next to Pi and SimHost. They have no turns, no slash commands and no session file, so
:class:`HeadlessHost` keeps what the runtime asks of a host in memory: session custom entries
(session notes last as long as the process), notifications and display messages (logged to
stderr — for the MCP server stdout is the protocol), status items. :class:`HeadlessSession`
owns a real product :class:`~persona_mind.Runtime` — the same Store actor, Mind, Persona and
child runner a Pi session runs — and starts one host session in the given project, then
activates the chosen persona with the same ``/persona use`` command a Pi user types. Tool
calls go through ``Runtime.tool`` unchanged, so every refusal, scan and store lock of a Pi
session applies here too.

A headless host has no person typing while the semantic model loads, and its first tool
call may come at once: the session is ready only once the model is in (loaded on the
Store's IO thread; nothing to wait for when ranking is lexical), so its first ``recall``
ranks as every later one, and as ``Memory`` and ``persona-mind memory recall`` do
(``persona_mind._memory_service``).
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from persona_mind._memory_service import load_model
from persona_mind.errors import HostError
from persona_mind.messages.host import (
    CommandCall,
    CommandSpec,
    CustomEntry,
    DisplayMessage,
    NotifyLevel,
    SessionShutdown,
    SessionStart,
    SessionStartReason,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.runtime import Runtime

if TYPE_CHECKING:
    from persona_mind.children import ChildBackend
    from persona_mind.clock import Clock

__all__ = ("HeadlessHost", "HeadlessSession", "SessionSetupError", "log")


class SessionSetupError(HostError):
    """The headless session could not be set up (unknown persona, no team); nothing serves."""


def log(text: str) -> None:
    """One diagnostic line on stderr (MCP clients show or store a server's stderr)."""
    print(f"persona-mind: {text}", file=sys.stderr, flush=True)


@dataclass
class HeadlessHost:
    """The host port without a UI: what the runtime asks is kept or logged."""

    tools: list[ToolSpec]
    commands: list[CommandSpec]
    entries: list[CustomEntry]
    status: dict[str, str]
    notifications: list[tuple[NotifyLevel, str]]
    reload_requested: bool = False

    @classmethod
    def empty(cls) -> HeadlessHost:
        return cls([], [], [], {}, [])

    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        self.tools = list(tools)

    async def register_commands(self, commands: Sequence[CommandSpec]) -> None:
        self.commands = list(commands)

    async def append_entry(self, custom_type: str, data: Any) -> None:
        entry_id = f"headless-e{len(self.entries) + 1}"
        self.entries.append(CustomEntry(custom_type=custom_type, data=data, entry_id=entry_id))

    async def branch_entries(self) -> Sequence[CustomEntry]:
        return tuple(self.entries)

    async def notify(self, text: str, level: NotifyLevel = "info") -> None:
        self.notifications.append((level, text))
        log(f"{level}: {text}")

    async def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.status.pop(key, None)
        else:
            self.status[key] = text

    async def display(self, message: DisplayMessage) -> None:
        log(f"display: {message}")

    async def send_user_message(self, text: str) -> None:
        # An MCP server cannot speak for the user; the text is only logged.
        log(f"a user message was asked for and not sent: {text[:200]}")

    async def tool_update(self, call_id: str, text: str, details: Any = None) -> None:
        log(f"tool {call_id}: {text.splitlines()[0] if text else ''}")

    async def request_reload(self) -> None:
        self.reload_requested = True


class HeadlessSession:
    """One runtime and one host session without Pi (see the module doc)."""

    def __init__(
        self,
        *,
        agent_dir: Path,
        cwd: Path,
        persona: str | None = None,
        model: str | None = None,
        clock: Clock | None = None,
        child_backend: ChildBackend | None = None,
        manager: str = "mcp",
    ) -> None:
        self.cwd = cwd
        self.manager = manager
        self.persona = persona
        self.model = model
        self.host = HeadlessHost.empty()
        self.runtime = Runtime(
            self.host, agent_dir=agent_dir, clock=clock, child_backend=child_backend
        )
        self.session_id = f"{manager}-{os.getpid()}-{id(self):x}"
        self._calls = itertools.count(1)

    async def __aenter__(self) -> HeadlessSession:
        await self.runtime.__aenter__()
        try:
            await self.start("startup")
            if self.persona:
                await self.activate(self.persona)
            await load_model(os.environ, self.runtime.offload)
        except BaseException:
            await self.runtime.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.runtime.event(SessionShutdown(reason=f"{self.manager} host closed"))
        finally:
            await self.runtime.__aexit__(exc_type, exc, tb)

    async def start(self, reason: SessionStartReason) -> None:
        """Start (or reload) the host session in the client's project."""
        self.host.reload_requested = False
        await self.runtime.event(
            SessionStart(
                reason=reason,
                session_id=self.session_id,
                session_manager=self.manager,
                cwd=str(self.cwd),
                entries=tuple(self.host.entries),
                model=self.model,
            )
        )
        await self.runtime.specs()

    async def activate(self, name: str) -> None:
        """``/persona use <name>`` in the session's team; refuses to start on failure."""
        result = await self.runtime.command(CommandCall(name="persona", args=f"use {name}"))
        if result.level == "error":
            raise SessionSetupError(
                f"persona {name}: {result.text} (pick a persona of the project's team; "
                "`persona-mind persona default set <pack>` chooses the team for new sessions)"
            )
        if self.host.reload_requested:
            await self.start("reload")

    def tool_specs(self) -> list[ToolSpec]:
        """The runtime's tools as offered right now (memory, backlog, consult, packs).

        The Companion pushes every change of its specs to the host (``register_tools``), so
        the host's copy is current without asking the runtime on every call.
        """
        return list(self.host.tools)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one runtime tool; a reload the tool asked for happens before the answer."""
        result = await self.runtime.tool(
            ToolCall(
                call_id=f"{self.manager}-call-{next(self._calls)}", name=name, arguments=arguments
            )
        )
        if self.host.reload_requested:
            await self.start("reload")
        return result
