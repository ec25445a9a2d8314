"""Mind: scoped memory, backlog, session notes, capture, injection and reminders.

Host-neutral, actor-free domain code and services (seed 000 minus consolidation).  Actors
own these objects; persistence goes only through :class:`persona_mind.storage.port.StorePort`.
See ``docs/mind.md`` for every choice and departure.

Every name is imported on first use (``__getattr__``): any ``persona_mind.mind.*`` import
runs this module first, and importing the names eagerly would compile the unsafe-content
scanner's rule tables (``trust/``, about half a second of CPU) wherever that happens — on
the event loop when an actor's handler imports a light module such as ``mind._model``
(docs/performance.md, "What is imported where").  The names are imported for the type
checker under ``TYPE_CHECKING``, so the layer contracts see them as before.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing alone costs more than the rest here
if TYPE_CHECKING:
    from typing import Any

    from persona_mind.messages.memory import Origin as Origin
    from persona_mind.messages.memory import origin_label as origin_label
    from persona_mind.mind._cards import Card as Card
    from persona_mind.mind._cards import backlog_line as backlog_line
    from persona_mind.mind._cards import fact_line as fact_line
    from persona_mind.mind._cards import sanitize as sanitize
    from persona_mind.mind._commands import COMMAND_NAMES as COMMAND_NAMES
    from persona_mind.mind._commands import MindCommandContext as MindCommandContext
    from persona_mind.mind._commands import command_specs as command_specs
    from persona_mind.mind._commands import handle_mind_command as handle_mind_command
    from persona_mind.mind._deadline import with_deadline as with_deadline
    from persona_mind.mind._errors import AccessRefused as AccessRefused
    from persona_mind.mind._errors import ForeignOwner as ForeignOwner
    from persona_mind.mind._errors import InvalidArgument as InvalidArgument
    from persona_mind.mind._errors import LimitExceeded as LimitExceeded
    from persona_mind.mind._errors import MindRefusal as MindRefusal
    from persona_mind.mind._errors import NotFound as NotFound
    from persona_mind.mind._errors import UnknownVersion as UnknownVersion
    from persona_mind.mind._errors import UnsafeContent as UnsafeContent
    from persona_mind.mind._links import ProjectRecord as ProjectRecord
    from persona_mind.mind._model import KINDS as KINDS
    from persona_mind.mind._model import STM_TTL as STM_TTL
    from persona_mind.mind._model import BacklogItem as BacklogItem
    from persona_mind.mind._model import Fact as Fact
    from persona_mind.mind._model import Kind as Kind
    from persona_mind.mind._model import Tier as Tier
    from persona_mind.mind._model import content_identity as content_identity
    from persona_mind.mind._repo_identity import RepoIdentity as RepoIdentity
    from persona_mind.mind._repo_identity import normalise_remote as normalise_remote
    from persona_mind.mind._scope import MindScope as MindScope
    from persona_mind.mind._scope import ProjectRef as ProjectRef
    from persona_mind.mind._scope import find_project as find_project
    from persona_mind.mind._service import FoundFact as FoundFact
    from persona_mind.mind._service import MemoryService as MemoryService
    from persona_mind.mind._service import Recalled as Recalled
    from persona_mind.mind._session import DEFERRED_INPUT_TYPE as DEFERRED_INPUT_TYPE
    from persona_mind.mind._session import INJECTION_DEADLINE as INJECTION_DEADLINE
    from persona_mind.mind._session import CompanionAnswer as CompanionAnswer
    from persona_mind.mind._session import InputOutcome as InputOutcome
    from persona_mind.mind._session import MindSession as MindSession
    from persona_mind.mind._session import companion_refusal as companion_refusal
    from persona_mind.mind._session import is_leg as is_leg
    from persona_mind.mind._settings import MindSettings as MindSettings
    from persona_mind.mind._settings import load_persona_settings as load_persona_settings
    from persona_mind.mind._tool_specs import BACKLOG_TOOL as BACKLOG_TOOL
    from persona_mind.mind._tool_specs import MEMORY_TOOL as MEMORY_TOOL
    from persona_mind.mind._tool_specs import tool_specs as tool_specs
    from persona_mind.mind._tools import MindTools as MindTools
    from persona_mind.mind.backlog._reminder import ReminderBook as ReminderBook
    from persona_mind.mind.backlog._reminder import reminder_card as reminder_card
    from persona_mind.mind.backlog._rules import MAX_BACKLOG_TEXT as MAX_BACKLOG_TEXT
    from persona_mind.mind.backlog._rules import MAX_TERMINAL as MAX_TERMINAL
    from persona_mind.mind.capture._cues import CASUAL_CUES as CASUAL_CUES
    from persona_mind.mind.capture._cues import STRONG_CUES as STRONG_CUES
    from persona_mind.mind.capture._cues import CaptureDecision as CaptureDecision
    from persona_mind.mind.capture._cues import CaptureMode as CaptureMode
    from persona_mind.mind.capture._cues import decide_capture as decide_capture
    from persona_mind.mind.capture._cues import direct_user_text as direct_user_text
    from persona_mind.mind.capture._relay import RelayTracker as RelayTracker
    from persona_mind.mind.capture._relay import Suggestion as Suggestion
    from persona_mind.mind.facts._rules import MAX_TEXT_CHARS as MAX_TEXT_CHARS
    from persona_mind.mind.facts._rules import Draft as Draft
    from persona_mind.mind.facts._rules import validate_draft as validate_draft
    from persona_mind.mind.facts._updates import update_offer as update_offer
    from persona_mind.mind.facts._where import TIER_NAMES as TIER_NAMES
    from persona_mind.mind.facts._where import iso_time as iso_time
    from persona_mind.mind.facts._where import where_saved as where_saved
    from persona_mind.mind.inject._explain import Explanation as Explanation
    from persona_mind.mind.inject._explain import explain_plan as explain_plan
    from persona_mind.mind.inject._explain import render as render_explanation
    from persona_mind.mind.inject._planner import InjectionInput as InjectionInput
    from persona_mind.mind.inject._planner import InjectionPlan as InjectionPlan
    from persona_mind.mind.inject._planner import NoteView as NoteView
    from persona_mind.mind.inject._planner import plan_injection as plan_injection
    from persona_mind.mind.migrate._legacy import ImportReport as ImportReport
    from persona_mind.mind.migrate._legacy import ImportStamp as ImportStamp
    from persona_mind.mind.migrate._legacy import LegacyImport as LegacyImport
    from persona_mind.mind.notes._ledger import NOTE_ENTRY_TYPE as NOTE_ENTRY_TYPE
    from persona_mind.mind.notes._ledger import NoteRecord as NoteRecord
    from persona_mind.mind.notes._ledger import NotesLedger as NotesLedger
    from persona_mind.mind.notes._ledger import NotesTally as NotesTally
    from persona_mind.mind.notes._ledger import OwnerKey as OwnerKey
    from persona_mind.mind.optimize._commands import applied_card as applied_card
    from persona_mind.mind.optimize._commands import history_card as history_card
    from persona_mind.mind.optimize._commands import inspection_card as inspection_card
    from persona_mind.mind.optimize._commands import plan_card as plan_card
    from persona_mind.mind.recall._retrieval import FactIndex as FactIndex
    from persona_mind.mind.trust._scanner import Finding as Finding
    from persona_mind.mind.trust._scanner import scan as scan

__all__ = (
    "BACKLOG_TOOL",
    "CASUAL_CUES",
    "COMMAND_NAMES",
    "DEFERRED_INPUT_TYPE",
    "INJECTION_DEADLINE",
    "KINDS",
    "MAX_BACKLOG_TEXT",
    "MAX_TERMINAL",
    "MAX_TEXT_CHARS",
    "MEMORY_TOOL",
    "NOTE_ENTRY_TYPE",
    "STM_TTL",
    "STRONG_CUES",
    "TIER_NAMES",
    "AccessRefused",
    "BacklogItem",
    "CaptureDecision",
    "CaptureMode",
    "Card",
    "CompanionAnswer",
    "Draft",
    "Explanation",
    "Fact",
    "FactIndex",
    "Finding",
    "ForeignOwner",
    "FoundFact",
    "ImportReport",
    "ImportStamp",
    "InjectionInput",
    "InjectionPlan",
    "InputOutcome",
    "InvalidArgument",
    "Kind",
    "LegacyImport",
    "LimitExceeded",
    "MemoryService",
    "MindCommandContext",
    "MindRefusal",
    "MindScope",
    "MindSession",
    "MindSettings",
    "MindTools",
    "NotFound",
    "NoteRecord",
    "NoteView",
    "NotesLedger",
    "NotesTally",
    "Origin",
    "OwnerKey",
    "ProjectRecord",
    "ProjectRef",
    "Recalled",
    "RelayTracker",
    "ReminderBook",
    "RepoIdentity",
    "Suggestion",
    "Tier",
    "UnknownVersion",
    "UnsafeContent",
    "applied_card",
    "backlog_line",
    "command_specs",
    "companion_refusal",
    "content_identity",
    "decide_capture",
    "direct_user_text",
    "explain_plan",
    "fact_line",
    "find_project",
    "handle_mind_command",
    "history_card",
    "inspection_card",
    "is_leg",
    "iso_time",
    "load_persona_settings",
    "normalise_remote",
    "origin_label",
    "plan_card",
    "plan_injection",
    "reminder_card",
    "render_explanation",
    "sanitize",
    "scan",
    "tool_specs",
    "update_offer",
    "validate_draft",
    "where_saved",
    "with_deadline",
)

_HOMES: dict[str, str | tuple[str, str]] = {
    "AccessRefused": "persona_mind.mind._errors",
    "BACKLOG_TOOL": "persona_mind.mind._tool_specs",
    "BacklogItem": "persona_mind.mind._model",
    "CASUAL_CUES": "persona_mind.mind.capture._cues",
    "COMMAND_NAMES": "persona_mind.mind._commands",
    "CaptureDecision": "persona_mind.mind.capture._cues",
    "CaptureMode": "persona_mind.mind.capture._cues",
    "Card": "persona_mind.mind._cards",
    "CompanionAnswer": "persona_mind.mind._session",
    "DEFERRED_INPUT_TYPE": "persona_mind.mind._session",
    "Draft": "persona_mind.mind.facts._rules",
    "Explanation": "persona_mind.mind.inject._explain",
    "Fact": "persona_mind.mind._model",
    "FactIndex": "persona_mind.mind.recall._retrieval",
    "Finding": "persona_mind.mind.trust._scanner",
    "ForeignOwner": "persona_mind.mind._errors",
    "FoundFact": "persona_mind.mind._service",
    "INJECTION_DEADLINE": "persona_mind.mind._session",
    "ImportReport": "persona_mind.mind.migrate._legacy",
    "ImportStamp": "persona_mind.mind.migrate._legacy",
    "InjectionInput": "persona_mind.mind.inject._planner",
    "InjectionPlan": "persona_mind.mind.inject._planner",
    "InputOutcome": "persona_mind.mind._session",
    "InvalidArgument": "persona_mind.mind._errors",
    "KINDS": "persona_mind.mind._model",
    "Kind": "persona_mind.mind._model",
    "LegacyImport": "persona_mind.mind.migrate._legacy",
    "LimitExceeded": "persona_mind.mind._errors",
    "MAX_BACKLOG_TEXT": "persona_mind.mind.backlog._rules",
    "MAX_TERMINAL": "persona_mind.mind.backlog._rules",
    "MAX_TEXT_CHARS": "persona_mind.mind.facts._rules",
    "MEMORY_TOOL": "persona_mind.mind._tool_specs",
    "MemoryService": "persona_mind.mind._service",
    "MindCommandContext": "persona_mind.mind._commands",
    "MindRefusal": "persona_mind.mind._errors",
    "MindScope": "persona_mind.mind._scope",
    "MindSession": "persona_mind.mind._session",
    "MindSettings": "persona_mind.mind._settings",
    "MindTools": "persona_mind.mind._tools",
    "NOTE_ENTRY_TYPE": "persona_mind.mind.notes._ledger",
    "NotFound": "persona_mind.mind._errors",
    "NoteRecord": "persona_mind.mind.notes._ledger",
    "NoteView": "persona_mind.mind.inject._planner",
    "NotesLedger": "persona_mind.mind.notes._ledger",
    "NotesTally": "persona_mind.mind.notes._ledger",
    "Origin": "persona_mind.messages.memory",
    "OwnerKey": "persona_mind.mind.notes._ledger",
    "ProjectRecord": "persona_mind.mind._links",
    "ProjectRef": "persona_mind.mind._scope",
    "Recalled": "persona_mind.mind._service",
    "RelayTracker": "persona_mind.mind.capture._relay",
    "ReminderBook": "persona_mind.mind.backlog._reminder",
    "RepoIdentity": "persona_mind.mind._repo_identity",
    "STM_TTL": "persona_mind.mind._model",
    "STRONG_CUES": "persona_mind.mind.capture._cues",
    "Suggestion": "persona_mind.mind.capture._relay",
    "TIER_NAMES": "persona_mind.mind.facts._where",
    "Tier": "persona_mind.mind._model",
    "UnknownVersion": "persona_mind.mind._errors",
    "UnsafeContent": "persona_mind.mind._errors",
    "applied_card": "persona_mind.mind.optimize._commands",
    "backlog_line": "persona_mind.mind._cards",
    "command_specs": "persona_mind.mind._commands",
    "companion_refusal": "persona_mind.mind._session",
    "content_identity": "persona_mind.mind._model",
    "decide_capture": "persona_mind.mind.capture._cues",
    "direct_user_text": "persona_mind.mind.capture._cues",
    "explain_plan": "persona_mind.mind.inject._explain",
    "fact_line": "persona_mind.mind._cards",
    "find_project": "persona_mind.mind._scope",
    "handle_mind_command": "persona_mind.mind._commands",
    "history_card": "persona_mind.mind.optimize._commands",
    "inspection_card": "persona_mind.mind.optimize._commands",
    "is_leg": "persona_mind.mind._session",
    "iso_time": "persona_mind.mind.facts._where",
    "load_persona_settings": "persona_mind.mind._settings",
    "normalise_remote": "persona_mind.mind._repo_identity",
    "origin_label": "persona_mind.messages.memory",
    "plan_card": "persona_mind.mind.optimize._commands",
    "plan_injection": "persona_mind.mind.inject._planner",
    "reminder_card": "persona_mind.mind.backlog._reminder",
    "render_explanation": ("persona_mind.mind.inject._explain", "render"),
    "sanitize": "persona_mind.mind._cards",
    "scan": "persona_mind.mind.trust._scanner",
    "tool_specs": "persona_mind.mind._tool_specs",
    "update_offer": "persona_mind.mind.facts._updates",
    "validate_draft": "persona_mind.mind.facts._rules",
    "where_saved": "persona_mind.mind.facts._where",
    "with_deadline": "persona_mind.mind._deadline",
}
"""Each public name's private home (a pair where the name there differs)."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'persona_mind.mind' has no attribute {name!r}")
    module, attr = (home, name) if isinstance(home, str) else home
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
