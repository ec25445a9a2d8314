"""SimHost: a simulated Pi-like session that drives a real :class:`~persona_mind.Runtime`.

It is the host port's second adapter (the Pi bridge is the first): it records what the
runtime asks of the host (tools, commands, entries, notifications, status, display
messages, reloads) and offers the session verbs a test needs — start (startup, reload,
new, resume, fork), a whole user turn, tool calls, commands, branch moves and shutdown.
Session custom entries live on a branch list, so session notes replay exactly as they
would from Pi's active branch.

Example::

    # clock: persona_mind.testing.ManualClock in a test; the real clock when omitted
    async with SimHost(agent_dir=tmp_path, clock=ManualClock()) as host:
        await host.start()
        injection = await host.turn("remember that we deploy on Fridays")
        result = await host.call_tool("memory", {"action": "recall", "query": "deploy"})

Other extensions' traffic is simulated too: :meth:`SimHost.custom_message` (a
``pi.sendMessage`` custom message, e.g. the ``pi-persona-deferred-input`` replay) and
:meth:`SimHost.tool_end` (a finished tool call, nested ones with their ``parentToolCallId``).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from persona_mind.messages.host import (
    AgentEnd,
    AgentSettled,
    AgentStart,
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    CustomEntry,
    DisplayMessage,
    Input,
    InputSource,
    ModelSelect,
    NotifyLevel,
    PromptInjection,
    SessionShutdown,
    SessionStart,
    SessionStartReason,
    SessionTree,
    ToolCall,
    ToolExecutionEnd,
    ToolResult,
    ToolSpec,
    Usage,
)
from persona_mind.runtime import Runtime

if TYPE_CHECKING:
    from persona_mind.children import ChildBackend
    from persona_mind.clock import Clock
    from persona_mind.features import FeatureFactory

__all__ = ("SimHost", "Turn")


@dataclass
class Turn:
    """What one simulated user turn produced."""

    prompt: str
    injection: PromptInjection
    system_prompt: str


@dataclass
class _Session:
    session_id: str
    session_file: str
    branch: list[CustomEntry] = field(default_factory=list)
    origin_session_id: str | None = None


class SimHost:
    """A simulated host session around a real runtime (public, typed, for users' tests)."""

    def __init__(
        self,
        *,
        agent_dir: Path,
        cwd: Path | None = None,
        clock: Clock | None = None,
        trace_path: Path | None = None,
        features: Sequence[FeatureFactory] | None = None,
        base_system_prompt: str = "You are a coding agent.",
        model: str = "sim/scripted-model",
        child_backend: ChildBackend | None = None,
    ) -> None:
        self.agent_dir = agent_dir
        self.cwd = cwd or agent_dir.parent
        self.base_system_prompt = base_system_prompt
        self.model = model
        self.tools: list[ToolSpec] = []
        self.commands: list[CommandSpec] = []
        self.notifications: list[tuple[NotifyLevel, str]] = []
        self.status: dict[str, str] = {}
        self.displayed: list[DisplayMessage] = []
        self.reload_requests = 0
        self.user_messages: list[str] = []
        self.tool_updates: list[tuple[str, str, Any]] = []
        self._user_message = asyncio.Event()
        self._ids = itertools.count(1)
        self.session = self._new_session()
        self.sessions: dict[str, _Session] = {self.session.session_id: self.session}
        self.runtime = Runtime(
            self,
            agent_dir=agent_dir,
            clock=clock,
            trace_path=trace_path,
            features=features,
            child_backend=child_backend,
        )

    def _new_session(self, origin: str | None = None) -> _Session:
        n = next(self._ids)
        sid = f"sim-session-{n}"
        return _Session(
            sid, str(self.agent_dir / "sessions" / f"{sid}.jsonl"), origin_session_id=origin
        )

    async def __aenter__(self) -> SimHost:
        await self.runtime.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.runtime.__aexit__(exc_type, exc, tb)

    # -- HostPort (requests from the runtime) -----------------------------------------
    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        self.tools = list(tools)

    async def register_commands(self, commands: Sequence[CommandSpec]) -> None:
        self.commands = list(commands)

    async def append_entry(self, custom_type: str, data: Any) -> None:
        entry_id = f"e{next(self._ids)}"
        self.session.branch.append(
            CustomEntry(custom_type=custom_type, data=data, entry_id=entry_id)
        )

    async def branch_entries(self) -> Sequence[CustomEntry]:
        return tuple(self.session.branch)

    async def notify(self, text: str, level: NotifyLevel = "info") -> None:
        self.notifications.append((level, text))

    async def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.status.pop(key, None)
        else:
            self.status[key] = text

    async def display(self, message: DisplayMessage) -> None:
        self.displayed.append(message)

    async def request_reload(self) -> None:
        self.reload_requests += 1

    async def tool_update(self, call_id: str, text: str, details: Any = None) -> None:
        """Recorded in order: what Pi would show as the call's partial results."""
        self.tool_updates.append((call_id, text, details))

    async def send_user_message(self, text: str) -> None:
        """Recorded; a test runs the turn with ``await host.turn(text)`` when it wants it."""
        self.user_messages.append(text)
        self._user_message.set()

    async def next_user_message(self) -> str:
        """Wait for a user message the runtime sends later (detached work), and return it."""
        await self._user_message.wait()
        self._user_message.clear()
        return self.user_messages[-1]

    # -- session verbs (events into the runtime) --------------------------------------
    async def start(self, reason: SessionStartReason = "startup") -> None:
        """Start the session: ``new`` replaces it, ``fork`` copies the branch, others keep it."""
        if reason == "new":
            self.session = self._new_session()
        elif reason == "fork":
            forked = self._new_session(
                origin=self.session.origin_session_id or self.session.session_id
            )
            forked.branch = list(self.session.branch)
            self.session = forked
        self.sessions[self.session.session_id] = self.session
        await self.runtime.event(
            SessionStart(
                reason=reason,
                session_id=self.session.session_id,
                session_file=self.session.session_file,
                session_manager="sim",
                cwd=str(self.cwd),
                entries=tuple(self.session.branch),
                model=self.model,
                origin_session_id=self.session.origin_session_id,
            )
        )

    async def turn(
        self,
        prompt: str,
        *,
        source: InputSource = "interactive",
        usage: Usage | None = None,
        final_text: str | None = "ok",
    ) -> Turn:
        """One whole turn: input → before_agent_start → agent_start → agent_end → settled."""
        await self.runtime.event(Input(text=prompt, source=source))
        injection = await self.runtime.event(
            BeforeAgentStart(prompt=prompt, system_prompt=self.base_system_prompt)
        )
        assert injection is not None
        await self.runtime.event(AgentStart())
        await self.runtime.event(AgentEnd(final_text=final_text))
        await self.runtime.event(AgentSettled(usage=usage or Usage(input_tokens=1000)))
        system = "\n\n".join((self.base_system_prompt, *injection.sections))
        return Turn(prompt=prompt, injection=injection, system_prompt=system)

    async def custom_message(self, custom_type: str, text: str) -> None:
        """Another extension's ``pi.sendMessage({customType, content})`` reached the model.

        Forwarded like Pi's bridge does, as input marked with its custom type; only the
        reserved ``pi-persona-deferred-input`` counts as the user's own words (M-TRUST-2).
        """
        await self.runtime.event(Input(text=text, source="extension", custom_type=custom_type))

    async def tool_end(
        self,
        call_id: str,
        tool_name: str,
        text: str,
        *,
        parent: str | None = None,
        is_error: bool = False,
    ) -> None:
        """A tool call finished (``parent``: the call that made it, Pi's ``parentToolCallId``)."""
        await self.runtime.event(
            ToolExecutionEnd(
                tool_call_id=call_id,
                tool_name=tool_name,
                parent_tool_call_id=parent,
                is_error=is_error,
                text=text,
            )
        )

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """The model calls one of the runtime's tools."""
        return await self.runtime.tool(
            ToolCall(call_id=f"call-{next(self._ids)}", name=name, arguments=arguments)
        )

    async def command(self, line: str) -> CommandResult:
        """The user runs ``/name args``; a reload request is honoured like Pi would."""
        name, _, args = line.removeprefix("/").partition(" ")
        result = await self.runtime.command(CommandCall(name=name, args=args.strip()))
        if result.reload:
            await self.start("reload")
        return result

    async def select_model(self, model: str) -> None:
        self.model = model
        await self.runtime.event(ModelSelect(model=model))

    async def move_branch(self, keep: int) -> None:
        """Move to an earlier point of the tree: the active branch keeps ``keep`` entries."""
        self.session.branch = self.session.branch[:keep]
        await self.runtime.event(SessionTree(entries=tuple(self.session.branch)))

    async def shutdown(self, reason: str = "quit") -> None:
        await self.runtime.event(SessionShutdown(reason=reason))
