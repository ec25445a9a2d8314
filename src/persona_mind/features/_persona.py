"""The Persona half as a Companion feature: binding, active persona, packs, plans.

The session's state is the Owner's (a :class:`~persona_mind.persona.PersonaSession`: the
active persona, the team snapshot in use, the user-message count, branch and idleness, a
pending hand-off) and so are the chat plans: this feature keeps a per-call view of them,
sends every change to the Owner before the host sees the answer, and a feature built for a
restarted Companion recovers the view from the Owner. It applies the
:class:`~persona_mind.persona.Effects` a handler returns:
entries to the host, a user message, an identity change (a generation bump through the
Owner, which Mind then follows), a reload once idle, or a pending handoff that runs when
the host settles (P-CHAT-PLAN: team switches wait for idle and recheck before reloading).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.errors import PersonaMindError
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
    DropPlans,
    GetPersonaSession,
    IssuePlan,
    OwnerState,
    Plan,
    PutPersonaSession,
    SetActivePersona,
    TakePlan,
)

if TYPE_CHECKING:
    from persona_mind.persona import (
        Effects,
        OwnerPlans,
        PersonaService,
        PersonaSession,
        PlanNeed,
        SessionContext,
        TeamSnapshot,
    )
    from persona_mind.runtime import Runtime

__all__ = ("PersonaFeature",)


class _HeldByOwner:
    """The service's plan desk between calls: the plans live in the Owner, so any use
    outside a call that was given the Owner's answers is a bug, reported as one."""

    def _refuse(self) -> PersonaMindError:
        return PersonaMindError("persona plans are held by the Owner; ask it (IssuePlan/TakePlan)")

    def issue(self, plan: Plan) -> None:
        raise self._refuse()

    def take(self, plan_id: str, session_id: str, user_messages: int) -> Plan:
        raise self._refuse()

    def drop(self, session_id: str, action_prefix: str | None = None) -> int:
        raise self._refuse()


_BASE_COMMANDS = (
    CommandSpec(name="persona", description="Personas: use, status, clear, team, pack, onboard"),
    CommandSpec(name="persona-list", description="List this session's persona team"),
)


class PersonaFeature:
    """Adapts :class:`PersonaService` to the Companion's feature port."""

    name = "persona"
    companion_version: tuple[int, ...] = (1, 17, 5)
    """The Persona contract this half implements, answered to Mind (M-COMPANION-4/6)."""

    def __init__(self, runtime: Runtime, service: PersonaService | None = None) -> None:
        self.runtime = runtime
        self._service = service
        self.ctx: SessionContext | None = None
        self.handoff: str | None = None
        self.reload_pending = False
        self.settings_sources: list[Callable[[], Mapping[str, Any]]] = []
        """Companions' effective-settings contributions (settings:collect:v1, M-SCOPE-11)."""
        self.status_sources: list[Callable[[], Awaitable[str]]] = []
        """Other features' lines for ``/persona status`` (the children's costs, issue 26)."""
        self.subcommands: dict[str, Callable[[str], Awaitable[CommandResult]]] = {}
        """``/persona <word> …`` answered by another feature (``decisions``: children)."""
        self.disabled: str | None = None
        """Why the Persona half could not open this session (Mind then refuses, M-COMPANION-7)."""
        self.backend_error: str | None = None
        """Why this session's backend setting is invalid (P-CHILD-6/7); children refuse."""
        self._held: PersonaSession | None = None
        """The value the Owner holds for this session, as last read or sent."""

    @property
    def service(self) -> PersonaService:
        """The Persona service, built at first use (the first session event).

        Until a session starts the feature only offers its base commands, so the runtime
        becomes ready without importing the Persona package (YAML, packs, catalog).
        """
        if self._service is None:
            from persona_mind.persona import PersonaService  # noqa: PLC0415 - first session

            runtime = self.runtime
            self._service = PersonaService(
                runtime.agent_dir,
                files=runtime.pack_files,  # the durable port (issue 10: no IO of its own)
                clock=runtime.clock,
                offload=runtime.offload,  # the Store's one serial IO thread
                plans=_HeldByOwner(),
            )
        return self._service

    # -- what the rest of the runtime reads --------------------------------------------
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
        return None if self.ctx is None else await self.service.team(self.ctx)

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
        held = await self.runtime.owner_ref.ask(GetPersonaSession())
        if held is None or held.session_id != start.session_id:
            # The crash came before this session's state reached the Owner (mid session
            # start): open it as the start did, from the retained binding and the branch.
            entries = tuple(await self.runtime.host.branch_entries())
            await self.on_event(msgspec.structs.replace(start, entries=entries), owner)
            return
        self.ctx = held.context()
        if held.state is not None:
            self.service.sessions[held.session_id] = held.state
        self.handoff, self.reload_pending = held.handoff, held.reload_pending
        self.disabled, self.backend_error = held.disabled, held.backend_error
        self._held = held

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

    async def _save(self) -> None:
        """Send the session's state to the Owner when it changed (before the host's answer,
        so a Companion that crashes after this call resumes from it)."""
        value = self._value()
        if value != self._held:
            await self.runtime.owner_ref.ask(PutPersonaSession(session=value))
            self._held = value

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
                problem = await self.runtime.offload(
                    functools.partial(backend_problem, Workspace(Path(event.cwd)))
                )
                # P-CHILD-6/7: an invalid backend setting is a start-up error, and no child
                # runs on a backend the user did not choose until it is fixed.
                self.backend_error = problem
                if problem is not None:
                    await self.runtime.host.notify(
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
                    await self.runtime.host.notify(f"persona: {exc}", "error")
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

        plans = await self._plans_for(tool_plan_needs(call))
        outcome = await self.service.handle_tool(self.ctx, call, plans=plans)
        await self._send_plans(plans)
        await self._apply(outcome.effects)
        result: ToolResult = outcome.result
        return result

    async def _command(self, call: CommandCall) -> CommandResult:
        if self.ctx is None:
            return CommandResult(text="/persona: no session is active yet", level="error")
        head, _, rest = call.args.strip().partition(" ")
        if call.name == "persona" and head in self.subcommands:
            return await self.subcommands[head](rest.strip())
        from persona_mind.persona import command_plan_needs  # noqa: PLC0415 - loaded by now

        plans = await self._plans_for(command_plan_needs(call))
        outcome = await self.service.handle_command(self.ctx, call, plans=plans)
        await self._send_plans(plans)
        result: CommandResult = outcome.result
        effects = outcome.effects
        if result.reload and effects.reload:  # the host reloads after the command itself
            effects = dataclasses.replace(effects, reload=False)
        await self._apply(effects)
        if call.name == "persona" and call.args.split()[:1] == ["status"]:
            collected = self.collect_settings()
            if collected:
                result = msgspec.structs.replace(result, text=f"{result.text}\n{collected}")
            extra = [line for source in self.status_sources if (line := await source())]
            if extra:
                result = msgspec.structs.replace(result, text="\n".join([result.text, *extra]))
        return result

    def collect_settings(self) -> str:
        """One line of every companion's effective settings (settings:collect:v1).

        Mind contributes its session snapshot (capture, nudge), M-SCOPE-11; a contribution
        that fails is named, never silently dropped."""
        parts: list[str] = []
        for source in self.settings_sources:
            try:
                contribution = source()
            except PersonaMindError as exc:
                parts.append(f"(a companion's settings could not be collected: {exc})")
                continue
            for area, values in sorted(contribution.items()):
                if isinstance(values, Mapping):
                    parts += [f"{area}.{k}={v!r}" for k, v in sorted(values.items())]
        return f"Companion settings: {', '.join(parts)}" if parts else ""

    # -- plans (held by the Owner) -------------------------------------------------------
    async def _plans_for(self, need: PlanNeed | None) -> OwnerPlans:
        """A per-call plan desk holding the Owner's answer to what the call needs."""
        from persona_mind.persona import OwnerPlans, PlanRefused  # noqa: PLC0415

        plans = OwnerPlans()
        if need is None or self.ctx is None:
            return plans
        owner, sid = self.runtime.owner_ref, self.ctx.session_id
        if need.kind == "take":
            ask = TakePlan(
                plan_id=need.plan_id, session_id=sid, user_messages=self.ctx.user_messages
            )
            try:
                plans.taken[need.plan_id] = await owner.ask(ask)
            except PlanRefused as exc:  # raised where the handler takes it, as before
                plans.taken[need.plan_id] = exc
        else:
            key = (sid, need.action_prefix)
            plans.dropped[key] = await owner.ask(DropPlans(session_id=sid, action_prefix=key[1]))
        return plans

    async def _send_plans(self, plans: OwnerPlans) -> None:
        """What the call issued or dropped, to the Owner (before the host sees the answer)."""
        owner = self.runtime.owner_ref
        for plan in plans.issued:
            await owner.ask(IssuePlan(plan=plan))
        for session_id, prefix in plans.drops:
            await owner.ask(DropPlans(session_id=session_id, action_prefix=prefix))

    async def _close(self, session_id: str) -> None:
        """Forget the session here and its plans in the Owner (the binding stays)."""
        plans = await self._plans_for(None)
        self.service.close_session(session_id, plans=plans)
        await self._send_plans(plans)

    # -- effects -------------------------------------------------------------------------
    async def _apply(self, effects: Effects) -> None:
        host = self.runtime.host
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
            plans = await self._plans_for(None)
            outcome = await self.service.handle_command(
                self.ctx, CommandCall(name="persona", args=args), plans=plans
            )
            await self._send_plans(plans)
            await self.runtime.host.notify(outcome.result.text, outcome.result.level)
            await self._apply(outcome.effects)
            return
        if self.reload_pending:
            self.reload_pending = False
            await self.runtime.host.request_reload()

    async def _publish_identity(self) -> None:
        identity = None if self.ctx is None else self.service.active_identity(self.ctx.session_id)
        await self.runtime.owner_ref.ask(SetActivePersona(persona=identity))
        # The footer says who is speaking (issue 17): "persona: official/software-team/architect".
        await self.runtime.host.set_status("persona", f"persona: {identity}" if identity else None)

    def details(self) -> dict[str, Any]:
        return {"ready": self.ready, "active": self.active_name()}
