"""``persona_mind.Consolidation``: inspect, stage, apply, undo and history of consolidation.

Why a facade: consolidation is the Optimizer actor's (``/mind optimize`` and the ``memory``
tool's ``inspect``/``stage`` in a session go to it), and a program or ``persona-mind memory
optimize`` should reach it the same way, not by driving the storage engine itself.
``Consolidation`` starts the Store actor a session runs and the Optimizer over it, and
binds a scope exactly as :class:`~persona_mind.Memory` does (the project of ``cwd``, an
optional persona identity).  Every file step runs on the Store's IO thread under the
memory → history → store locks, with the fingerprint CAS and a durable receipt
(``docs/optimize.md``).  Refusals raise the typed errors of :mod:`persona_mind.mind`.

Plans live in the Optimizer's memory, ten minutes, at most four per owner; they end with
the facade.  :meth:`Consolidation.apply_operations` is for a caller that does not outlive
its preview (the CLI): it names the plan by its *content* — the operations and the
fingerprint a :meth:`~Consolidation.stage` printed — re-validates them and commits under
the same CAS, so a store changed since the preview is refused exactly like a stale plan.

Example::

    async with Consolidation(cwd=".", persona="official/software-team/architect") as c:
        page = await c.inspect("project")
        plan = await c.stage("project", [{"replace": [...], "with": "..."}])
        done = await c.apply(plan)
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import TYPE_CHECKING, Any

from persona_mind._memory import MemoryOptions
from persona_mind._memory_service import start_store
from persona_mind.clock import Clock
from persona_mind.errors import HostError
from persona_mind.mind import MindScope, NotFound, find_project
from persona_mind.mind._follow import follow_repository

if TYPE_CHECKING:
    from persona_mind.actors import ActorSystem
    from persona_mind.actors.optimizer import OptimizerClient
    from persona_mind.mind import Tier
    from persona_mind.mind.optimize._inspect import Inspection
    from persona_mind.mind.optimize._plans import Applied, Plan

__all__ = ("Consolidation",)


class Consolidation:
    """Consolidation of one scope's stores through the Optimizer actor (see the module doc)."""

    def __init__(
        self,
        options: MemoryOptions | None = None,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        persona: str | None = None,
        clock: Clock | None = None,
        owner: str = "library",
    ) -> None:
        """``options`` names the scope and clock as for ``Memory`` (each keyword given
        overrides its field); ``owner`` names this caller's plans (the Optimizer binds plans
        to an owner)."""
        self.options = MemoryOptions.merged(
            options, agent_dir=agent_dir, cwd=cwd, persona=persona, clock=clock
        )
        self.agent_dir = self.options.agent_path()
        self.cwd = self.options.cwd_path()
        self.persona = self.options.persona
        self.clock: Clock = self.options.clock_or_default()
        self.owner = owner
        self._system: ActorSystem | None = None
        self._optimizer: OptimizerClient | None = None
        self._scope: MindScope | None = None

    async def __aenter__(self) -> Consolidation:
        from persona_mind.actors.optimizer import OptimizerClient, spawn_optimizer  # noqa: PLC0415

        system, store = await start_store(self.agent_dir, self.clock)
        try:
            scope = MindScope(self.agent_dir, self.persona, find_project(self.cwd))
            # an approved repository link picks the project files, as for ``Memory``
            self._scope, _ = await follow_repository(
                store, scope, self.clock.wall(), run_blocking=store.run_io
            )
            self._optimizer = OptimizerClient(spawn_optimizer(system, store))
        except BaseException:
            await system.stop()
            raise
        self._system = system
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        system, self._system, self._optimizer = self._system, None, None
        if system is not None:
            await system.__aexit__(exc_type, exc, tb)

    def _open(self) -> OptimizerClient:
        if self._optimizer is None:
            raise HostError("Consolidation is not open; use `async with Consolidation(...) as c:`")
        return self._optimizer

    @property
    def scope(self) -> MindScope:
        """Agent dir, persona and project whose stores this consolidates."""
        self._open()
        assert self._scope is not None
        return self._scope

    @property
    def default_tier(self) -> Tier:
        """The store a call without a tier means: STM in a project, the persona's LTM in home."""
        return "stm" if self.scope.project is not None else "persona"

    def _tier(self, value: str | None) -> Tier:
        """One consolidation target; a typed refusal names the allowed ones."""
        from persona_mind.actors.optimizer._consolidator import parse_tier  # noqa: PLC0415

        return parse_tier(value or self.default_tier)

    async def inspect(
        self,
        tier: str | None = None,
        *,
        offset: int = 0,
        limit: int | None = None,
        fingerprint: str | None = None,
    ) -> Inspection:
        """One bounded page of a store's safe entries (``fingerprint`` continues a paging)."""
        return await self._open().inspect(
            self.scope,
            self._tier(tier),
            offset=offset,
            limit=limit,
            fingerprint=fingerprint,
        )

    async def stage(self, tier: str | None, operations: object) -> Plan:
        """Validate exact replacements against the current rows; nothing is written."""
        return await self._open().stage(self.owner, self.scope, self._tier(tier), operations)

    async def apply(self, plan: Plan) -> Applied:
        """Commit a staged plan once, under the fingerprint CAS and a durable receipt."""
        return await self._open().apply(self.owner, self.scope, plan.id)

    async def apply_operations(
        self, tier: str | None, operations: object, *, fingerprint: str
    ) -> Applied:
        """Stage ``operations`` and commit them if the store still has ``fingerprint``."""
        from persona_mind.mind.optimize._errors import StaleSnapshot  # noqa: PLC0415

        plan = await self.stage(tier, operations)
        if plan.fingerprint != fingerprint:
            raise StaleSnapshot(
                "plan.stale", "the store changed since this plan was staged; stage it again"
            )
        return await self.apply(plan)

    async def undo(self, receipt: str, tier: str | None = None) -> Applied:
        """Restore the facts an applied receipt replaced (every tier of the scope if none)."""
        optimizer = self._open()
        tiers = [self._tier(tier)] if tier else list(self.scope.tiers())
        for t in tiers:
            try:
                return await optimizer.undo(self.scope, t, receipt)
            except NotFound as missing:
                if missing.rule != "undo.unknown":
                    raise
        raise NotFound("undo.unknown", f"no receipt {receipt!r} in this scope")

    async def history(
        self, tier: str | None = None, *, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """This persona's receipts of one store, newest first, bounded."""
        return await self._open().history(self.scope, self._tier(tier), limit=limit)
