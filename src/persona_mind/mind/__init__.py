"""Mind: scoped memory, backlog, session notes, capture, injection and reminders.

Host-neutral, actor-free domain code and services (seed 000 minus consolidation).  Actors
own these objects; persistence goes only through :class:`persona_mind.storage.port.StorePort`.
See ``docs/mind.md`` for every choice and departure.
"""

from __future__ import annotations

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
