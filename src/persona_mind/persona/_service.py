"""PersonaService: the Persona half's state and services for one runtime (host-neutral).

One instance per runtime, owned by the Owner actor: it is the single writer of its
session table, so it needs no locks (mailbox order serialises calls). Persona does no
thread offload, file-IO implementation or clock read of its own: the runtime injects
``offload`` (its one serial blocking-IO executor, the Store actor's IO thread), ``files``
(the durable pack-store port) and ``clock``. The synchronous methods are also usable
directly by the CLI and tests.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import (
    CommandCall,
    CommandSpec,
    CustomEntry,
    PromptInjection,
    ToolCall,
    ToolSpec,
)
from persona_mind.persona._resolver import Resolver
from persona_mind.persona.binding._session import (
    ActivePersona,
    SessionContext,
    SessionState,
    TeamScope,
    alias_names,
    restore_active,
)
from persona_mind.persona.binding._team import TeamSnapshot, resolve_team
from persona_mind.persona.binding._team_binding import Bindings
from persona_mind.persona.packs._model import Pack, PackManifest
from persona_mind.persona.packs._scan import Limits
from persona_mind.persona.packs._store import PackStore
from persona_mind.persona.plans._chat import LocalPlans, PlanDesk
from persona_mind.persona.plans._outcome import CommandOutcome, ToolOutcome
from persona_mind.persona.workspace._files import Workspace
from persona_mind.persona.workspace._migrate import GATED, migration_status

if TYPE_CHECKING:
    from persona_mind.clock import Clock
    from persona_mind.persona.packs._fsio import PackFiles

__all__ = ("NEW_SESSION_REASONS", "Offload", "PersonaService")

T = TypeVar("T")
Offload = Callable[[Callable[[], Any]], Awaitable[Any]]
NEW_SESSION_REASONS = frozenset({"startup", "new"})
"""Reasons under which a session with no record is genuinely new (default applies)."""


class PersonaService:
    """Pack store + bindings + resolver + plans + per-session state."""

    def __init__(
        self,
        agent_dir: Path,
        *,
        files: PackFiles,
        clock: Clock,
        offload: Offload,
        catalog_dir: Path | None = None,
        limits: Limits | None = None,
        plans: PlanDesk | None = None,
    ) -> None:
        self.store = PackStore(
            agent_dir, files=files, clock=clock, catalog_dir=catalog_dir, limits=limits
        )
        self.bindings = Bindings(self.store)
        self.resolver = Resolver()
        self.plans: PlanDesk = plans if plans is not None else LocalPlans()
        """The plans in effect: the service's own book when it is its own owner (CLI,
        tests), or the runtime's per-call desk (``using_plans``) backed by the Owner."""
        self.sessions: dict[str, SessionState] = {}
        self._offload: Offload = offload

    # ---- session lifecycle -------------------------------------------------------------

    def open_session(
        self,
        ctx: SessionContext,
        *,
        reason: str = "startup",
        origin_session_id: str | None = None,
        entries: Sequence[CustomEntry] = (),
    ) -> SessionState:
        """Evaluate the session's team (default, gate, fork inheritance) and restore state."""
        scope = self._evaluate(ctx, reason, origin_session_id)
        state = SessionState(
            session_id=ctx.session_id,
            cwd=Path(ctx.cwd),
            scope=scope,
            active=restore_active(entries, scope),
            aliases=alias_names(scope.pack if scope.runnable else None, ctx.other_commands),
        )
        self.sessions[ctx.session_id] = state
        self._collect_snapshots(ctx.session_id)
        return state

    def _collect_snapshots(self, session_id: str) -> None:
        """Every new session copies its team: ended sessions' copies are collected within
        the documented bound (``Bindings.collect``). Best effort: a busy store or an IO
        error leaves them for the next session start, and never stops this one."""
        self.bindings.touch(session_id)
        with contextlib.suppress(PersonaMindError, OSError):
            self.bindings.collect(self.sessions)

    def close_session(self, session_id: str, *, plans: PlanDesk | None = None) -> None:
        """Forget a session's in-memory state and plans (its binding stays for resume)."""
        self.sessions.pop(session_id, None)
        (plans if plans is not None else self.plans).drop(session_id)
        self.bindings.forget(session_id)

    @contextlib.contextmanager
    def using_plans(self, plans: PlanDesk | None) -> Iterator[None]:
        """Run one call against ``plans`` (the runtime's per-call desk), then restore.

        Calls are serial (the Companion's mailbox, one persona-io thread), so the swap
        is never seen by another call."""
        if plans is None:
            yield
            return
        saved, self.plans = self.plans, plans
        try:
            yield
        finally:
            self.plans = saved

    def _call(self, plans: PlanDesk | None, fn: Callable[..., T], *args: Any) -> T:
        with self.using_plans(plans):
            return fn(self, *args)

    def on_branch(self, ctx: SessionContext, entries: Sequence[CustomEntry]) -> bool:
        """The branch moved: restore the active persona from its entries; True if it changed."""
        state = self.session(ctx)
        before = state.active
        state = self.update(ctx, active=restore_active(entries, state.scope))
        return before != state.active

    def update(self, ctx: SessionContext, **changes: Any) -> SessionState:
        """Replace fields of the session's (immutable) state; the new state."""
        state = dataclasses.replace(self.session(ctx), **changes)
        self.sessions[ctx.session_id] = state
        return state

    def session(self, ctx: SessionContext) -> SessionState:
        """The session's state, opening it (as resumed) if the caller skipped open."""
        state = self.sessions.get(ctx.session_id)
        if state is None:
            state = self.open_session(ctx, reason="resume")
        return state

    def _evaluate(self, ctx: SessionContext, reason: str, origin: str | None) -> TeamScope:
        """Never raises for bad on-disk state: a session always opens, with a note saying
        what is wrong (a corrupt record, receipt or store state) and how to fix it."""
        try:
            return self._evaluate_strict(ctx, reason, origin)
        except (PersonaMindError, OSError) as exc:
            return TeamScope("missing-bound", None, None, f"(cannot read the team state: {exc})")

    def _default(self) -> str | None:
        try:
            return self.store.state().default
        except PersonaMindError:
            return None  # doctor reports the corrupt store state

    def _evaluate_strict(self, ctx: SessionContext, reason: str, origin: str | None) -> TeamScope:
        ws = Workspace(Path(ctx.cwd))
        sid = ctx.session_id
        record = self.bindings.read(sid)
        if record is None and reason == "fork" and origin:
            record = self.bindings.inherit(origin, sid)
        if record is not None and record.state == "bound":
            pack = self.bindings.snapshot(record)
            if pack is None:
                return TeamScope(
                    "missing-bound", None, record, f"(the snapshot of {record.pack} is gone)"
                )
            return TeamScope("bound", pack, record)
        status = migration_status(self.store, ws)
        if status in GATED:
            return TeamScope("migration-required", None, record)
        if record is not None and record.state == "none":
            return TeamScope("none", None, record)
        note = ""
        if record is None and reason in NEW_SESSION_REASONS:
            default = self._default()
            if default:
                try:
                    record = self.bindings.bind(sid, default)
                    return TeamScope("bound", self.bindings.snapshot(record), record)
                except (PersonaMindError, OSError) as exc:
                    note = f"(the default {default} could not be bound: {exc})"
            record = self.bindings.set_state(sid, "unbound")
        if status == "not-legacy" and not self._default():
            legacy = self._legacy_pack(ws)
            if legacy is not None:
                return TeamScope("legacy", legacy, record)
        return TeamScope("unbound", None, record, note)

    @staticmethod
    def _legacy_pack(ws: Workspace) -> Pack | None:
        personas, _ = ws.local_personas()
        if not personas:
            return None
        return Pack(
            source="workspace",
            root=ws.root / ".pi" / "agents",
            manifest=PackManifest(
                schema=2,
                name=ws.key,
                version="0.0.0",
                description="this workspace's own .pi/agents personas",
            ),
            personas=tuple(sorted(personas, key=lambda p: (not p.is_lead, p.name))),
            files=(),
            digest="",
        )

    def rescope(self, ctx: SessionContext, *, keep_active: bool) -> SessionState:
        """Re-evaluate after a team change; keep the active persona only if it still exists."""
        old = self.session(ctx)
        scope = self._evaluate(ctx, "resume", None)
        active = None
        if keep_active and old.active and scope.pack and scope.pack.persona(old.active.name):
            active = ActivePersona(
                name=old.active.name,
                identity=f"{scope.pack.source}/{scope.pack.name}/{old.active.name}",
                pack_ref=scope.pack.ref,
                revision=scope.pack.digest,
            )
        aliases = alias_names(scope.pack if scope.runnable else None, ctx.other_commands)
        state = SessionState(
            session_id=ctx.session_id,
            cwd=Path(ctx.cwd),
            scope=scope,
            active=active,
            aliases=aliases,
            handoff=old.handoff,
            stale_names=(old.stale_names | old.aliases) - aliases,
        )
        self.sessions[ctx.session_id] = state
        return state

    # ---- per-turn services ---------------------------------------------------------------

    def prompt_injection(self, ctx: SessionContext) -> PromptInjection:
        """``before_agent_start``: the active persona's resolved prompt, every turn."""
        state = self.session(ctx)
        if state.active is None or not state.scope.runnable or state.scope.pack is None:
            return PromptInjection()
        try:
            resolved = self.resolver.resolve(
                state.scope.pack, state.active.name, Workspace(Path(ctx.cwd))
            )
        except (PersonaMindError, OSError) as exc:  # fail open, disclosed: the turn still runs
            return PromptInjection(disclosures=(f"persona {state.active.name} unavailable: {exc}",))
        return PromptInjection(sections=(resolved.system_prompt,), disclosures=resolved.warnings)

    def active_persona(self, session_id: str) -> ActivePersona | None:
        """The active persona (name, identity, pack) — e.g. the only valid consult requester."""
        state = self.sessions.get(session_id)
        return state.active if state else None

    def active_identity(self, session_id: str) -> str | None:
        """The pack-qualified identity Mind keys memory by, or ``None`` (DEC-3)."""
        state = self.sessions.get(session_id)
        return state.active.identity if state and state.active else None

    def team_snapshot(self, ctx: SessionContext) -> TeamSnapshot | None:
        """The session's resolved team (names, roles, prompts) for consults/round-tables."""
        state = self.session(ctx)
        if not state.scope.runnable or state.scope.pack is None:
            return None
        return resolve_team(state.scope.pack, Workspace(Path(ctx.cwd)), self.resolver)

    def command_specs(self, ctx: SessionContext) -> tuple[CommandSpec, ...]:
        """`/persona`, `/persona-list` and this session's direct persona aliases."""
        state = self.session(ctx)
        specs = [
            CommandSpec(
                name="persona",
                description="Personas: use, status, clear, team, "
                "default, pack, migrate, onboard, doctor",
            ),
            CommandSpec(name="persona-list", description="List this session's persona team"),
        ]
        pack = state.scope.pack
        for name in sorted(state.aliases):
            persona = pack.persona(name) if pack else None
            desc = persona.description if persona else ""
            specs.append(CommandSpec(name=name, description=f"Persona: {desc}".strip()))
        return tuple(specs)

    def tool_specs(self) -> tuple[ToolSpec, ...]:
        """The `persona_pack` tool."""
        from persona_mind.persona.plans._tool import PERSONA_PACK_TOOL  # noqa: PLC0415 - cycle

        return (PERSONA_PACK_TOOL,)

    # ---- async entry points for the Owner ------------------------------------------------

    async def run(self, fn: Callable[[], T]) -> T:
        """Run blocking persona work off the event loop through the injected offload."""
        result: T = await self._offload(fn)
        return result

    async def handle_command(
        self, ctx: SessionContext, call: CommandCall, *, plans: PlanDesk | None = None
    ) -> CommandOutcome:
        """A slash command → :class:`~persona_mind.persona.CommandOutcome`."""
        from persona_mind.persona._commands import run_command  # noqa: PLC0415 - cycle

        return await self.run(functools.partial(self._call, plans, run_command, ctx, call))

    async def handle_tool(
        self, ctx: SessionContext, call: ToolCall, *, plans: PlanDesk | None = None
    ) -> ToolOutcome:
        """A `persona_pack` call → :class:`~persona_mind.persona.ToolOutcome`."""
        from persona_mind.persona.plans._tool import run_tool  # noqa: PLC0415 - cycle

        return await self.run(functools.partial(self._call, plans, run_tool, ctx, call))

    async def open(self, ctx: SessionContext, **kwargs: Any) -> SessionState:
        """Async :meth:`open_session`."""
        return await self.run(functools.partial(self.open_session, ctx, **kwargs))

    async def injection(self, ctx: SessionContext) -> PromptInjection:
        """Async :meth:`prompt_injection`.

        A session with no active persona injects nothing and needs no file, so it is
        answered here instead of paying a thread hop every turn (issue 10's budget); the
        same check :meth:`prompt_injection` makes first, on the same in-memory state.
        """
        state = self.sessions.get(ctx.session_id)
        if state is not None and state.active is None:
            return PromptInjection()
        return await self.run(functools.partial(self.prompt_injection, ctx))

    async def team(self, ctx: SessionContext) -> TeamSnapshot | None:
        """Async :meth:`team_snapshot`."""
        return await self.run(functools.partial(self.team_snapshot, ctx))
