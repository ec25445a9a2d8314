"""The feature port: how the Mind and Persona halves plug into the Companion.

The Companion actor builds every feature instance itself (each incarnation from the
runtime's factories and one :class:`~persona_mind.features.Ports` value) and is the only
thing that touches them, so a feature's state is only touched from the Companion's
mailbox — one message at a time, no locks — and no feature object leaves it. A feature
sees host events with the current :class:`~persona_mind.messages.owner.OwnerState`,
contributes system-prompt sections, and answers the tools and commands it declares. A slow
answer (a consult, a round-table) is returned as :class:`Background` work so the
Companion's mailbox keeps moving while it runs.

Features talk to each other only through the Companion: each is handed the Companion's
:class:`Peers` view, which the Companion answers by asking the features that offer the
matching hook (:class:`PersonaHalf`, :class:`SettingsSource`, :class:`LeanContext`). So
Mind learns the Persona half's companion:v1 answer, and Persona collects Mind's settings,
without either holding the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

import msgspec

if TYPE_CHECKING:
    from persona_mind.errors import PersonaMindError
    from persona_mind.messages.host import (
        CommandCall,
        CommandResult,
        CommandSpec,
        HostEvent,
        PromptInjection,
        SessionStart,
        ToolCall,
        ToolResult,
        ToolSpec,
    )
    from persona_mind.messages.memory import Origin
    from persona_mind.messages.owner import OwnerState
    from persona_mind.messages.team import TeamSnapshot
    from persona_mind.mind import MemoryService

__all__ = (
    "Background",
    "Feature",
    "LeanContext",
    "MemoryHalf",
    "Peers",
    "PersonaHalf",
    "PersonaStatus",
    "PersonaSubcommands",
    "Recovering",
    "Reporting",
    "SettingsSource",
    "StatusSource",
    "Subcommand",
    "UntrustedSink",
    "UntrustedText",
)

T = TypeVar("T")

UntrustedText = Callable[["Origin", str], None]
"""Records text that entered the session and the user did not type (the write policy's
taint ledger): ``sink("peer", answer)``."""
Subcommand = Callable[[str], Awaitable["CommandResult"]]
"""A handler of ``/persona <word> <rest>``: given ``rest``, the command's result."""


class Background(msgspec.Struct, Generic[T], frozen=True):
    """Answer later: ``work`` runs as the Companion's cancellable work under ``key``.

    With ``reply`` the call is answered *now* with it and ``work`` keeps running detached
    (it delivers its own result, e.g. a report card; its value is discarded). It is still
    the Companion's work, so an owner change cancels it and nothing stale is delivered.
    """

    key: str
    work: Callable[[], Awaitable[T]]
    reply: T | None = None


class Feature(Protocol):
    """One half of the product (Mind, Persona, children) as seen by the Companion."""

    name: str

    def tool_specs(self) -> Sequence[ToolSpec]:
        """Tools this feature offers now (may change with state, e.g. readiness)."""
        ...

    def command_specs(self) -> Sequence[CommandSpec]:
        """Slash commands this feature offers now."""
        ...

    async def on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        """React to a host event; for ``BeforeAgentStart`` return what to inject."""
        ...

    async def on_owner(self, owner: OwnerState) -> None:
        """The owner state changed (generation bump: session, persona, workspace)."""
        ...

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult | Background[ToolResult]:
        """Answer a call to one of this feature's tools."""
        ...

    async def command(
        self, call: CommandCall, owner: OwnerState
    ) -> CommandResult | Background[CommandResult]:
        """Answer one of this feature's commands."""
        ...


class PersonaStatus(msgspec.Struct, frozen=True):
    """The Persona half's live answer: companion:v1 (M-COMPANION-4/7) and what the children
    feature needs to offer consults (readiness, the active persona, a bad backend)."""

    provider: str
    version: tuple[int, ...]
    enabled: bool
    ready: bool
    active: str | None = None
    """The active persona's bare name, or ``None``."""
    backend_error: str | None = None
    """Why this session's child backend setting is invalid (P-CHILD-6/7)."""


class Peers(Protocol):
    """What a feature may ask of the other features, answered by the Companion.

    Call it only from inside a feature call (the Companion's mailbox), never from
    :class:`Background` work: the answers read the other features' state.
    """

    def persona_status(self) -> tuple[PersonaStatus, ...]:
        """Every Persona half's answer (none when no Persona feature runs)."""
        ...

    def settings(self) -> tuple[Mapping[str, Any] | PersonaMindError, ...]:
        """Every other feature's effective settings (settings:collect:v1, M-SCOPE-11); a
        contribution that failed is its error, in its place."""
        ...

    async def team(self) -> TeamSnapshot | None:
        """The session's team snapshot from the Persona half (``None``: no team)."""
        ...

    async def lean_injection(self, query: str) -> str:
        """Objective/LTM-only context for a delegated leg from the Mind half (M-LEG)."""
        ...

    def memory_service(self) -> MemoryService | None:
        """The Mind half's memory service for this session (``None``: Mind inactive)."""
        ...

    def untrusted_sink(self) -> UntrustedText:
        """Where a feature reports untrusted text it hands the session (a consult's or a
        round-table's whole answer) so model writes copying it are tainted.  Ask for it
        inside the feature call; the sink itself may be called from its Background work
        (it only records into the Mind half's current session; a no-op without Mind)."""
        ...

    async def status_lines(self) -> tuple[str, ...]:
        """Other features' lines for ``/persona status`` (the children's costs)."""
        ...

    def persona_subcommand(self, head: str) -> Subcommand | None:
        """A feature's answer to ``/persona <head> …`` (``decisions``: the children)."""
        ...


# -- the hooks a feature implements to answer its peers (checked once, at build) ---------
@runtime_checkable
class PersonaHalf(Protocol):
    """The Persona half: its status and its team."""

    def persona_status(self) -> PersonaStatus: ...

    async def team(self) -> TeamSnapshot | None: ...


@runtime_checkable
class SettingsSource(Protocol):
    """A feature with effective settings to contribute (settings:collect:v1)."""

    def settings_contribution(self) -> Mapping[str, Any]: ...


@runtime_checkable
class LeanContext(Protocol):
    """A feature that gives delegated legs their lean context (M-LEG)."""

    async def lean_injection(self, query: str) -> str: ...


@runtime_checkable
class MemoryHalf(Protocol):
    """The Mind half: the session's memory service, for features that write memory."""

    def memory_service(self) -> MemoryService | None: ...


@runtime_checkable
class UntrustedSink(Protocol):
    """The Mind half: the recorder of untrusted text for the session's taint ledger."""

    def untrusted_sink(self) -> UntrustedText: ...


@runtime_checkable
class StatusSource(Protocol):
    """A feature with a line for ``/persona status``."""

    async def status_line(self) -> str: ...


@runtime_checkable
class PersonaSubcommands(Protocol):
    """A feature that answers ``/persona <word> …`` subcommands of its own."""

    def persona_subcommands(self) -> Mapping[str, Subcommand]: ...


@runtime_checkable
class Recovering(Protocol):
    """A feature that resumes the Owner's session itself after a Companion restart."""

    async def recover(self, owner: OwnerState, start: SessionStart) -> None: ...


@runtime_checkable
class Reporting(Protocol):
    """A feature that says what it holds (``InspectFeatures``: diagnostics and tests)."""

    def details(self) -> Mapping[str, Any]: ...
