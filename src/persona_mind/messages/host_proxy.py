"""The HostProxy actor's protocol: what the runtime asks of its host, as messages.

Every request the runtime makes of its host (Pi through the sidecar, or the simulated
host) is a message to the HostProxy, which performs them one at a time, in the order
they were sent. Requests whose answer nobody needs are told (the sender moves on at once);
:class:`BranchEntries` and :class:`Flush` are asked.
"""

from __future__ import annotations

from typing import Any

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.host import (
    CommandSpec,
    CustomEntry,
    DisplayMessage,
    NotifyLevel,
    ToolSpec,
)

__all__ = (
    "AppendEntry",
    "BranchEntries",
    "Display",
    "Flush",
    "HostDone",
    "HostProxyMsg",
    "HostRequest",
    "Notify",
    "RegisterCommands",
    "RegisterTools",
    "RequestReload",
    "SendUserMessage",
    "SetStatus",
    "ToolUpdate",
)


class RegisterTools(Msg, frozen=True, kw_only=True):
    tools: tuple[ToolSpec, ...]


class RegisterCommands(Msg, frozen=True, kw_only=True):
    commands: tuple[CommandSpec, ...]


class AppendEntry(Msg, frozen=True, kw_only=True):
    custom_type: str
    data: Any


class Notify(Msg, frozen=True, kw_only=True):
    text: str
    level: NotifyLevel = "info"


class SetStatus(Msg, frozen=True, kw_only=True):
    key: str
    text: str | None


class Display(Msg, frozen=True, kw_only=True):
    message: DisplayMessage


class SendUserMessage(Msg, frozen=True, kw_only=True):
    text: str


class ToolUpdate(Msg, frozen=True, kw_only=True):
    """Progress of a tool call in flight (a partial result; never its answer)."""

    call_id: str
    text: str
    details: Any = None


class RequestReload(Msg, frozen=True, kw_only=True):
    pass


class BranchEntries(Ask[tuple[CustomEntry, ...]], frozen=True, kw_only=True):
    """The custom entries on the active branch (after every request sent before it)."""


class Flush(Ask[None], frozen=True, kw_only=True):
    """Answered once every request sent before it has been performed."""


class HostDone(Msg, frozen=True, kw_only=True):
    """Internal: the host answered the request in flight (``outcome`` from the kernel)."""

    outcome: Any


HostRequest = (
    RegisterTools
    | RegisterCommands
    | AppendEntry
    | Notify
    | SetStatus
    | Display
    | SendUserMessage
    | ToolUpdate
    | RequestReload
    | BranchEntries
)
HostProxyMsg = HostRequest | Flush | HostDone
