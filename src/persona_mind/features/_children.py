"""Consults and round-tables as a Companion feature, run on the ChildRunner actor.

Both are slow (child processes), so both answer as :class:`~persona_mind.feature.Background`
work: the Companion's mailbox keeps serving host events, several ``persona_consult`` calls
run side by side (P-CONSULT), and ``/persona-roundtable status`` can inspect a running
round-table (P-ROUNDTABLE progress) while it runs. Children are Mind legs: they get only a
lean objective/LTM injection, read-only tools and no memory tools (M-LEG).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from persona_mind.errors import ChildError
from persona_mind.feature import Background
from persona_mind.messages.host import (
    CommandCall,
    CommandResult,
    CommandSpec,
    DisplayMessage,
    HostEvent,
    ModelSelect,
    PromptInjection,
    SessionStart,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.owner import OwnerState
from persona_mind.runners._child_specs import CONSULT_TOOL, ROUNDTABLE_COMMAND

if TYPE_CHECKING:
    from collections.abc import Callable

    from persona_mind.actors import ActorRef
    from persona_mind.features._mind import MindFeature
    from persona_mind.features._persona import PersonaFeature
    from persona_mind.runners._child_launch import HostState
    from persona_mind.runtime import Runtime

__all__ = ("ChildrenFeature",)


class ChildrenFeature:
    """``persona_consult`` and ``/persona-roundtable``."""

    name = "children"

    def __init__(
        self,
        runtime: Runtime,
        runner: ActorRef[Any] | Callable[[], ActorRef[Any] | None],
        persona: PersonaFeature,
        mind: MindFeature | None,
        *,
        default_model: str | None = None,
        desk: Callable[[], ActorRef[Any] | None] | None = None,
    ) -> None:
        self.runtime = runtime
        self._runner = runner  # the ChildRunner, or a function spawning it at first use
        self.persona = persona
        self.mind = mind
        self.model = default_model
        self.cwd: str | None = None
        self._desk = desk  # the RoundtableDesk: one round-table at a time, by mailbox order
        self.host_state: HostState | None = None

    @property
    def runner(self) -> ActorRef[Any]:
        """The ChildRunner actor, spawned at the first consult or round-table.

        Children need no generation bookkeeping here: the kernel stamps each request with
        the generation it was admitted under and cancels it when a newer one starts.
        """
        runner = self._runner
        if callable(runner):
            spawned = runner()
            if spawned is None:
                raise ChildError("children are off in this runtime (no child backend)")
            self._runner = runner = spawned
        return runner

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        return (CONSULT_TOOL,) if self.persona.ready else ()

    def command_specs(self) -> tuple[CommandSpec, ...]:
        return (ROUNDTABLE_COMMAND,)

    async def on_owner(self, owner: OwnerState) -> None:
        """Nothing to do: the kernel cancels children admitted under an older generation."""

    async def on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        match event:
            case SessionStart():
                self.model = event.model or self.model
                self.cwd = event.cwd
                from persona_mind.runners._child_launch import HostState  # noqa: PLC0415

                # live host state: declared skills/models resolve against it (P-CHILD-13)
                self.host_state = HostState.reported(event.skills, event.models)
            case ModelSelect():
                self.model = event.model
            case _:
                pass
        return None

    async def _lean(self, query: str) -> str:
        return await self.mind.lean_injection(query) if self.mind is not None else ""

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult | Background[ToolResult]:
        from persona_mind.runners.child import (  # noqa: PLC0415 - at the first consult
            handle_consult_tool,
            team_from_snapshot,
        )

        if self.persona.backend_error is not None:  # P-CHILD-6/7: never another backend
            return ToolResult(text=f"persona_consult: {self.persona.backend_error}", is_error=True)
        snapshot = await self.persona.team()
        if snapshot is None:
            return ToolResult(
                text="persona_consult: this session has no team; select one with /persona team",
                is_error=True,
            )
        if self.model is None:
            return ToolResult(text="persona_consult: no model is selected yet", is_error=True)
        team = team_from_snapshot(snapshot, self.host_state)
        model, active = self.model, self.persona.active_name()
        injection = await self._lean(str(call.arguments.get("question", "")))
        runner = self.runner

        async def work() -> ToolResult:
            return await handle_consult_tool(
                runner,
                team,
                call.arguments,
                active=active,
                model=model,
                injection=injection,
                cwd=self.cwd,
            )

        return Background(key="consult", work=work)

    async def command(
        self, call: CommandCall, owner: OwnerState
    ) -> CommandResult | Background[CommandResult]:
        from persona_mind.messages.roundtable_desk import (  # noqa: PLC0415
            RoundtableStatus,
            StartRoundtable,
        )
        from persona_mind.runners._child_errors import RoundtableBusy  # noqa: PLC0415
        from persona_mind.runners.child import (  # noqa: PLC0415 - at the first round-table
            render_progress,
            team_from_snapshot,
        )

        desk = self._desk() if self._desk is not None else None
        if desk is None:
            return CommandResult(text="/persona-roundtable: children are off", level="error")
        query = call.args.strip()
        if query in ("", "status"):
            status = await desk.ask(RoundtableStatus())
            if status.progress is None:
                return CommandResult(
                    text="No round-table has run in this session. "
                    "Usage: /persona-roundtable <question>"
                )
            state = "running" if status.running else "finished"
            return CommandResult(text=f"({state})\n{render_progress(status.progress)}")
        if self.persona.backend_error is not None:  # P-CHILD-6/7: never another backend
            return CommandResult(
                text=f"/persona-roundtable: {self.persona.backend_error}", level="error"
            )
        snapshot = await self.persona.team()
        if snapshot is None:
            return CommandResult(
                text="/persona-roundtable needs a team: select one with /persona team",
                level="error",
            )
        if self.model is None:
            return CommandResult(text="/persona-roundtable: no model is selected", level="error")
        team, model = team_from_snapshot(snapshot, self.host_state), self.model
        injection = await self._lean(query)
        host = self.runtime.host
        start = StartRoundtable(
            team=team, query=query, model=model, injection=injection, cwd=self.cwd
        )

        async def work() -> CommandResult:
            try:
                result = await desk.ask(start, timeout=math.inf)
            except RoundtableBusy:
                return CommandResult(
                    text="A round-table is already running; see /persona-roundtable status",
                    level="warning",
                )
            except ChildError as exc:
                await host.set_status("persona-roundtable", None)
                return CommandResult(text=f"Round-table stopped: {exc}", level="error")
            await host.display(
                DisplayMessage(
                    kind="persona-roundtable",
                    title=f"Round-table: {query}",
                    body=result.synthesis,
                    details={
                        "roster": [list(r) for r in result.roster],
                        "children": result.children,
                    },
                )
            )
            return CommandResult(text=result.synthesis)

        return Background(key="roundtable", work=work)
