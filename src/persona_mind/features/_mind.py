"""The Mind half as a Companion feature: memory, backlog, notes, capture, injection, reminders.

Mind stays inactive — no tools, no capture, no injection, no reminders, no memory IO —
unless exactly one Persona provider answered the companion:v1 handshake loaded, enabled
and ready (M-COMPANION-2..4; the refusal paths stay real because the answer is the
Persona feature's live state, which the Companion asks it for, never a settings file). Its
session is rebound whenever the owner changes (session, persona, workspace): the old binding
is revoked so no late note or card reaches a replaced session (M-SCOPE).

Over 400 lines on purpose: one ``match`` over every host event the Mind half answers, kept
whole so the order of side effects per event (schedule, capture, plans, relays) reads in
one place; the parts with their own state live beside it (``_mind_pending``,
``_mind_relay``, ``_mind_reports``, ``_mind_schedule``, ``_warm``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from persona_mind.feature import Background
from persona_mind.features._mind_pending import PendingPlans, is_pending_confirm
from persona_mind.features._mind_relay import RelayNudges
from persona_mind.features._mind_reports import REPORT_ENTRY_TYPE, deliver_review, report_entry
from persona_mind.features._mind_schedule import SchedulerLink
from persona_mind.features._warm import warm_domain, warmed
from persona_mind.messages.host import (
    AgentSettled,
    AgentStart,
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    CustomEntry,
    HostEvent,
    Input,
    PromptInjection,
    SessionShutdown,
    SessionStart,
    SessionTree,
    ToolCall,
    ToolExecutionEnd,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.memory import Origin
from persona_mind.messages.owner import GetNotesTally, OwnerState, PutNotesTally

if TYPE_CHECKING:
    from persona_mind.feature import Peers, UntrustedText
    from persona_mind.features._ports import Ports
    from persona_mind.mind import MemoryService, MindSession
    from persona_mind.mind._companion import CompanionAnswer
    from persona_mind.mind.optimize._port import OptimizerPort

__all__ = ("REPORT_ENTRY_TYPE", "MindFeature")

UNBOUND_COMMANDS = (
    CommandSpec(
        name="mind",
        description="Mind memory: status, list, read, forget, doctor, capture/nudge settings",
    ),
    CommandSpec(
        name="persona-mind",
        description="Mind memory: status, list, read, forget, doctor, capture/nudge settings",
    ),
)
"""``MindSession.command_specs()`` before the session is built (a test keeps them equal):
the runtime answers ``ready`` with its commands without importing the Mind package."""


class MindFeature:
    """Adapts :class:`MindSession` to the Companion's feature port."""

    name = "mind"

    def __init__(self, ports: Ports, peers: Peers) -> None:
        """``peers`` is the Companion: the Persona half's companion:v1 answer comes from it.

        Without a Scheduler in ``ports`` (no child backend) nothing is scheduled."""
        self.ports = ports
        self.peers = peers
        self._session: MindSession | None = None
        self._revoked = False  # a revoke asked for before the session was built
        self._start: SessionStart | None = None
        self._bound: tuple[str | None, str | None, int, str | None] | None = None
        self._tally_key: tuple[str, int, int, str | None] | None = None
        """What the Owner last got of the notes' budget (session, events, bytes, closed)."""
        self.schedule = SchedulerLink(ports.scheduler)
        self.relays = RelayNudges()
        self.pending = PendingPlans()

    def settings_contribution(self) -> dict[str, Any]:
        """Mind's effective preferences for the companion's settings collection (the
        Companion asks it when Persona collects them, M-SCOPE-11)."""
        session = self._session
        if session is None or not session.active:
            return {}
        return session.settings.contribution()

    @property
    def session(self) -> MindSession:
        """The Mind session, built at first use (the first session event).

        Before that the feature offers only its commands (:data:`UNBOUND_COMMANDS`), so the
        runtime becomes ready without importing the Mind package.
        """
        if self._session is None:
            from persona_mind._memory_service import semantic_source  # noqa: PLC0415
            from persona_mind.mind import MindSession  # noqa: PLC0415 - first session
            from persona_mind.mind._companion import is_leg  # noqa: PLC0415

            ports = self.ports
            leg = is_leg(os.environ)
            self._session = MindSession(
                ports.store,
                ports.clock,
                ports.agent_dir,
                append=ports.host.append_entry,
                leg=leg,
                semantic=semantic_source(os.environ),  # every face's ranker and model
                offload=ports.offload,  # index builds off the loop
            )
            if self._revoked:
                self._session.revoke()
            self._session.optimizer = self._optimizer_client()
            host = ports.host

            async def activity_row(line: str | None) -> None:  # M-ACTIVITY-4
                await host.set_status("persona-mind-activity", line)

            self._session.activity_sink = activity_row
            self.schedule.leg = leg  # legs never schedule (AUTO-28)
            if self.schedule.wired:
                self._session.saved_sink = self.schedule.saved
                self._session.auto = self.schedule.auto
        return self._session

    def _optimizer_client(self) -> OptimizerPort | None:
        """The Optimizer port for ``/mind optimize`` and the memory tool's stage."""
        optimizer, scheduler = self.ports.optimizer, self.ports.scheduler
        if optimizer is None:
            return None
        from persona_mind.actors.optimizer import OptimizerClient  # noqa: PLC0415

        # explicit reviews share the Scheduler's single flight (M-OPTIMIZE-AUTO-20)
        return OptimizerClient(
            optimizer, admission=None if scheduler is None else (lambda: scheduler)
        )

    # -- companion handshake ------------------------------------------------------------
    def _answers(self) -> list[CompanionAnswer]:
        from persona_mind.mind._companion import CompanionAnswer  # noqa: PLC0415 - first bind

        # Every field is the Persona half's live answer, asked through the Companion, so
        # each check can fail in the running product (M-COMPANION-4/7), not only in tests.
        return [
            CompanionAnswer(
                provider=status.provider,
                version=status.version,
                enabled=status.enabled,
                ready=status.ready,
            )
            for status in self.peers.persona_status()
        ]

    async def _bind(self, owner: OwnerState) -> None:
        """(Re)bind the Mind session to the current owner and persona."""
        if self._start is None or not owner.ready:
            if self._session is None:
                self._revoked = True
            else:
                self._session.revoke()
            self._bound = None
            self.schedule.deactivate("the session owner changed")
            return
        from persona_mind.mind._companion import companion_refusal  # noqa: PLC0415 - first bind
        from persona_mind.mind._settings import load_persona_settings  # noqa: PLC0415

        # Any owner change rebinds — a generation-only bump (team switch) or a working-directory
        # change too: the old service would stamp writes with a stale generation (refused as
        # session.changed) or keep the old project scope (M-SCOPE-3, M-SCOPE-21).
        key = (owner.session_id, owner.active_persona, owner.generation, owner.cwd)
        if self._bound == key:
            return
        self.relays.settle()  # an owner change discards the old owner's relay state
        entries = tuple(await self.ports.host.branch_entries())
        start = SessionStart(
            reason=self._start.reason,
            session_id=self._start.session_id,
            session_file=self._start.session_file,
            session_manager=self._start.session_manager,
            cwd=owner.cwd or self._start.cwd,
            entries=entries,
            model=self._start.model,
            origin_session_id=self._start.origin_session_id,
        )
        settings, _warning = load_persona_settings(self.ports.agent_dir)
        self.session.start(
            start,
            persona=owner.active_persona,
            generation=owner.generation,
            refusal=companion_refusal(self._answers()),
            settings=settings,
        )
        await self.session.follow_repository()  # an approved clone link picks the files
        self._bound = key
        self.schedule.activate(start, owner.generation, self.session)
        await self._count_session_file(start.session_file)
        await self._arm_reminders(entries=entries)

    async def _count_session_file(self, path: str | None) -> None:
        """Every note event of the session file counts toward the lifetime budget
        (M-SESSION-NOTES-4): the host port only hands Mind the active branch."""
        session = self.session
        if path is None or session.ledger is None or session.leg:
            return
        import functools  # noqa: PLC0415

        from persona_mind.errors import MindError  # noqa: PLC0415
        from persona_mind.mind.notes._sessionfile import session_note_entries  # noqa: PLC0415

        try:
            entries = await self.ports.offload(functools.partial(session_note_entries, path))
        except MindError as exc:
            session.count_whole_session(problem=str(exc))
            return
        session.count_whole_session(entries)

    async def _arm_reminders(self, *, entries: tuple[CustomEntry, ...] = ()) -> None:
        """Re-arm; on (re)bind ``entries`` is the branch, whose ack entries are replayed so a
        wake shown before a restart and ``/resume`` is never shown again (M-REMINDER-3)."""
        from persona_mind.messages.reminder import ArmReminders  # noqa: PLC0415 - imports Mind
        from persona_mind.mind.backlog._reminder import acknowledged_keys  # noqa: PLC0415

        reminders = self.ports.reminders
        if reminders is None:
            return
        items = await self.session.reminder_items()
        acked = tuple(sorted(acknowledged_keys(entries)))
        reminders.tell_if_alive(ArmReminders(items=items, acknowledged=acked))

    async def recover(self, owner: OwnerState, start: SessionStart) -> None:
        """A new feature (a restarted Companion) binds to the session the Owner holds: the
        notes are replayed from the branch and counted over the session file, exactly as
        at any rebind, the Owner's tally of the lifetime budget is absorbed (events seen
        on other branches still count), and reminders are re-armed."""
        self._start = start
        self._bound = None
        await self._bind(owner)
        ledger = self._session.ledger if self._session is not None else None
        if ledger is not None:
            tally = await self.ports.owner.ask(GetNotesTally())
            if tally is not None:
                ledger.absorb(tally)
            await self._send_tally()

    async def _send_tally(self) -> None:
        """The notes' budget to the Owner when it changed (a cheap key on the hot path)."""
        ledger = self._session.ledger if self._session is not None else None
        if ledger is None:
            return
        key = (
            ledger.owner.session_id,
            ledger.lifetime_events,
            ledger.lifetime_bytes,
            ledger.closed,
        )
        if key != self._tally_key:
            await self.ports.owner.ask(PutNotesTally(tally=ledger.tally()))
            self._tally_key = key

    # -- feature port ------------------------------------------------------------------
    def tool_specs(self) -> tuple[ToolSpec, ...]:
        return () if self._session is None else self._session.tool_specs()

    def command_specs(self) -> tuple[CommandSpec, ...]:
        return UNBOUND_COMMANDS if self._session is None else self._session.command_specs()

    async def on_owner(self, owner: OwnerState) -> None:
        await self._bind(owner)

    async def on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        try:
            return await self._on_event(event, owner)
        finally:
            await self._send_tally()

    async def _on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        match event:
            case SessionStart():
                if not warmed():  # the domain's tables, on the IO thread (features/_warm.py)
                    await self.ports.offload(warm_domain)
                self.pending.start(event.session_id)
                self._start = event
                self._bound = None
                await self._bind(owner)
            case Input():
                if not event.text.lstrip().startswith("/"):  # a slash command runs no agent
                    self.schedule.busy("input")  # cancels a running automatic review
                    if event.custom_type is None or event.deferred:
                        self.pending.user_message()  # P-CHAT-PLAN-7
                # Only the reserved custom type replays direct user input (M-TRUST-2).
                outcome = await self.session.on_input(event, deferred=event.deferred)
                if outcome.captured is not None:
                    await self.ports.host.notify(
                        f"persona-mind remembered: {outcome.captured.fact.text[:120]}", "info"
                    )
                elif outcome.refused is not None:
                    await self.ports.host.notify(
                        f"persona-mind did not remember that: {outcome.refused}", "warning"
                    )
            case BeforeAgentStart():
                session = self.session  # builds it (and starts the model load) if first
                from persona_mind.embedding import turn_gate  # noqa: PLC0415 - after session

                # the model's load starts each of its steps only when no turn is in
                # flight (issue 15 item 9); entering/leaving never blocks the loop
                with turn_gate().turn():
                    return await session.before_agent_start(event)
            case AgentStart():
                self.schedule.busy("agent-start")
            case ToolExecutionEnd():
                self.relays.result(event, self._session)
                self.session.observe_tool_result(event.tool_name, event.text)
            case AgentSettled():
                self.relays.settle()  # M-CAPTURE-10
                # only the main session's input tokens count toward the gate
                self.schedule.settled(0 if event.usage is None else event.usage.input_tokens)
                line = await self.session.maintenance()
                if line:
                    await self.ports.host.notify(line, "info")
                if self.session.active:
                    await self._arm_reminders()
            case SessionTree():
                self.session.on_tree(event)
            case SessionShutdown():
                self.schedule.deactivate("shutdown")
                self.session.revoke()
                self._start = None
                self._bound = None
                self.relays.settle()
                reminders = self.ports.reminders
                if reminders is not None:
                    from persona_mind.messages.reminder import CancelReminders  # noqa: PLC0415

                    reminders.tell_if_alive(CancelReminders())
            case _:
                pass
        return None

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult:
        if is_pending_confirm(call.name, call.arguments):
            return await self.pending.confirm(self.session.service, dict(call.arguments))
        # the headless host that serves MCP clients names its sessions "mcp" (docs/mind.md)
        origin: Origin = "mcp" if owner.session_manager == "mcp" else "model"
        result = self.pending.card(await self.session.on_tool(call, origin=origin))
        await self._send_tally()  # a note saved or forgotten
        if call.name == "backlog" and not result.is_error:
            await self._arm_reminders()
        return result

    async def command(
        self, call: CommandCall, owner: OwnerState
    ) -> CommandResult | Background[CommandResult]:
        """``/mind`` and ``/persona-mind``; the report also stays in session history (M-UI-3).

        An optimize review runs for minutes, so the command answers once the review is
        accepted (a short reply and a toast, M-OPTIMIZE-BATCH-8/9) and the review runs as
        the Companion's detached work: its report arrives later as a report card and
        session entry (``_mind_reports``). An owner change cancels it (and its worker).
        """
        from persona_mind.mind.optimize._commands import is_review  # noqa: PLC0415 - lazy

        words = call.args.split()
        if words[:1] == ["optimize"] and is_review(words[1:]):
            accepted = await self.session.accept_review(words[1:])
            if accepted.level == "error":
                return accepted
            await self.ports.host.notify(accepted.text.splitlines()[-1])
            session, host = self.session, self.ports.host
            return Background(
                key="mind-optimize-review",
                work=lambda: deliver_review(session, host, call),
                reply=accepted,
            )
        return await self._command(call)

    async def _command(self, call: CommandCall) -> CommandResult:
        result = await self.session.on_command(call)
        await self._send_tally()
        if self.session.active:
            await self.ports.host.append_entry(REPORT_ENTRY_TYPE, report_entry(call, result))
        return result

    def details(self) -> dict[str, Any]:
        """What ``InspectFeatures`` reports of this half (values, never the objects)."""
        session = self._session
        service = None if session is None else session.service
        ledger = None if session is None else session.ledger
        return {
            "active": service is not None,
            "generation": None if service is None else service.generation,
            "notes": None if ledger is None else len(ledger.notes),
            "lifetime_events": None if ledger is None else ledger.lifetime_events,
            "notes_closed": None if ledger is None else ledger.closed,
        }

    def memory_service(self) -> MemoryService | None:
        """This session's memory service while Mind is active (decision records use it)."""
        session = self._session
        return session.service if session is not None and session.active else None

    def untrusted_sink(self) -> UntrustedText:
        """Consult and round-table answers, whole, into the current session's taint ledger."""

        def observe(source: Origin, text: str) -> None:
            if self._session is not None:
                self._session.observe_untrusted(source, text)

        return observe

    async def lean_injection(self, query: str) -> str:
        """Objective/LTM-only context for a delegated leg (M-LEG: lean injection); the
        Companion asks it for the children feature."""
        service = self.session.service
        if service is None:
            return ""
        plan = await service.injection(query, notes=(), lean=True)
        return plan.text or ""
