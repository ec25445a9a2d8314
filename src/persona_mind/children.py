"""Public facade of the child runner: one-shot children for consults, round-tables, workers.

Three backends implement :class:`ChildBackend`: :class:`PiBackend` (the real ``pi`` or the
fake one shipped in ``persona_mind.sim``), and ``persona_mind.testing.ScriptedModel``
(in-process). The :class:`~persona_mind.actors.child_runner.ChildRunner` actor supervises
them; :func:`consult` and the round-table coordinator build on it. See docs/children.md.

This facade gathers the library's child API from where each part lives: the process layer
here in ``runners/``, the consult and round-table rules in ``persona/``, the consult glue
and the tool/command declarations in ``features/``, and :func:`run_roundtable` beside the
coordinator it drives (``actors/roundtable.py``). A :class:`RoundtableResult` carries each
specialist's :class:`Position` (its stances, whether the decision adopted it) and the
children's :class:`ChildUsage`; :func:`decision_text` and :func:`dissent_line` render its
decision record and dissent line as a session records and shows them.
"""

from __future__ import annotations

from persona_mind.actors.roundtable import run_roundtable
from persona_mind.child_errors import (
    ChildCancelled,
    ChildDeadlineExceeded,
    ChildDied,
    ChildExited,
    ChildModelError,
    ChildProtocolError,
    ChildSpawnFailed,
    ChildUnavailable,
    ConsultRefused,
    PersonaNotInTeam,
    RequesterNotActive,
    RoundtableFailed,
    SelectionInvalid,
    SelfConsult,
    SynthesisIncomplete,
)
from persona_mind.features._child_specs import CONSULT_TOOL, ROUNDTABLE_COMMAND
from persona_mind.features._consult import consult, consult_many, handle_consult_tool
from persona_mind.messages.child import (
    DEFAULT_CHILD_TOOLS,
    ChildKind,
    ChildPersona,
    ChildProgress,
    ChildReply,
    ChildRequest,
    ChildSpend,
    ChildTeam,
    ChildUsage,
)
from persona_mind.messages.roundtable_progress import Position, RoundtableProgress, RoundtableResult
from persona_mind.persona.children._consult import ConsultResult, render_consult
from persona_mind.persona.children._costs import usage_text
from persona_mind.persona.children._decision import decision_text, dissent_line
from persona_mind.persona.children._launch import HostState
from persona_mind.persona.children._progress import render_progress
from persona_mind.persona.children._roundtable import MAX_SPECIALISTS, parse_selection
from persona_mind.persona.children._team import team_from_snapshot
from persona_mind.runners._child_backend import ChildBackend, ProgressFn
from persona_mind.runners._child_pi import KILL_SWITCH_ENV, PiBackend, PiMode, child_env, pi_argv
from persona_mind.runners._child_process import (
    CancelLadder,
    ChildProcess,
    ProcessSpec,
    group_alive,
    group_members,
    open_child,
)

__all__ = (
    "CONSULT_TOOL",
    "DEFAULT_CHILD_TOOLS",
    "KILL_SWITCH_ENV",
    "MAX_SPECIALISTS",
    "ROUNDTABLE_COMMAND",
    "CancelLadder",
    "ChildBackend",
    "ChildCancelled",
    "ChildDeadlineExceeded",
    "ChildDied",
    "ChildExited",
    "ChildKind",
    "ChildModelError",
    "ChildPersona",
    "ChildProcess",
    "ChildProgress",
    "ChildProtocolError",
    "ChildReply",
    "ChildRequest",
    "ChildSpawnFailed",
    "ChildSpend",
    "ChildTeam",
    "ChildUnavailable",
    "ChildUsage",
    "ConsultRefused",
    "ConsultResult",
    "HostState",
    "PersonaNotInTeam",
    "PiBackend",
    "PiMode",
    "Position",
    "ProcessSpec",
    "ProgressFn",
    "RequesterNotActive",
    "RoundtableFailed",
    "RoundtableProgress",
    "RoundtableResult",
    "SelectionInvalid",
    "SelfConsult",
    "SynthesisIncomplete",
    "child_env",
    "consult",
    "consult_many",
    "decision_text",
    "dissent_line",
    "group_alive",
    "group_members",
    "handle_consult_tool",
    "open_child",
    "parse_selection",
    "pi_argv",
    "render_consult",
    "render_progress",
    "run_roundtable",
    "team_from_snapshot",
    "usage_text",
)
