"""The sidecar protocol's frames and method params (see ``persona_mind.messages.bridge``)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

from persona_mind.messages.host import (
    CommandCall,
    CommandSpec,
    CustomEntry,
    DisplayMessage,
    HostEvent,
    NotifyLevel,
    ToolCall,
    ToolSpec,
)

__all__ = (
    "MAX_FRAME_BYTES",
    "MAX_ID",
    "MAX_NESTING",
    "PROTOCOL_VERSION",
    "AnyFrame",
    "AppendEntryParams",
    "BranchEntriesResult",
    "CancelParams",
    "CommandParams",
    "DisplayParams",
    "ErrorBody",
    "ErrorCode",
    "ErrorFrame",
    "EventParams",
    "ExtensionMethod",
    "Frame",
    "FrameId",
    "Hello",
    "Notify",
    "NotifyParams",
    "Ready",
    "RegisterCommandsParams",
    "RegisterToolsParams",
    "Request",
    "Response",
    "SendUserMessageParams",
    "SetStatusParams",
    "SidecarMethod",
    "ToolParams",
    "ToolUpdateParams",
)

#: Bumped only for breaking changes; both sides refuse a different version at ``hello``.
PROTOCOL_VERSION: Final = 1
#: The largest frame (one line, without its LF) either side accepts: 16 MiB, like store files.
MAX_FRAME_BYTES: Final = 16 * 1024 * 1024
#: The deepest nesting of arrays/objects a frame may have. Our frames need a handful of
#: levels; a bound far below the interpreter's recursion limit means a hostile frame gets a
#: ``too_deep`` error instead of a ``RecursionError`` inside the reader (issue 15, item 7).
MAX_NESTING: Final = 128
#: The largest id a frame may carry: 2^53 - 1, the last integer a JavaScript number holds
#: exactly. A larger id would be rounded by the extension and could answer another request,
#: so such a frame is refused without echoing it.
MAX_ID: Final = 2**53 - 1

FrameId = Annotated[int, msgspec.Meta(ge=-MAX_ID, le=MAX_ID)]
"""An integer id both sides represent exactly."""

ErrorCode = Literal[
    "malformed",  # not JSON, not an object, or fields of the wrong type
    "oversized",  # a line longer than MAX_FRAME_BYTES (it was skipped up to its LF)
    "unknown_type",  # a ``type`` this version does not know
    "unknown_method",  # a request/notify method this side does not serve
    "bad_params",  # params that do not decode into the method's type
    "protocol_version",  # hello with another PROTOCOL_VERSION
    "not_ready",  # a request before the handshake finished
    "failed",  # the handler raised; ``message`` says what and what to do
    "timeout",  # the peer did not answer in time
    "shutting_down",  # the sidecar is stopping and took no new work
    "cancelled",  # the caller cancelled the request
    "too_deep",  # arrays/objects nested deeper than MAX_NESTING
    "duplicate_id",  # a request reused the id of one still in flight
    "busy",  # too many bytes of events queued; this one was refused, not applied
]

#: Requests and notifications the sidecar serves (sent by the extension).
SidecarMethod = Literal["event", "tool", "command", "cancel", "ping", "shutdown"]
#: Requests the extension serves (sent by the sidecar; the HostPort).
ExtensionMethod = Literal[
    "register_tools",
    "register_commands",
    "append_entry",
    "branch_entries",
    "notify",
    "set_status",
    "display",
    "reload",
]


class Frame(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every frame; ``type`` is the tag."""


class Hello(Frame, frozen=True, kw_only=True, tag="hello"):
    """Extension → sidecar, first frame: who is calling and which protocol it speaks."""

    protocol: int
    client: str = "pi-extension"
    host_version: str | None = None
    agent_dir: str | None = None
    cwd: str | None = None
    #: argv that starts the host's own Pi (node + cli.js): children (consults, round-table
    #: legs) run exactly this Pi; ``None`` leaves the runtime without a child backend.
    pi_command: tuple[str, ...] | None = None


class Ready(Frame, frozen=True, kw_only=True, tag="ready"):
    """Sidecar → extension: the runtime is up; these are its tools and commands."""

    protocol: int
    pid: int
    tools: tuple[ToolSpec, ...] = ()
    commands: tuple[CommandSpec, ...] = ()
    runtime: str = ""
    startup_ms: float | None = None


class Request(Frame, frozen=True, kw_only=True, tag="request"):
    """A call that gets exactly one :class:`Response` with the same ``id``."""

    id: FrameId
    method: str
    params: msgspec.Raw = msgspec.Raw(b"null")


class ErrorBody(msgspec.Struct, frozen=True, kw_only=True):
    """Why a request failed: a code from :data:`ErrorCode` and a message saying what to do."""

    code: str
    message: str


class Response(Frame, frozen=True, kw_only=True, tag="response"):
    """The answer to the peer's request ``id``: ``result`` or ``error``."""

    id: FrameId
    result: msgspec.Raw = msgspec.Raw(b"null")
    error: ErrorBody | None = None


class Notify(Frame, frozen=True, kw_only=True, tag="notify"):
    """A one-way message; never answered (errors come back as :class:`ErrorFrame`)."""

    method: str
    params: msgspec.Raw = msgspec.Raw(b"null")


class ErrorFrame(Frame, frozen=True, kw_only=True, tag="error"):
    """Protocol trouble not tied to an answerable request (a malformed line, say)."""

    code: str
    message: str
    id: FrameId | None = None


AnyFrame = Hello | Ready | Request | Response | Notify | ErrorFrame


# -- params of the sidecar's methods -------------------------------------------------------
class EventParams(msgspec.Struct, frozen=True, kw_only=True):
    """``event``: one host event (request: answered with PromptInjection|null; or notify)."""

    event: HostEvent


class CancelParams(msgspec.Struct, frozen=True, kw_only=True):
    """``cancel`` (notify): the extension gave up on its request ``id`` (tool aborted)."""

    id: FrameId


ToolParams = ToolCall
CommandParams = CommandCall


# -- params of the extension's methods (the HostPort) -------------------------------------
class RegisterToolsParams(msgspec.Struct, frozen=True, kw_only=True):
    tools: tuple[ToolSpec, ...]


class RegisterCommandsParams(msgspec.Struct, frozen=True, kw_only=True):
    commands: tuple[CommandSpec, ...]


class AppendEntryParams(msgspec.Struct, frozen=True, kw_only=True):
    custom_type: str
    data: Any


class BranchEntriesResult(msgspec.Struct, frozen=True, kw_only=True):
    entries: tuple[CustomEntry, ...] = ()


class NotifyParams(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    level: NotifyLevel = "info"


class SetStatusParams(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    text: str | None = None


class DisplayParams(msgspec.Struct, frozen=True, kw_only=True):
    message: DisplayMessage


class SendUserMessageParams(msgspec.Struct, frozen=True, kw_only=True):
    text: str


class ToolUpdateParams(msgspec.Struct, frozen=True, kw_only=True):
    """``tool_update``: progress of the runtime's tool call ``call_id`` (Pi's ``onUpdate``)."""

    call_id: str
    text: str
    details: Any = None
