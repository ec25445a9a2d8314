"""The host port's vocabulary: events the host sends in, and what the runtime asks of it.

Two adapters speak it: the simulated host (``persona_mind.sim.SimHost``) and the Pi
bridge (``pi-extension/`` + ``persona_mind.bridge.sidecar``). Everything here is a plain
typed value so it can cross the sidecar pipe as JSON unchanged (msgspec, tagged unions).

Events in (host → runtime) are :data:`HostEvent`; calls in are :class:`ToolCall` and
:class:`CommandCall`; the runtime's requests out go through the
:class:`~persona_mind.host.HostPort` protocol and use the specs below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from persona_mind.messages._base import Ask
from persona_mind.messages.child import ChildUsage

if TYPE_CHECKING:
    from persona_mind.messages.owner import OwnerState  # noqa: F401 - named in Ask["OwnerState"]

__all__ = (
    "DEFERRED_INPUT_TYPE",
    "MAX_TOOL_TEXT",
    "AgentEnd",
    "AgentSettled",
    "AgentStart",
    "BeforeAgentStart",
    "CommandCall",
    "CommandResult",
    "CommandSpec",
    "CustomEntry",
    "DisplayMessage",
    "HostEvent",
    "Input",
    "InputSource",
    "ModelSelect",
    "NotifyLevel",
    "PromptInjection",
    "SessionShutdown",
    "SessionStart",
    "SessionStartReason",
    "SessionTree",
    "ToolCall",
    "ToolExecutionEnd",
    "ToolResult",
    "ToolSpec",
    "Usage",
)

SessionStartReason = Literal["startup", "reload", "new", "resume", "fork"]
InputSource = Literal["interactive", "rpc", "extension"]
NotifyLevel = Literal["info", "warning", "error"]

DEFERRED_INPUT_TYPE = "pi-persona-deferred-input"
"""The one custom message type that replays direct user input (M-TRUST-2): a trusted
extension that held the user's own words back (a queued prompt, a confirmation dialog)
sends them later as ``pi.sendMessage({customType: DEFERRED_INPUT_TYPE, ...})``. It is a
convention between cooperating extensions, not authentication (M-TRUST-3)."""
MAX_TOOL_TEXT = 8000
"""Characters of a tool result's text the host forwards in :class:`ToolExecutionEnd`; the
host clips longer results (and says so with ``truncated``); a longer ``text`` is a decode
error, never silently cut here."""


class CustomEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A host session custom entry on the active branch (session notes live in these)."""

    custom_type: str
    data: Any
    entry_id: str | None = None


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    """Provider token usage of one main-session turn (worker tokens never arrive here)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class SessionStart(Ask["OwnerState"], frozen=True, kw_only=True):
    """A session began, was reloaded, replaced (new), resumed or forked."""

    reason: SessionStartReason
    session_id: str
    session_file: str | None = None
    session_manager: str = "pi"
    cwd: str
    entries: tuple[CustomEntry, ...] = ()
    model: str | None = None
    has_ui: bool = False
    origin_session_id: str | None = None
    other_commands: tuple[str, ...] = ()
    """Slash commands other extensions registered (Pi's ``getCommands()`` minus ours):
    persona aliases never shadow them (P-ACTIVE-5)."""
    skills: tuple[tuple[str, str], ...] | None = None
    """Skills loaded in this Pi as (name, file or directory); ``None``: not reported.
    A persona's declared skills are resolved against them at child launch (P-CHILD-13)."""
    models: tuple[str, ...] | None = None
    """Available ``provider/id`` models; ``None``: not reported (P-CHILD-13)."""


class Input(Ask[None], frozen=True, kw_only=True):
    """Text entered before the agent starts; ``source`` tells the user from automation."""

    text: str
    source: InputSource = "interactive"
    custom_type: str | None = None
    """Set when the text came as a host *custom message* (not typed input): its custom type.
    Only :data:`DEFERRED_INPUT_TYPE` replays direct user input (M-TRUST-2); any other type
    is foreign material like ``source="extension"`` text (M-TRUST-1)."""

    @property
    def deferred(self) -> bool:
        """True only for the reserved deferred-input replay (M-TRUST-2)."""
        return self.custom_type == DEFERRED_INPUT_TYPE


class BeforeAgentStart(Ask["PromptInjection"], frozen=True, kw_only=True):
    """The agent is about to run on ``prompt``; the reply is a :class:`PromptInjection`."""

    prompt: str
    system_prompt: str = ""


class AgentStart(Ask[None], frozen=True, kw_only=True):
    """The agent run started."""


class AgentEnd(Ask[None], frozen=True, kw_only=True):
    """The agent run ended (its final text, when the host knows it)."""

    final_text: str | None = None


class AgentSettled(Ask[None], frozen=True, kw_only=True):
    """The host is idle after a run; carries the main session's usage for the turn."""

    usage: Usage | None = None


class ToolExecutionEnd(Ask[None], frozen=True, kw_only=True):
    """A tool call finished in the host, the model's own or one a tool made (M-CAPTURE-7..10).

    ``parent_tool_call_id`` is the host's own record of which call made this one (Pi's
    ``parentToolCallId``); ``None`` for a call the model issued. Provenance follows it only —
    ids are opaque, their syntax is never parsed (M-CAPTURE-7). ``text`` is the result's
    text content, at most :data:`MAX_TOOL_TEXT` characters (``truncated`` when the host
    clipped it). Worker output stays foreign material: it can suggest, never capture.
    """

    tool_call_id: str
    tool_name: str
    parent_tool_call_id: str | None = None
    is_error: bool = False
    text: Annotated[str, msgspec.Meta(max_length=MAX_TOOL_TEXT)] = ""
    truncated: bool = False


class SessionTree(Ask[None], frozen=True, kw_only=True):
    """The active branch moved; ``entries`` are the custom entries on the new branch."""

    entries: tuple[CustomEntry, ...] = ()
    leaf_id: str | None = None


class ModelSelect(Ask[None], frozen=True, kw_only=True):
    """The user selected a model (children use exactly this model)."""

    model: str


class SessionShutdown(Ask["OwnerState"], frozen=True, kw_only=True):
    """The session is ending; the runtime stops its actors."""

    reason: str = "quit"


HostEvent = (
    SessionStart
    | Input
    | BeforeAgentStart
    | AgentStart
    | AgentEnd
    | AgentSettled
    | SessionTree
    | ModelSelect
    | SessionShutdown
    | ToolExecutionEnd
)


class ToolCall(Ask["ToolResult"], frozen=True, kw_only=True):
    """The model called one of the runtime's tools."""

    call_id: str
    name: str
    arguments: dict[str, Any]


class ToolResult(msgspec.Struct, frozen=True, kw_only=True):
    """A tool's answer: compact ``text`` for the model, structured ``details`` for UIs.

    ``usage`` is what the tool spent on nested model calls (a consult's or a round-table's
    children): the Pi extension returns it as the tool result's ``usage``, which Pi adds
    to the parent session's totals (footer, ``/session``, ``get_session_stats``)."""

    text: str
    details: Any = None
    is_error: bool = False
    usage: ChildUsage | None = None


class CommandCall(Ask["CommandResult"], frozen=True, kw_only=True):
    """The user ran one of the runtime's slash commands (``args`` is the raw rest)."""

    name: str
    args: str = ""


class CommandResult(msgspec.Struct, frozen=True, kw_only=True):
    """What a command shows the user, and whether the host should reload afterwards."""

    text: str
    level: NotifyLevel = "info"
    reload: bool = False


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    """A tool the runtime declares: name, description, JSON Schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]
    label: str | None = None


class CommandSpec(msgspec.Struct, frozen=True, kw_only=True):
    """A slash command the runtime declares."""

    name: str
    description: str


class PromptInjection(msgspec.Struct, frozen=True, kw_only=True):
    """The reply to :class:`BeforeAgentStart`: sections appended to the system prompt."""

    sections: tuple[str, ...] = ()
    disclosures: tuple[str, ...] = ()


class DisplayMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A display-only message (a card or a reminder wake); never a user message."""

    kind: str
    title: str
    body: str
    details: Any = None
