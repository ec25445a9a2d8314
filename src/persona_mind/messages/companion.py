"""The Companion's protocol: host events, tool calls, commands, owner broadcasts, and the
questions facades and faces ask it instead of touching its features."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.messages._base import Ask
from persona_mind.messages.host import (
    CommandCall,
    CommandSpec,
    HostEvent,
    ToolCall,
    ToolSpec,
)
from persona_mind.messages.owner import OwnerChanged

if TYPE_CHECKING:  # a value of messages/ (not loaded at start-up: only GetTeam names it)
    from persona_mind.messages.team import TeamSnapshot  # noqa: F401 - named in Ask["…"]

__all__ = ("CompanionMsg", "Describe", "FeatureReport", "GetTeam", "InspectFeatures")


class Describe(Ask[tuple[list[ToolSpec], list[CommandSpec]]], frozen=True, kw_only=True):
    """Ask for the tool and command specs currently offered to the host."""


class GetTeam(Ask["TeamSnapshot | None"], frozen=True, kw_only=True):
    """The session's team snapshot as the Persona half retained it (``None``: no team or no
    session). ``persona_mind.Team`` and the MCP server's team tools ask this."""


class FeatureReport(msgspec.Struct, frozen=True, kw_only=True):
    """What one feature says of itself: a value, never the feature object."""

    name: str
    serial: int
    """Which build of the feature this is: a restarted Companion's features are new ones,
    with new serials."""
    details: dict[str, Any] = msgspec.field(default_factory=dict)


class InspectFeatures(Ask[tuple[FeatureReport, ...]], frozen=True, kw_only=True):
    """Each feature's report, in the Companion's order (diagnostics and tests)."""


CompanionMsg = (
    HostEvent | ToolCall | CommandCall | OwnerChanged | Describe | GetTeam | InspectFeatures
)
