"""The Persona half as a Companion feature: binding, active persona, packs, plans.

It owns the session's :class:`~persona_mind.persona.SessionContext` (user-message count,
branch, idleness) and applies the :class:`~persona_mind.persona.Effects` a handler returns:
entries to the host, a user message, an identity change (a generation bump through the
Owner, which Mind then follows), a reload once idle, or a pending handoff that runs when
the host settles (P-CHAT-PLAN: team switches wait for idle and recheck before reloading).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
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
from persona_mind.messages.owner import OwnerState, SetActivePersona

if TYPE_CHECKING:
    from persona_mind.persona import Effects, PersonaService, SessionContext, TeamSnapshot
    from persona_mind.runtime import Runtime

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

    def __init__(self, runtime: Runtime, service: PersonaService | None = None) -> None:
        self.runtime = runtime
        self._service = service
        self.ctx: SessionContext | None = None
        self.handoff: str | None = None
        self.reload_pending = False
        self.settings_sources: list[Callable[[], Mapping[str, Any]]] = []
        """Companions' effective-settings contributions (settings:collect:v1, M-SCOPE-11)."""
        self.disabled: str | None = None
        """Why the Persona half could not open this session (Mind then refuses, M-COMPANION-7)."""
        self.backend_error: str | None = None
        """Why this session's backend setting is invalid (P-CHILD-6/7); children refuse."""

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

    async def on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        match event:
            case SessionStart():
                from persona_mind.persona import (  # noqa: PLC0415 - first session
                    SessionContext,
                    Workspace,
                    backend_problem,
                )

                if self.ctx is not None and self.ctx.session_id != event.session_id:
                    self.service.close_session(self.ctx.session_id)
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
                self.service.close_session(self.ctx.session_id)
                self.ctx = None
            case _:
                pass
        return None

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult:
        if self.ctx is None:
            return ToolResult(text="persona_pack: no session is active yet", is_error=True)
        outcome = await self.service.handle_tool(self.ctx, call)
        await self._apply(outcome.effects)
        result: ToolResult = outcome.result
        return result

    async def command(self, call: CommandCall, owner: OwnerState) -> CommandResult:
        if self.ctx is None:
            return CommandResult(text="/persona: no session is active yet", level="error")
        outcome = await self.service.handle_command(self.ctx, call)
        result: CommandResult = outcome.result
        effects = outcome.effects
        if result.reload and effects.reload:  # the host reloads after the command itself
            effects = dataclasses.replace(effects, reload=False)
        await self._apply(effects)
        if call.name == "persona" and call.args.split()[:1] == ["status"]:
            collected = self.collect_settings()
            if collected:
                result = msgspec.structs.replace(result, text=f"{result.text}\n{collected}")
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
            outcome = await self.service.handle_command(
                self.ctx, CommandCall(name="persona", args=args)
            )
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
