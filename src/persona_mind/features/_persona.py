"""The Persona half as a Companion feature: binding, active persona, packs, plans.

The session's state is the Owner's (a :class:`~persona_mind.persona.PersonaSession`: the
active persona, the team snapshot in use, the user-message count, branch and idleness, a
pending hand-off) and so are the chat plans (``_persona_plans``): this feature keeps a
per-call view of them, sends every change to the Owner before the host sees the answer,
and a feature built for a restarted Companion recovers the view from the Owner. It applies the
:class:`~persona_mind.persona.Effects` a handler returns:
entries to the host, a user message, an identity change (a generation bump through the
Owner, which Mind then follows), a reload once idle, or a pending handoff that runs when
the host settles (P-CHAT-PLAN: team switches wait for idle and recheck before reloading).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.errors import PersonaMindError
from persona_mind.feature import PersonaStatus
from persona_mind.features._persona_plans import HeldByOwner, OwnerPlanDesk
from persona_mind.features._warm import warm_persona
from persona_mind.messages.host import (
    AgentSettled,
    AgentStart,
    BeforeAgentStart,
    CommandCall,
    CommandResult,
    CommandSpec,
    HostEvent,
    Input,
    PromptInjection,
    SessionShutdown,
    SessionStart,
    SessionTree,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.owner import (
    GetPersonaSession,
    OwnerState,
    PutPersonaSession,
    SetActivePersona,
)

if TYPE_CHECKING:
    from persona_mind.feature import Peers
    from persona_mind.features._ports import Ports
    from persona_mind.persona import (
        Effects,
        PersonaService,
        PersonaSession,
        SessionContext,
        TeamSnapshot,
    )

__all__ = ("PersonaFeature",)


_BASE_COMMANDS = (
    CommandSpec(name="persona", description="Personas: use, status, clear, team, pack, onboard"),
    CommandSpec(name="persona-list", description="List this session's persona team"),
)


class PersonaFeature:
    """Adapts :class:`PersonaService` to the Companion's feature port."""

    name = "persona"
    companion_version: tuple[int, ...] = (1, 17, 5)
    """The Persona contract this half implements, answered to Mind (M-COMPANION-4/6)."""

    def __init__(self, ports: Ports, peers: Peers, service: PersonaService | None = None) -> None:
        self.ports = ports
        self.peers = peers
        """The Companion: the other features' settings (settings:collect:v1, M-SCOPE-11)."""
        self._service = service
        self.plan_desk = OwnerPlanDesk(ports.owner)
        self.ctx: SessionContext | None = None
        self.handoff: str | None = None
        self.reload_pending = False
        self.disabled: str | None = None
        """Why the Persona half could not open this session (Mind then refuses, M-COMPANION-7)."""
        self.backend_error: str | None = None
        """Why this session's backend setting is invalid (P-CHILD-6/7); children refuse."""
        self._held: PersonaSession | None = None
        """The value the Owner holds for this session, as last read or sent."""
        self._held_from: tuple[object, ...] | None = None
        """What :attr:`_held` was last built from or found equal to (:meth:`_inputs`)."""
        self._loaded = service is not None
        """Whether the Persona package is imported (off the loop at the first session)."""

    @property
    def service(self) -> PersonaService:
        """The Persona service, built at first use (the first session event).

        Until a session starts the feature only offers its base commands, so the runtime
        becomes ready without importing the Persona package (YAML, packs, catalog).
        """
        if self._service is None:
            from persona_mind.persona import PersonaService  # noqa: PLC0415 - first session

            ports = self.ports
            self._service = PersonaService(
                ports.agent_dir,
                files=ports.pack_files(),  # the durable port (Persona does no IO of its own)
                clock=ports.clock,
                offload=ports.offload,  # the Store's one serial IO thread
                plans=HeldByOwner(),
            )
        return self._service

    # -- what the Companion reads -----------------------------------------------------------
    @property
    def enabled(self) -> bool:
        """False when this session could not be opened (its reason is in ``disabled``)."""
        return self.disabled is None

    @property
    def ready(self) -> bool:
        """Loaded, enabled and bound to a session: the companion:v1 answer (M-COMPANION)."""
        return self.ctx is not None

    def active_name(self) -> str | None:
        if self.ctx is None:
            return None
        state = self.service.sessions.get(self.ctx.session_id)
        return state.active.name if state is not None and state.active is not None else None

    async def team(self) -> TeamSnapshot | None:
        """The session's team snapshot (the Companion answers ``GetTeam`` with it)."""
        return None if self.ctx is None else await self.service.team(self.ctx)

    def persona_status(self) -> PersonaStatus:
        """What the Companion answers Mind (companion:v1) and the children feature."""
        return PersonaStatus(
            provider="persona-mind/persona",
            version=self.companion_version,
            enabled=self.enabled,
            ready=self.ready,
            active=self.active_name(),
            backend_error=self.backend_error,
        )

    # -- feature port ------------------------------------------------------------------
    def tool_specs(self) -> tuple[ToolSpec, ...]:
        return self.service.tool_specs() if self.ctx is not None else ()

    def command_specs(self) -> tuple[CommandSpec, ...]:
        if self.ctx is None:
            return _BASE_COMMANDS
        return self.service.command_specs(self.ctx)

    async def on_owner(self, owner: OwnerState) -> None:
        return None

    # -- the session's state lives in the Owner ------------------------------------------
    async def recover(self, owner: OwnerState, start: SessionStart) -> None:
        """A new feature (a restarted Companion) resumes the session the Owner holds: the
        active persona, the team snapshot in use, the counters and any pending hand-off."""
        from persona_mind.persona import PersonaSession  # noqa: PLC0415 - a session exists

        held = await self.ports.owner.ask(GetPersonaSession())
        if held is not None and not isinstance(held, PersonaSession):  # opaque in messages
            raise PersonaMindError(f"the Owner holds no Persona session: {type(held).__name__}")
        if held is None or held.session_id != start.session_id:
            # The crash came before this session's state reached the Owner (mid session
            # start): open it as the start did, from the retained binding and the branch.
            entries = tuple(await self.ports.host.branch_entries())
            await self.on_event(msgspec.structs.replace(start, entries=entries), owner)
            return
        self.ctx = held.context()
        if held.state is not None:
            self.service.sessions[held.session_id] = held.state
        self.handoff, self.reload_pending = held.handoff, held.reload_pending
        self.disabled, self.backend_error = held.disabled, held.backend_error
        self._held, self._held_from = held, None

    def _value(self) -> PersonaSession | None:
        if self.ctx is None:
            return None
        from persona_mind.persona import PersonaSession  # noqa: PLC0415 - loaded by now

        return PersonaSession.of(
            self.ctx,
            self.service.sessions.get(self.ctx.session_id),
            handoff=self.handoff,
            reload_pending=self.reload_pending,
            disabled=self.disabled,
            backend_error=self.backend_error,
        )

    def _inputs(self) -> tuple[object, ...] | None:
        """Everything :meth:`_value` is built from, field for field (``None``: no session).

        Equal inputs build an equal value, so :meth:`_save` compares these first: one tuple
        instead of a frozen dataclass built and compared after every event of every turn.
        """
        ctx = self.ctx
        if ctx is None:
            return None
        return (
            ctx.session_id,
            str(ctx.cwd),
            ctx.user_messages,
            ctx.branch,
            ctx.idle,
            ctx.other_commands,
            self.service.sessions.get(ctx.session_id),
            self.handoff,
            self.reload_pending,
            self.disabled,
            self.backend_error,
        )

    async def _save(self) -> None:
        """Send the session's state to the Owner when it changed (before the host's answer,
        so a Companion that crashes after this call resumes from it)."""
        inputs = self._inputs()
        if inputs is not None and inputs == self._held_from:
            return  # the value would equal the one the Owner holds
        value = self._value()
        if value != self._held:
            await self.ports.owner.ask(PutPersonaSession(session=value))
            self._held = value
        self._held_from = inputs

    async def on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        try:
            return await self._on_event(event)
        finally:
            await self._save()

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult:
        try:
            return await self._tool(call)
        finally:
            await self._save()

    async def command(self, call: CommandCall, owner: OwnerState) -> CommandResult:
        try:
            return await self._command(call)
        finally:
            await self._save()

    async def _on_event(self, event: HostEvent) -> PromptInjection | None:
        match event:
            case SessionStart():
                if not self._loaded:  # its first import, on the IO thread (features/_warm.py)
                    self._loaded = await self.ports.offload(warm_persona)
                from persona_mind.persona import (  # noqa: PLC0415 - first session
                    SessionContext,
                    Workspace,
                    backend_problem,
                )

                if self.ctx is not None and self.ctx.session_id != event.session_id:
                    await self._close(self.ctx.session_id)
                self.ctx = SessionContext(
                    session_id=event.session_id,
                    cwd=Path(event.cwd),
                    other_commands=frozenset(event.other_commands),  # P-ACTIVE-5
                )
                problem = await self.ports.offload(
                    functools.partial(backend_problem, Workspace(Path(event.cwd)))
                )
                # P-CHILD-6/7: an invalid backend setting is a start-up error, and no child
                # runs on a backend the user did not choose until it is fixed.
                self.backend_error = problem
                if problem is not None:
                    await self.ports.host.notify(
                        f"persona: {problem} Consults and round-tables are off until then.",
                        "error",
                    )
                try:
                    await self.service.open(
                        self.ctx,
                        reason=event.reason,
                        origin_session_id=event.origin_session_id,
                        entries=event.entries,
                    )
                except PersonaMindError as exc:  # answered to Mind as "disabled"
                    self.disabled = str(exc)
                    await self.ports.host.notify(f"persona: {exc}", "error")
                    return None
                self.disabled = None
                await self._publish_identity()
            case Input() if self.ctx is not None and event.source != "extension":
                self.ctx.user_messages += 1
            case BeforeAgentStart() if self.ctx is not None:
                return await self.service.injection(self.ctx)
            case AgentStart() if self.ctx is not None:
                self.ctx.idle = False
            case AgentSettled() if self.ctx is not None:
                self.ctx.idle = True
                await self._when_idle()
            case SessionTree() if self.ctx is not None:
                self.ctx.branch = event.leaf_id
                if self.service.on_branch(self.ctx, event.entries):
                    await self._publish_identity()
            case SessionShutdown() if self.ctx is not None:
                await self._close(self.ctx.session_id)
                self.ctx = None
            case _:
                pass
        return None

    async def _tool(self, call: ToolCall) -> ToolResult:
        if self.ctx is None:
            return ToolResult(text="persona_pack: no session is active yet", is_error=True)
        from persona_mind.persona import tool_plan_needs  # noqa: PLC0415 - loaded by now

        plans = await self.plan_desk.for_call(tool_plan_needs(call), self.ctx)
        outcome = await self.service.handle_tool(self.ctx, call, plans=plans)
        await self.plan_desk.send(plans)
        await self._apply(outcome.effects)
        result: ToolResult = outcome.result
        return result

    async def _command(self, call: CommandCall) -> CommandResult:
        if self.ctx is None:
            return CommandResult(text="/persona: no session is active yet", level="error")
        head, _, rest = call.args.strip().partition(" ")
        handler = self.peers.persona_subcommand(head) if call.name == "persona" else None
        if handler is not None:
            return await handler(rest.strip())
        from persona_mind.persona import command_plan_needs  # noqa: PLC0415 - loaded by now

        plans = await self.plan_desk.for_call(command_plan_needs(call), self.ctx)
        outcome = await self.service.handle_command(self.ctx, call, plans=plans)
        await self.plan_desk.send(plans)
        result: CommandResult = outcome.result
        effects = outcome.effects
        if result.reload and effects.reload:  # the host reloads after the command itself
            effects = dataclasses.replace(effects, reload=False)
        await self._apply(effects)
        if call.name == "persona" and call.args.split()[:1] == ["status"]:
            collected = self.collect_settings()
            if collected:
                result = msgspec.structs.replace(result, text=f"{result.text}\n{collected}")
            extra = await self.peers.status_lines()
            if extra:
                result = msgspec.structs.replace(result, text="\n".join([result.text, *extra]))
        return result

    def collect_settings(self) -> str:
        """One line of every companion's effective settings (settings:collect:v1).

        Mind contributes its session snapshot (capture, nudge), M-SCOPE-11; a contribution
        that fails is named, never silently dropped."""
        parts: list[str] = []
        for contribution in self.peers.settings():
            if isinstance(contribution, PersonaMindError):
                parts.append(f"(a companion's settings could not be collected: {contribution})")
                continue
            for area, values in sorted(contribution.items()):
                if isinstance(values, Mapping):
                    parts += [f"{area}.{k}={v!r}" for k, v in sorted(values.items())]
        return f"Companion settings: {', '.join(parts)}" if parts else ""

    async def _close(self, session_id: str) -> None:
        """Forget the session here and its plans in the Owner (the binding stays)."""
        plans = await self.plan_desk.for_call(None, self.ctx)
        self.service.close_session(session_id, plans=plans)
        await self.plan_desk.send(plans)

    # -- effects -------------------------------------------------------------------------
    async def _apply(self, effects: Effects) -> None:
        host = self.ports.host
        for custom_type, data in effects.entries:
            await host.append_entry(custom_type, data)
        if effects.identity_changed:
            await self._publish_identity()
        if effects.handoff is not None:
            self.handoff = effects.handoff
        if effects.reload:
            self.reload_pending = True
        if self.ctx is not None and self.ctx.idle:
            await self._when_idle()
        if effects.user_message is not None:
            await host.send_user_message(effects.user_message)

    async def _when_idle(self) -> None:
        """Run a pending handoff, then a pending reload (both only ever when idle)."""
        if self.ctx is None:
            return
        if self.handoff is not None:
            args, self.handoff = self.handoff, None
            plans = await self.plan_desk.for_call(None, self.ctx)
            outcome = await self.service.handle_command(
                self.ctx, CommandCall(name="persona", args=args), plans=plans
            )
            await self.plan_desk.send(plans)
            await self.ports.host.notify(outcome.result.text, outcome.result.level)
            await self._apply(outcome.effects)
            return
        if self.reload_pending:
            self.reload_pending = False
            await self.ports.host.request_reload()

    async def _publish_identity(self) -> None:
        identity = None if self.ctx is None else self.service.active_identity(self.ctx.session_id)
        await self.ports.owner.ask(SetActivePersona(persona=identity))
        # The footer says who is speaking (issue 17): "persona: official/software-team/architect".
        await self.ports.host.set_status("persona", f"persona: {identity}" if identity else None)

    def details(self) -> dict[str, Any]:
        """What ``InspectFeatures`` reports of this half (values, never the objects)."""
        return {
            "ready": self.ready,
            "active": self.active_name(),
            "session_id": None if self.ctx is None else self.ctx.session_id,
            "user_messages": None if self.ctx is None else self.ctx.user_messages,
            "disabled": self.disabled,
        }
