"""The Companion's protocol: host events, tool calls, commands and owner broadcasts."""

from __future__ import annotations

from persona_mind.messages._base import Ask
from persona_mind.messages.host import (
    AgentEnd,
    AgentSettled,
    AgentStart,
    BeforeAgentStart,
    CommandCall,
    CommandSpec,
    Input,
    ModelSelect,
    SessionShutdown,
    SessionStart,
    SessionTree,
    ToolCall,
    ToolExecutionEnd,
    ToolSpec,
)
from persona_mind.messages.owner import OwnerChanged

__all__ = ("CompanionMsg", "Describe")


class Describe(Ask[tuple[list[ToolSpec], list[CommandSpec]]], frozen=True, kw_only=True):
    """Ask for the tool and command specs currently offered to the host."""


CompanionMsg = (
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
    | ToolCall
    | CommandCall
    | OwnerChanged
    | Describe
)
