"""MindSession: Mind's per-session state and one method per host event.

The Companion actor owns one :class:`MindSession` and forwards host events to it; every
method is host-neutral and actor-free, and IO happens only through the StorePort (memory)
and the ``append`` callback (session notes).  Nothing touches memory before
:meth:`MindSession.start` has been given a ready owner and a valid companion
(M-COMPANION-2, M-SCOPE-4); an inactive session answers every event with "nothing" and
every tool call with a refusal naming why.

Event mapping (see ``docs/mind.md`` "Integration"):

=====================  =============================================================
host event             MindSession call
=====================  =============================================================
session_start          ``start(event, persona=, generation=, refusal=, settings=)``
input                  ``await on_input(event)`` → capture receipt / nudge
before_agent_start     ``await before_agent_start(event)`` → PromptInjection
agent_settled          ``await maintenance()`` (one import step, or expiry cleanup)
session_tree           ``on_tree(event)`` (replay notes of the new branch)
tool call              ``await on_tool(call)`` → ToolResult
command                ``await on_command(call)`` → CommandResult
owner/persona change   ``revoke()`` then a new ``start(...)``
reminders              ``await reminder_items()`` → ArmReminders(items=...)
=====================  =============================================================

The companion handshake rules and the leg switch are in ``_companion`` (re-exported here).
Over 400 lines on purpose: one method per host event, as the table says; the halves with a
concern of their own live beside it — repository links (``_session_repo``), the Optimizer
binding (``_session_optimize``), the capture write (``capture._write``).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from persona_mind.clock import Clock
from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import (
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    CustomEntry,
    Input,
    PromptInjection,
    SessionStart,
    SessionTree,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.memory import Origin
from persona_mind.mind._commands import MindCommandContext, command_specs, handle_mind_command
from persona_mind.mind._companion import (
    CompanionAnswer,
    companion_refusal,
    is_leg,
    one_disclosure,
)
from persona_mind.mind._deadline import with_deadline
from persona_mind.mind._errors import AccessRefused
from persona_mind.mind._link_plans import LinkDesk
from persona_mind.mind._model import BacklogItem, Tier
from persona_mind.mind._scope import MindScope, find_project
from persona_mind.mind._service import FoundFact, MemoryService, Offload
from persona_mind.mind._session_optimize import accept_review, optimize_binding
from persona_mind.mind._session_repo import follow, is_link_call, link_command, link_tool
from persona_mind.mind._settings import MindSettings
from persona_mind.mind._tools import AppendEntry, MindTools, tool_specs
from persona_mind.mind._write_gate import WriteGate, source_of_tool
from persona_mind.mind.capture._cues import decide_capture
from persona_mind.mind.capture._write import InputOutcome, update_hints, write_capture
from persona_mind.mind.migrate._legacy import LegacyImport
from persona_mind.mind.notes._ledger import NotesLedger, OwnerKey
from persona_mind.mind.optimize._activity import ActivityBoard
from persona_mind.mind.optimize._port import OptimizeBinding, OptimizerPort
from persona_mind.mind.recall._ranker import SemanticSource
from persona_mind.mind.trust._taint import TaintLedger
from persona_mind.storage.port import StorePort

__all__ = (
    "DEFERRED_INPUT_TYPE",
    "INJECTION_DEADLINE",
    "CompanionAnswer",
    "InputOutcome",
    "MindSession",
    "companion_refusal",
    "is_leg",
)

INJECTION_DEADLINE = 0.75
DEFERRED_INPUT_TYPE = "pi-persona-deferred-input"
"""The one custom type that replays direct user input (M-TRUST-2)."""


class MindSession:
    """Mind state of one native session (see the module doc for the event mapping)."""

    def __init__(
        self,
        store: StorePort,
        clock: Clock,
        agent_dir: Path,
        *,
        append: AppendEntry | None = None,
        leg: bool = False,
        home: Path | None = None,
        legacy_persona: str | None = None,
        semantic: SemanticSource | None = None,
        offload: Offload | None = None,
    ) -> None:
        self.store = store
        self.semantic = semantic
        """The model edge for hybrid ranking (``persona_mind.embedding.default_semantic``);
        ``None``: lexical."""
        self.offload = offload
        self.clock = clock
        self.agent_dir = agent_dir
        self.append = append
        self.leg = leg
        self.home = home
        self.legacy_persona = legacy_persona
        self.settings = MindSettings()
        self.taint = TaintLedger()
        self.gate = WriteGate(self.taint, lambda: self.settings.write_policy)
        self.refusal: str | None = "the session has not started"
        self.service: MemoryService | None = None
        self.ledger: NotesLedger | None = None
        self.importer: LegacyImport | None = None
        self.generation = 0
        self._nudge: str | None = None
        self.links = LinkDesk()  # repository identity, link offers and link plans
        self._captured: FoundFact | None = None
        """The fact capture saved from this turn's user message (the model's own remember
        of the same words updates it instead of writing a second copy)."""
        self.optimizer: OptimizerPort | None = None  # set by the runtime (consolidation)
        self.model: str | None = None  # the session model: optimize reviews use exactly it
        self.activity = ActivityBoard()  # pi-persona:activity:v1 rows of the current owner
        self.activity_sink: Callable[[str | None], Awaitable[None]] | None = None
        self.saved_sink: Callable[[Tier], None] | None = None  # the Scheduler's dirty tiers
        self.auto: Callable[[str], Awaitable[tuple[str, ...]]] | None = None
        """``/mind optimize auto [status|on|off]`` through the Scheduler (set by the runtime)."""

    # -- lifecycle -----------------------------------------------------------------------

    def start(
        self,
        event: SessionStart,
        *,
        persona: str | None,
        generation: int,
        refusal: str | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        """Bind to a session (synchronous: no IO, never awaits another extension, M-SCOPE-5)."""
        previous = self.ledger
        self.revoke()
        self.generation = generation
        self.model = event.model
        self.activity.bind(f"{event.session_id}#{generation}")
        self.settings = MindSettings.from_persona_settings(settings)
        self.refusal = refusal
        self._nudge = None
        self._captured = None
        if refusal is not None:
            return
        self.links = LinkDesk()  # link plans die with the binding (M-SCOPE-21)
        self.bind_scope(MindScope(self.agent_dir, persona, find_project(event.cwd, self.home)))
        owner = OwnerKey(event.session_manager, event.session_id, event.session_file)
        self.ledger = NotesLedger(owner)
        if previous is not None and previous.owner.session_id == owner.session_id:
            # same native session (persona/workspace change): the lifetime budget keeps
            # counting every event already seen on any branch (M-SESSION-NOTES-4)
            self.ledger.seen.update(previous.seen)
        if not self.leg:
            self.ledger.replay(event.entries)

    def bind_scope(self, scope: MindScope) -> None:
        """A service (and legacy import) for ``scope``: at start, and when an approved
        repository link changes which project files this path uses (``_session_repo``)."""
        if self.service is not None:  # its indexes are freed off the loop (issue 15 item 9)
            self.service.release()
        self.service = MemoryService(
            self.store, self.clock, scope, generation=self.generation, offload=self.offload
        )
        self.service.semantic = self.semantic
        if not self.leg:  # legs never schedule automatic reviews (M-OPTIMIZE-AUTO-28)
            self.service.on_saved = self.saved_sink
            self.importer = LegacyImport(
                self.service,
                legacy_persona=self.legacy_persona,
                claim_persona=True,
                run_blocking=self.offload,  # the runtime's one IO executor, never a thread here
            )

    async def follow_repository(self) -> None:
        """After ``start``: bind to the approved repository link, learn link offers."""
        await follow(self)

    def revoke(self) -> None:
        """The owner changed or the session ended: no later append, no late cards."""
        binding = self._optimize_binding()
        if binding is not None:  # M-OPTIMIZE-MANUAL-39: staged plans die with the owner
            binding.port.discard(binding.owner)
        self.activity.bind(None)  # M-ACTIVITY-7: late events of the old owner are dropped
        if self.ledger is not None:
            self.ledger.revoked = True
        self.service = None
        self.ledger = None
        self.importer = None
        self.refusal = "the session owner changed"

    @property
    def active(self) -> bool:
        return self.service is not None

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """Tools to register: none for legs or while inactive (M-LEG-5, M-COMPANION-2)."""
        return () if self.leg or not self.active else tool_specs()

    def command_specs(self) -> tuple[CommandSpec, ...]:
        return command_specs()

    # -- events --------------------------------------------------------------------------

    async def on_input(self, event: Input, *, deferred: bool = False) -> InputOutcome:
        """Capture strong direct-user cues before the model starts; remember a nudge."""
        if self.service is None or self.leg:
            return InputOutcome()
        self._captured = None  # a new user message starts a new turn
        # A custom message of any other type is foreign, whatever its source (M-TRUST-1/2).
        direct = deferred or (event.source != "extension" and event.custom_type is None)
        if direct:  # a user message: the reply a plan waits for (P-CHAT-PLAN-7)
            self.links.user_messages += 1
            await self.taint.observe_user_async(event.text)  # a long paste in steps
        decision = decide_capture(
            event.text, direct=direct, mode=self.settings.capture, nudge=self.settings.nudge
        )
        if decision.action == "refuse":  # unsafe content: one line to the user, no write
            return InputOutcome(refused=decision.hint)
        if decision.action == "nudge":
            self._nudge = decision.hint
            return InputOutcome(nudge=decision.hint)
        if decision.action != "capture" or decision.draft is None:
            return InputOutcome()
        service = self.service
        outcome = await write_capture(service, decision.draft)
        if outcome.nudge is not None:
            self._nudge = outcome.nudge
        if outcome.captured is None or self.service is not service:
            return outcome if outcome.captured is None else InputOutcome()  # replaced meanwhile
        self._captured = outcome.captured
        for hint in await update_hints(service, outcome.captured):
            self.hint_once(hint)
        return outcome

    def hint_once(self, hint: str) -> None:
        """A runtime hint for the next injection only (a repository link offer)."""
        if not self.leg:
            self._nudge = hint if not self._nudge else f"{self._nudge} {hint}"

    def suggest(self, hint: str) -> bool:
        """A nudge that is not the user's own words (a relayed blocked report, M-CAPTURE-8):
        added once to the next injection like a casual-cue nudge, inside its budget.  Never a
        write; nothing in ``off`` mode, with nudges off, in a leg or while inactive."""
        if self.service is None or self.leg:
            return False
        if self.settings.capture == "off" or not self.settings.nudge:
            return False
        self._nudge = hint if not self._nudge else f"{self._nudge} {hint}"
        return True

    async def before_agent_start(self, event: BeforeAgentStart) -> PromptInjection:
        """The memory block, or nothing; fails open after 750 ms with a disclosure."""
        service = self.service
        if service is None:
            return PromptInjection()
        notes = self.ledger.views() if self.ledger is not None else ()
        # The capture hint counts against the block's 2,400-token budget (M-UI-4).
        hint = f"persona-mind hint: {self._nudge}" if self._nudge and not self.leg else ""
        reserve = math.ceil(len(hint.encode("utf-8")) / 3)
        try:
            plan = await with_deadline(
                lambda: service.injection(
                    event.prompt, notes=notes, lean=self.leg, reserve_tokens=reserve
                ),
                self.clock,
                INJECTION_DEADLINE,
            )
        except PersonaMindError as exc:  # a corrupt store fails open too, with the reason
            return PromptInjection(disclosures=(f"persona-mind: memory skipped ({exc})",))
        if self.service is not service:  # M-UI-5: the session/scope changed meanwhile
            return PromptInjection()
        self._nudge = None
        extra = (hint,) if hint else ()
        if plan is None:
            return PromptInjection(
                sections=extra,
                disclosures=("persona-mind: memory skipped (not ready within 750 ms)",),
            )
        sections = ((plan.text,) if plan.text else ()) + extra
        return PromptInjection(sections=sections, disclosures=one_disclosure(plan.disclosures))

    def count_whole_session(
        self, entries: Sequence[CustomEntry] = (), *, problem: str | None = None
    ) -> None:
        """Count every note event of the session, all branches, toward the lifetime budget.

        ``entries`` come from the session file (``_sessionfile``); ``problem`` says why it
        could not be read, which closes the ledger (fail closed, M-SESSION-NOTES-4/14)."""
        ledger = self.ledger
        if ledger is None or self.leg:
            return
        if problem is not None:
            ledger.closed = problem
            ledger.notes = {}
            return
        ledger.replay(entries, all_entries=True)

    def on_tree(self, event: SessionTree) -> None:
        """The active branch moved: replay its notes (the lifetime budget keeps counting)."""
        if self.ledger is not None and not self.leg:
            self.ledger.replay(event.entries)

    async def maintenance(self) -> str | None:
        """After ``agent_settled``: one bounded import step, else expiry cleanup.

        Returns the import progress line once, when the import settles (M-MIGRATE-9).
        """
        service = self.service
        if service is None or self.leg:
            return None
        importer = self.importer
        try:
            if importer is not None and not importer.done:
                if not await importer.step(max_files=1):
                    return None
                if importer.report.worth_showing:
                    return f"persona-mind import: {importer.report.summary()}"
                # nothing was read: no toast (issue 13), and this turn's cleanup still runs
            await service.cleanup()
        except PersonaMindError as exc:  # maintenance is best effort; the next turn retries
            return f"persona-mind maintenance skipped: {exc}"
        return None

    async def on_tool(self, call: ToolCall, *, origin: Origin = "model") -> ToolResult:
        """Run the memory/backlog tool (guarded even when called programmatically).

        ``origin``: who is calling — the model in Pi, or an MCP client (docs/mind.md)."""
        if self.service is None:
            exc = AccessRefused("mind.inactive", f"Mind is inactive: {self.refusal}")
            return ToolResult(text=str(exc), details={"rule": exc.rule}, is_error=True)
        if is_link_call(call) and not self.leg:
            return await link_tool(self, call.arguments)
        tools = MindTools(
            self.service,
            ledger=self.ledger,
            append=self.append,
            leg=self.leg,
            optimize=self._optimize_binding(),
            gate=self.gate,
            captured=self._captured,
            origin=origin,
        )
        return await tools.call(call.name, call.arguments)

    def observe_untrusted(self, source: Origin, text: str) -> None:
        """Text that entered the session and the user did not type (taint, M-TRUST)."""
        self.taint.observe(source, text)

    def observe_tool_result(self, tool_name: str, text: str) -> None:
        """A tool's result entered the session: record it under its taint source."""
        source = source_of_tool(tool_name)
        if source is not None:
            self.taint.observe(source, text)

    async def accept_review(self, words: list[str]) -> CommandResult:
        """The acceptance answer of ``/mind optimize [all|target]`` (M-OPTIMIZE-BATCH-8, -9);
        ``level == "error"`` means refused (:func:`~._session_optimize.accept_review`)."""
        return await accept_review(self, words)

    async def on_command(self, call: CommandCall) -> CommandResult:
        """``/mind`` and ``/persona-mind``."""
        if call.args.split()[:1] == ["link"] and not self.leg and self.service is not None:
            return await link_command(self, call.args.split()[1:])
        status = None
        if self.importer is not None and self.importer.pending:
            status = "pending (imported facts may not be available yet)"
        ctx = MindCommandContext(
            None if self.leg else self.service,
            self.settings,
            self.ledger,
            refusal="delegated legs have no Mind commands" if self.leg else self.refusal,
            import_status=status,
            optimize=self._optimize_binding(),
            auto=None if self.leg else self.auto,
        )
        service = self.service
        result = await handle_mind_command(call.args, ctx)
        if self.service is not service:  # M-UI-5: a late report never reaches a new scope
            return CommandResult(
                text="persona-mind: the session changed; report dropped", level="warning"
            )
        return result

    def _optimize_binding(self) -> OptimizeBinding | None:
        return optimize_binding(self)

    async def reminder_items(self) -> tuple[BacklogItem, ...]:
        """The project's live backlog for the Reminder actor; empty in home, legs, inactive."""
        service = self.service
        if service is None or self.leg or service.scope.project is None:
            return ()
        return tuple(await service.backlog_list())
