"""The Optimizer actor: consolidation plans in memory, receipt-guarded writes on disk.

It owns the plan registry (mailbox order, no locks). Its file work — strict reads for
inspection and staging, every apply/undo through the receipt engine under the memory ->
history -> store file locks, with the fingerprint CAS, plan lifetime, source expiry and the
generation checked inside the locked step (M-OPTIMIZE-MANUAL-36) — runs as
:class:`~persona_mind.actors.optimizer._consolidator.Consolidator` steps on the Store actor's one IO
thread (``WithEngine``): a receipt durable before the store rename and settled after it is
one multi-file step a single ``Mutate`` cannot express, and the Store stays the only actor
that touches durable files. The generation handed down is the one the kernel admitted the
request under, so an owner change while an apply waits for its lock refuses it
(M-OPTIMIZE-HISTORY-17, -18).

Restart contract (docs/actors.md): plans live only in memory and are lost with the
instance (re-stage them); receipts are on disk, so history and undo survive, and a
receipt left prepared by a crash blocks further applies and is listed as needing recovery.

The runtime spawns it at start; its consolidation rules (Mind, the receipt engine) are
imported by the handlers and its plan registry is built at the first message, so start-up
never loads them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, assert_never

from persona_mind.actors import Actor, ActorRef, ActorSystem, RestartPolicy
from persona_mind.messages.optimizer import (
    DiscardPlans,
    OptimizeAdmissible,
    OptimizeApply,
    OptimizeHistoryList,
    OptimizeInspect,
    OptimizeReview,
    OptimizerMsg,
    OptimizeStage,
    OptimizeUndo,
)
from persona_mind.messages.owner import OwnerChanged

if TYPE_CHECKING:
    from persona_mind.actors.optimizer._consolidator import Consolidator
    from persona_mind.actors.optimizer._review import Record
    from persona_mind.actors.store import StoreClient
    from persona_mind.mind import MindScope
    from persona_mind.mind._model import Tier
    from persona_mind.mind.optimize._inspect import Inspection
    from persona_mind.mind.optimize._plans import Applied, Plan, PlanRegistry
    from persona_mind.mind.optimize._review import ReviewReport
    from persona_mind.storage import FileStore, FileSystem, Layout

R = TypeVar("R")

DEFAULT_OPTIMIZER_ASK_TIMEOUT = 90.0
"""Longer than a 30 s lock wait plus the receipt and store writes."""

__all__ = ("OptimizerActor", "OptimizerClient", "spawn_optimizer")


class OptimizerActor(Actor[OptimizerMsg]):
    """See the module doc. Its file work runs on the Store actor's IO thread."""

    def __init__(
        self,
        store: StoreClient,
        *,
        runner: Callable[[], ActorRef[Any] | None] | None = None,
        record: Record | None = None,
    ) -> None:
        self.store = store
        self._runner = runner
        self._record = record
        self._cons: Consolidator | None = None  # touched only on the Store's IO thread
        self._plans: PlanRegistry | None = None
        self.progress: dict[tuple[str, str], tuple[float, str]] = {}  # review cursors

    @property
    def plans(self) -> PlanRegistry:
        """The staged plans (in memory only), built at the first message."""
        if self._plans is None:
            from persona_mind.mind.optimize._plans import PlanRegistry  # noqa: PLC0415

            self._plans = PlanRegistry()
        return self._plans

    def _with(self, engine: FileStore) -> Consolidator:
        """The Consolidator over the Store's engine (rebuilt if the Store restarted)."""
        from persona_mind.actors.optimizer._consolidator import Consolidator  # noqa: PLC0415

        if self._cons is None or self._cons.engine is not engine:
            safe = self._cons.safe if self._cons is not None else None
            self._cons = Consolidator(engine)
            if safe is not None:
                self._cons.safe = safe  # keep the per-content scan memo
        return self._cons

    async def _run(self, step: Callable[[Consolidator], R]) -> R:
        return await self.store.with_engine(lambda engine: step(self._with(engine)), "optimize")

    async def receive(self, message: OptimizerMsg) -> object:
        # Runs on the event loop: the consolidation rules (which import the scanner) are
        # imported only by the cases that use them, never for OwnerChanged or DiscardPlans
        # (docs/performance.md, "What is imported where").
        match message:
            case OptimizeInspect():
                now, scope = self.clock.wall(), _scope(message.scope)
                return await self._run(
                    lambda cons: cons.inspect(
                        scope,
                        _tier(message.tier),
                        now=now,
                        offset=message.offset,
                        limit=message.limit,
                        expect_fingerprint=message.fingerprint,
                    )
                )
            case OptimizeStage():
                return await self._stage(message)
            case OptimizeApply():
                scope = _scope(message.scope)
                plan = self.plans.take(message.plan, message.owner, self.clock.wall())
                generation = self.admitted
                return await self._run(lambda cons: cons.apply(plan, scope, generation=generation))
            case OptimizeUndo():
                generation, tier = self.admitted, _tier(message.tier)
                scope = _scope(message.scope)
                return await self._run(
                    lambda cons: cons.undo(scope, tier, message.receipt, generation=generation)
                )
            case OptimizeHistoryList():
                tier, scope = _tier(message.tier), _scope(message.scope)
                return await self._run(
                    lambda cons: cons.list_history(scope, tier, limit=message.limit)
                )
            case OptimizeReview():
                return self._review(message)
            case OptimizeAdmissible():
                self._admissible()
                return None
            case DiscardPlans():
                if self._plans is not None:  # nothing staged before the registry exists
                    self._plans.discard_owner(message.owner)
                return None
            case OwnerChanged():
                if self._plans is not None:  # none staged before the registry exists
                    self._plans.clear()
                self.progress.clear()  # review progress is session/scope-local
                return None
            case _:
                assert_never(message)

    def _review(self, message: OptimizeReview) -> object:
        """Admit one review batch (single-flight) as deferred work; see ``_review.py``."""
        from persona_mind.actors.optimizer import _review  # noqa: PLC0415
        from persona_mind.mind._errors import InvalidArgument  # noqa: PLC0415
        from persona_mind.mind.optimize._review import review_targets  # noqa: PLC0415

        scope = _scope(message.scope)
        targets = review_targets(scope, message.target)
        runner = self._admissible()
        if not message.model:
            raise InvalidArgument("optimize.no_model", "the session has no model to review with")
        ctx = _review.ReviewContext(
            io=self._run,
            runner=runner,
            clock=self.clock,
            scope=scope,
            model=message.model,
            generation=self.admitted,
            record=self._record,
            owner=message.owner,
            progress=self.progress,  # mutated only by the single running batch
        )

        async def work() -> ReviewReport:
            return await _review.run_review(targets, ctx)

        return self.defer("review", work)

    def _admissible(self) -> ActorRef[Any]:
        """Single flight and a child runner: the gates a review must pass; the runner."""
        from persona_mind.mind._errors import AccessRefused, InvalidArgument  # noqa: PLC0415

        if "review" in self.work_keys():
            raise InvalidArgument("optimize.busy", "a review is already running; wait for it")
        runner = self._runner() if self._runner is not None else None
        if runner is None:
            raise AccessRefused(
                "optimize.no_workers", "this runtime has no child runner for worker reviews"
            )
        return runner

    async def _stage(self, message: OptimizeStage) -> Plan:
        tier, now, scope = _tier(message.tier), self.clock.wall(), _scope(message.scope)
        self.plans.check_room(message.owner, now)  # refuse before reading the store
        staged = await self._run(lambda cons: cons.stage(scope, tier, message.operations, now=now))
        return self.plans.add(
            owner=message.owner,
            tier=staged.tier,
            store=staged.store,
            persona=scope.persona,
            fingerprint=staged.fingerprint,
            replacements=staged.replacements,
            now=self.clock.wall(),
        )


def _tier(value: object) -> Tier:
    """A request's consolidation target, checked (imports the consolidation rules)."""
    from persona_mind.actors.optimizer._consolidator import parse_tier  # noqa: PLC0415

    return parse_tier(value)


def _scope(value: object) -> MindScope:
    """A request's Mind scope, checked: the protocol carries it opaquely (messages name no
    domain type)."""
    from persona_mind.mind._errors import InvalidArgument  # noqa: PLC0415
    from persona_mind.mind._scope import MindScope  # noqa: PLC0415

    if not isinstance(value, MindScope):
        raise InvalidArgument("optimize.scope", f"not a Mind scope: {type(value).__name__}")
    return value


def spawn_optimizer(
    system: ActorSystem,
    store: StoreClient | Layout | Path,
    *,
    name: str = "optimizer",
    fs: FileSystem | None = None,
    restart: RestartPolicy | None = None,
    runner: Callable[[], ActorRef[Any] | None] | None = None,
    record: Record | None = None,
) -> ActorRef[OptimizerMsg]:
    """Spawn the Optimizer on ``store`` (the runtime's Store actor).

    Given a layout or an agent directory instead (tests, tools), a Store actor for it is
    spawned first, so file work still runs on a Store's IO thread. ``runner`` returns the
    ChildRunner for worker reviews (spawned at first use); ``record`` durably records a
    worker's before/after proposal before it is applied.
    """
    from persona_mind.actors.store import StoreClient, spawn_store  # noqa: PLC0415

    client = (
        store
        if isinstance(store, StoreClient)
        else spawn_store(system, store, name=f"{name}-store", fs=fs)
    )
    return system.spawn(
        lambda: OptimizerActor(client, runner=runner, record=record),
        name=name,
        restart=restart or RestartPolicy(max_restarts=3, within=5.0),
    )


class OptimizerClient:
    """The :class:`~persona_mind.mind.optimize._port.OptimizerPort` over the actor.

    ``ref`` may be a function returning the ref, so the runtime spawns the Optimizer only
    when a session first uses consolidation (start-up stays light).
    """

    def __init__(
        self,
        ref: ActorRef[OptimizerMsg] | Callable[[], ActorRef[OptimizerMsg]],
        *,
        timeout: float = DEFAULT_OPTIMIZER_ASK_TIMEOUT,
        admission: Callable[[], ActorRef[Any] | None] | None = None,
    ) -> None:
        """``admission`` returns the Scheduler: explicit reviews then share its single
        flight with automatic ones (issue 12, M-OPTIMIZE-AUTO-20)."""
        self._ref = ref
        self.timeout = timeout
        self._admission = admission

    @property
    def ref(self) -> ActorRef[OptimizerMsg]:
        if not isinstance(self._ref, ActorRef):
            self._ref = self._ref()
        return self._ref

    async def inspect(
        self,
        scope: MindScope,
        tier: Tier,
        *,
        offset: int = 0,
        limit: int | None = None,
        fingerprint: str | None = None,
    ) -> Inspection:
        msg = OptimizeInspect(
            scope=scope, tier=tier, offset=offset, limit=limit, fingerprint=fingerprint
        )
        return await self.ref.ask(msg, timeout=self.timeout)

    async def stage(self, owner: str, scope: MindScope, tier: Tier, operations: object) -> Plan:
        msg = OptimizeStage(owner=owner, scope=scope, tier=tier, operations=operations)
        return await self.ref.ask(msg, timeout=self.timeout)

    async def apply(self, owner: str, scope: MindScope, plan_id: str) -> Applied:
        msg = OptimizeApply(owner=owner, scope=scope, plan=plan_id)
        return await self.ref.ask(msg, timeout=self.timeout)

    async def undo(self, scope: MindScope, tier: Tier, receipt: str) -> Applied:
        msg = OptimizeUndo(scope=scope, tier=tier, receipt=receipt)
        return await self.ref.ask(msg, timeout=self.timeout)

    async def history(
        self, scope: MindScope, tier: Tier, *, limit: int | None = None
    ) -> list[dict[str, Any]]:
        msg = OptimizeHistoryList(scope=scope, tier=tier, limit=limit)
        return await self.ref.ask(msg, timeout=self.timeout)

    async def review(
        self, owner: str, scope: MindScope, target: str | None, model: str
    ) -> ReviewReport:
        from persona_mind.mind.optimize._review import REVIEW_DEADLINE  # noqa: PLC0415

        scheduler = self._admission() if self._admission is not None else None
        if scheduler is not None:
            from persona_mind.messages.scheduler import ExplicitReview  # noqa: PLC0415

            explicit = ExplicitReview(owner=owner, scope=scope, target=target, model=model)
            return await scheduler.ask(explicit, timeout=REVIEW_DEADLINE * 3 + 150.0)
        msg = OptimizeReview(owner=owner, scope=scope, target=target, model=model)
        return await self.ref.ask(msg, timeout=REVIEW_DEADLINE * 3 + 120.0)

    async def admit_review(self) -> None:
        """Raise the refusal a review would get now (the Scheduler's gates if it admits)."""
        scheduler = self._admission() if self._admission is not None else None
        if scheduler is not None:
            from persona_mind.messages.scheduler import ExplicitAdmissible  # noqa: PLC0415

            await scheduler.ask(ExplicitAdmissible(), timeout=self.timeout)
            return
        await self.ref.ask(OptimizeAdmissible(), timeout=self.timeout)

    def discard(self, owner: str) -> None:
        if isinstance(self._ref, ActorRef):  # never spawn an Optimizer just to discard
            self._ref.tell_if_alive(DiscardPlans(owner=owner))
