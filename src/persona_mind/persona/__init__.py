"""Persona: global pack store, resolver, session binding, active persona, chat plans.

Host-neutral and actor-free. The Owner actor holds one :class:`PersonaService` and calls
it per host event, slash command and tool call; the child runner gets a session's
:class:`TeamSnapshot` from :meth:`PersonaService.team_snapshot` (or :func:`resolve_team`),
as a ``ChildTeam`` resolved against the host's :class:`HostState` by
:func:`team_from_snapshot`. The ``persona_consult`` and round-table rules (checks, prompts,
selection, synthesis check, provenance) are Persona's too; the features run them on actors.
See ``docs/persona.md``.
"""

from __future__ import annotations

from persona_mind.persona._commands import HELP, PACK_VERBS, command_plan_needs, run_command
from persona_mind.persona._doctor import Finding, backend_problem, doctor
from persona_mind.persona._errors import (
    AmbiguousPackName,
    DraftConflict,
    MigrationRequired,
    PackInvalid,
    PackNotFound,
    PackStoreBusy,
    PersonaNotFound,
    PersonaUnavailable,
    PlanRefused,
    Problem,
    StaleCommand,
    UnsafeWorkspacePath,
    UpdateRefused,
)
from persona_mind.persona._resolver import ResolvedPersona, Resolver, identity_of
from persona_mind.persona._service import PersonaService
from persona_mind.persona._tour import persona_tour
from persona_mind.persona.binding._session import (
    ACTIVE_ENTRY,
    RESERVED_COMMANDS,
    ActivePersona,
    PersonaSession,
    SessionContext,
    SessionState,
    TeamScope,
)
from persona_mind.persona.binding._team import TeamMember, TeamSnapshot, resolve_team
from persona_mind.persona.binding._team_binding import BindingRecord, Bindings, session_key
from persona_mind.persona.children._consult import CONSULT_DEADLINE, ConsultResult, render_consult
from persona_mind.persona.children._launch import HostState
from persona_mind.persona.children._team import team_from_snapshot
from persona_mind.persona.packs._model import Pack, PackManifest, PersonaDef
from persona_mind.persona.packs._scan import Limits
from persona_mind.persona.packs._state import StoreStateCorrupt, state_problem
from persona_mind.persona.packs._store import CATALOG_DIR, PackStore, default_agent_dir
from persona_mind.persona.packs._validate import load_pack
from persona_mind.persona.plans._change import Change
from persona_mind.persona.plans._chat import (
    LocalPlans,
    OwnerPlans,
    Plan,
    PlanBook,
    PlanDesk,
    PlanNeed,
)
from persona_mind.persona.plans._ops import CHANGES, READ_ONLY, prepare, read
from persona_mind.persona.plans._outcome import CommandOutcome, Effects, ToolOutcome
from persona_mind.persona.plans._tool import (
    PERSONA_PACK_TOOL,
    run_handoff,
    run_tool,
    tool_plan_needs,
)
from persona_mind.persona.workspace._files import Workspace
from persona_mind.persona.workspace._migrate import (
    MigrationStatus,
    migration_status,
    receipt_problem,
)

__all__ = (
    "ACTIVE_ENTRY",
    "CATALOG_DIR",
    "CHANGES",
    "CONSULT_DEADLINE",
    "HELP",
    "PACK_VERBS",
    "PERSONA_PACK_TOOL",
    "READ_ONLY",
    "RESERVED_COMMANDS",
    "ActivePersona",
    "AmbiguousPackName",
    "BindingRecord",
    "Bindings",
    "Change",
    "CommandOutcome",
    "ConsultResult",
    "DraftConflict",
    "Effects",
    "Finding",
    "HostState",
    "Limits",
    "LocalPlans",
    "MigrationRequired",
    "MigrationStatus",
    "OwnerPlans",
    "Pack",
    "PackInvalid",
    "PackManifest",
    "PackNotFound",
    "PackStore",
    "PackStoreBusy",
    "PersonaDef",
    "PersonaNotFound",
    "PersonaService",
    "PersonaSession",
    "PersonaUnavailable",
    "Plan",
    "PlanBook",
    "PlanDesk",
    "PlanNeed",
    "PlanRefused",
    "Problem",
    "ResolvedPersona",
    "Resolver",
    "SessionContext",
    "SessionState",
    "StaleCommand",
    "StoreStateCorrupt",
    "TeamMember",
    "TeamScope",
    "TeamSnapshot",
    "ToolOutcome",
    "UnsafeWorkspacePath",
    "UpdateRefused",
    "Workspace",
    "backend_problem",
    "command_plan_needs",
    "default_agent_dir",
    "doctor",
    "identity_of",
    "load_pack",
    "migration_status",
    "persona_tour",
    "prepare",
    "read",
    "receipt_problem",
    "render_consult",
    "resolve_team",
    "run_command",
    "run_handoff",
    "run_tool",
    "session_key",
    "state_problem",
    "team_from_snapshot",
    "tool_plan_needs",
)
