"""Consults and round-tables as a Companion feature, run on the ChildRunner actor.

``/persona-roundtable <q>`` asks the session's lead — the main session, by a user message —
to select specialists through exactly one ``persona_roundtable`` tool call (P-ROUNDTABLE-2,
-4). The tool is offered from that moment, its schema naming this team's specialists; a
call whose selection does not validate is an error result the lead may correct (at most
:data:`MAX_INVALID_SELECTIONS` times, never a lexical guess), the first valid one is
accepted and runs the round-table with a live display, and any later call is refused.

Both are slow (child processes), so both answer as :class:`~persona_mind.feature.Background`
work: the Companion's mailbox keeps serving host events, several ``persona_consult`` calls
run side by side (P-CONSULT), and ``/persona-roundtable status`` can inspect a running
round-table (P-ROUNDTABLE progress) while it runs. Children are Mind legs: they get only a
lean objective/LTM injection, read-only tools and no memory tools (M-LEG).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.errors import ChildError
from persona_mind.feature import Background
from persona_mind.features._child_specs import (
    CONSULT_TOOL,
    ROUNDTABLE_COMMAND,
    ROUNDTABLE_TOOL_NAME,
    roundtable_tool,
)
from persona_mind.messages.host import (
    CommandCall,
    CommandResult,
    CommandSpec,
    HostEvent,
    ModelSelect,
    PromptInjection,
    SessionStart,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.messages.owner import OwnerState

if TYPE_CHECKING:
    from collections.abc import Mapping

    from persona_mind.actors import ActorRef
    from persona_mind.feature import Peers, PersonaStatus, Subcommand
    from persona_mind.features._ports import Ports
    from persona_mind.messages.child import ChildTeam
    from persona_mind.messages.roundtable_progress import RoundtableResult
    from persona_mind.persona import HostState

__all__ = ("MAX_INVALID_SELECTIONS", "ChildrenFeature")

MAX_INVALID_SELECTIONS = 3
"""Invalid ``persona_roundtable`` calls a request survives before it is dropped."""


class _Asked(msgspec.Struct):
    """A ``/persona-roundtable`` request waiting for (or past) the lead's one tool call."""

    query: str
    team: ChildTeam
    model: str
    injection: str
    accepted: bool = False
    invalid: int = 0


class ChildrenFeature:
    """``persona_consult`` and ``/persona-roundtable``."""

    name = "children"

    def __init__(self, ports: Ports, peers: Peers, *, default_model: str | None = None) -> None:
        """``peers`` is the Companion: the Persona half's status and team, Mind's lean
        context for the legs come from it."""
        self.ports = ports
        self.peers = peers
        self.model = default_model
        self.cwd: str | None = None
        self.host_state: HostState | None = None
        self.asked: _Asked | None = None  # the round-table request the lead answers
        self.session_since = 0
        """The owner generation this session started under: its children's costs count
        from there (a Companion restarted mid-session counts from the one it resumed at)."""

    @property
    def runner(self) -> ActorRef[Any]:
        """The ChildRunner actor.

        Children need no generation bookkeeping here: the kernel stamps each request with
        the generation it was admitted under and cancels it when a newer one starts.
        """
        runner = self.ports.child_runner
        if runner is None:
            raise ChildError("children are off in this runtime (no child backend)")
        return runner

    def _persona(self) -> PersonaStatus | None:
        """The Persona half's live status, asked through the Companion."""
        found = self.peers.persona_status()
        return found[0] if found else None

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        persona = self._persona()
        specs = (CONSULT_TOOL,) if persona is not None and persona.ready else ()
        if self.asked is not None:  # offered once asked; later calls get a clear refusal
            names = tuple(p.name for p in self.asked.team.specialists)
            specs = (*specs, roundtable_tool(names))
        return specs

    def command_specs(self) -> tuple[CommandSpec, ...]:
        return (ROUNDTABLE_COMMAND,)

    async def on_owner(self, owner: OwnerState) -> None:
        """Drop a waiting round-table request: it was made for another session or persona.

        Running children need nothing here: the kernel cancels work admitted under an
        older generation."""
        self.asked = None

    async def on_event(self, event: HostEvent, owner: OwnerState) -> PromptInjection | None:
        match event:
            case SessionStart():
                self.asked = None
                self.session_since = owner.generation
                self.model = event.model or self.model
                self.cwd = event.cwd
                from persona_mind.persona import HostState  # noqa: PLC0415

                # live host state: declared skills/models resolve against it (P-CHILD-13)
                self.host_state = HostState.reported(event.skills, event.models)
            case ModelSelect():
                self.model = event.model
            case _:
                pass
        return None

    async def _lean(self, query: str) -> str:
        return await self.peers.lean_injection(query)

    async def tool(self, call: ToolCall, owner: OwnerState) -> ToolResult | Background[ToolResult]:
        if call.name == ROUNDTABLE_TOOL_NAME:
            return self._roundtable_call(call, owner)
        from persona_mind.features._consult import (  # noqa: PLC0415 - at the first consult
            handle_consult_tool,
        )
        from persona_mind.persona import team_from_snapshot  # noqa: PLC0415

        persona = self._persona()
        if persona is not None and persona.backend_error is not None:  # P-CHILD-6/7
            return ToolResult(text=f"persona_consult: {persona.backend_error}", is_error=True)
        snapshot = await self.peers.team()
        if snapshot is None:
            return ToolResult(
                text="persona_consult: this session has no team; select one with /persona team",
                is_error=True,
            )
        if self.model is None:
            return ToolResult(text="persona_consult: no model is selected yet", is_error=True)
        team = team_from_snapshot(snapshot, self.host_state)
        model, active = self.model, None if persona is None else persona.active
        injection = await self._lean(str(call.arguments.get("question", "")))
        runner, sink = self.runner, self.peers.untrusted_sink()

        async def work() -> ToolResult:
            result = await handle_consult_tool(
                runner,
                team,
                call.arguments,
                active=active,
                model=model,
                injection=injection,
                cwd=self.cwd,
            )
            if not result.is_error:  # the whole answer, not only Pi's forwarded head
                sink("peer", result.text)
            return result

        return Background(key="consult", work=work)

    async def command(
        self, call: CommandCall, owner: OwnerState
    ) -> CommandResult | Background[CommandResult]:
        from persona_mind.messages.roundtable_desk import (  # noqa: PLC0415
            RoundtableStatus,
        )
        from persona_mind.persona import team_from_snapshot  # noqa: PLC0415
        from persona_mind.persona.children._progress import render_progress  # noqa: PLC0415
        from persona_mind.persona.children._roundtable import lead_request  # noqa: PLC0415

        desk = self.ports.roundtables
        if desk is None:
            return CommandResult(text="/persona-roundtable: children are off", level="error")
        query = call.args.strip()
        if query in ("", "status"):
            status = await desk.ask(RoundtableStatus())
            asked = self.asked
            if asked is not None and not asked.accepted and not status.running:
                lead = asked.team.lead.name if asked.team.lead else "the lead"
                return CommandResult(
                    text=f"Waiting for the team lead ({lead}) to select specialists with "
                    f"persona_roundtable for: {asked.query}"
                )
            if status.progress is None:
                return CommandResult(
                    text="No round-table has run in this session. "
                    "Usage: /persona-roundtable <question>"
                )
            state = "running" if status.running else "finished"
            return CommandResult(text=f"({state})\n{render_progress(status.progress)}")
        persona = self._persona()
        if persona is not None and persona.backend_error is not None:  # P-CHILD-6/7
            return CommandResult(
                text=f"/persona-roundtable: {persona.backend_error}", level="error"
            )
        snapshot = await self.peers.team()
        if snapshot is None:
            return CommandResult(
                text="/persona-roundtable needs a team: select one with /persona team",
                level="error",
            )
        if self.model is None:
            return CommandResult(text="/persona-roundtable: no model is selected", level="error")
        team, model = team_from_snapshot(snapshot, self.host_state), self.model
        if team.lead is None or not team.specialists:
            return CommandResult(
                text=f"/persona-roundtable: team {team.pack} needs one [G] lead and at least "
                "one specialist",
                level="error",
            )
        if (await desk.ask(RoundtableStatus())).running:
            return CommandResult(
                text="A round-table is already running; see /persona-roundtable status",
                level="warning",
            )
        injection = await self._lean(query)
        self.asked = _Asked(query=query, team=team, model=model, injection=injection)
        host, request = self.ports.host, lead_request(team, query)

        async def ask_lead() -> CommandResult:
            # after the reply: the Companion has registered persona_roundtable by then
            await host.send_user_message(request)
            return CommandResult(text="")

        return Background(
            key="roundtable-ask",
            work=ask_lead,
            reply=CommandResult(
                text=f"Round-table: asked the team lead ({team.lead.name}) to select "
                f"specialists for: {query}"
            ),
        )

    async def status_line(self) -> str:
        """``/persona status``: what this session's children cost, per persona."""
        from persona_mind.features._decisions import spend_status  # noqa: PLC0415

        return await spend_status(self.ports.child_runner, self.session_since)

    async def decisions(self, args: str) -> CommandResult:
        """``/persona decisions [query]``: this project's round-table decision records."""
        from persona_mind.features._decisions import list_decisions  # noqa: PLC0415

        return await list_decisions(self.peers.memory_service(), args)

    def persona_subcommands(self) -> Mapping[str, Subcommand]:
        """``/persona decisions [query]`` is answered here (the records are Mind memory)."""
        return {"decisions": self.decisions}

    def _roundtable_call(
        self, call: ToolCall, owner: OwnerState
    ) -> ToolResult | Background[ToolResult]:
        """The lead's ``persona_roundtable`` call: validate, accept once, run (see module)."""
        from persona_mind.child_errors import SelectionInvalid  # noqa: PLC0415
        from persona_mind.features._roundtable_call import run_roundtable_call  # noqa: PLC0415
        from persona_mind.messages.roundtable_desk import StartRoundtable  # noqa: PLC0415
        from persona_mind.persona.children._roundtable import validate_selection  # noqa: PLC0415

        asked = self.asked
        if asked is None:
            return _refused(
                "no round-table is waiting for a selection; the user starts one with "
                "/persona-roundtable <question>"
            )
        if asked.accepted:
            return _refused(
                "this round-table's selection was already accepted: persona_roundtable takes "
                "exactly one call per round-table; present its synthesis when it arrives"
            )
        try:
            query, picks = validate_selection(call.arguments, asked.team)
        except SelectionInvalid as exc:
            asked.invalid += 1
            left = MAX_INVALID_SELECTIONS - asked.invalid
            if left <= 0:
                self.asked = None
                return _refused(
                    f"{exc}. The round-table was dropped after {MAX_INVALID_SELECTIONS} "
                    "invalid selections: tell the user; /persona-roundtable starts a new one"
                )
            return _refused(f"{exc}. Correct the selection and call again ({left} left).")
        desk = self.ports.roundtables
        if desk is None:
            return _refused("children are off in this runtime")
        asked.accepted = True
        start = StartRoundtable(
            team=asked.team,
            query=query,
            model=asked.model,
            injection=asked.injection,
            cwd=self.cwd,
            selection=tuple((persona.name, reason) for persona, reason in picks),
        )
        host, call_id = self.ports.host, call.call_id
        service, session_file = self.peers.memory_service(), owner.session_file
        sink = self.peers.untrusted_sink()

        async def record(result: RoundtableResult) -> str:
            from persona_mind.features._decisions import record_decision  # noqa: PLC0415

            return await record_decision(
                service, result, session_file=session_file, call_id=call_id
            )

        async def work() -> ToolResult:
            return await run_roundtable_call(desk, host, call_id, start, record, sink)

        return Background(key="roundtable", work=work)


def _refused(text: str) -> ToolResult:
    return ToolResult(text=f"persona_roundtable: {text}", is_error=True)
