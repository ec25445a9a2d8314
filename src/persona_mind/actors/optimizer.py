"""The Optimizer actor: consolidation plans in memory, receipt-guarded writes on disk.

It owns the plan registry (mailbox order, no locks) and one IO thread that runs the
:class:`~persona_mind.actors._consolidator.Consolidator`: strict reads for inspection and
staging, and every apply/undo through the receipt engine under the memory -> history ->
store file locks, with the fingerprint CAS, plan lifetime, source expiry and the
generation checked inside the locked mutation step (M-OPTIMIZE-MANUAL-36). The generation
handed down is the one the kernel admitted the request under, so an owner change while an
apply waits for its lock refuses it (M-OPTIMIZE-HISTORY-17, -18).

Why its own engine instead of the Store actor's ``Mutate``: a receipt must be durable
*before* the store rename and settled after it, all under locks held across both files —
one step the Store's single-file ``Mutate`` cannot express. Exclusion against the Store
actor and other processes comes from the kernel ``flock``\\ s both engines take.

Restart contract (docs/actors.md): plans live only in memory and are lost with the
instance (re-stage them); receipts are on disk, so history and undo survive, and a
receipt left prepared by a crash blocks further applies and is listed as needing recovery.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from persona_mind.actors import Actor, ActorRef, ActorSystem, RestartPolicy, ThreadBridge
from persona_mind.actors._consolidator import Consolidator, parse_tier
from persona_mind.actors._review import Record, ReviewContext, run_review
from persona_mind.messages.optimizer import (
    DiscardPlans,
    OptimizeApply,
    OptimizeHistoryList,
    OptimizeInspect,
    OptimizeReview,
    OptimizerMsg,
    OptimizeStage,
    OptimizeUndo,
)
from persona_mind.messages.owner import OwnerChanged
from persona_mind.mind._errors import AccessRefused, InvalidArgument
from persona_mind.mind._optimize_plans import Plan, PlanRegistry
from persona_mind.mind._optimize_review import REVIEW_DEADLINE, ReviewReport, review_targets

if TYPE_CHECKING:
    from persona_mind.mind import MindScope
    from persona_mind.mind._model import Tier
    from persona_mind.mind._optimize_inspect import Inspection
    from persona_mind.mind._optimize_plans import Applied
    from persona_mind.storage import FileSystem, Layout

DEFAULT_OPTIMIZER_ASK_TIMEOUT = 90.0
"""Longer than a 30 s lock wait plus the receipt and store writes."""

__all__ = ("OptimizerActor", "OptimizerClient", "spawn_optimizer")


class OptimizerActor(Actor[OptimizerMsg]):
    """See the module doc. The engine and IO thread are built at the first IO message."""

    def __init__(
        self,
        layout: Layout | Path,
        *,
        fs: FileSystem | None = None,
        lock_timeout: float = 30.0,
        runner: Callable[[], ActorRef[Any] | None] | None = None,
        record: Record | None = None,
    ) -> None:
        self._layout = layout
        self._runner = runner
        self._record = record
        self._fs = fs
        self._lock_timeout = lock_timeout
        self._cons: Consolidator | None = None
        self.bridge: ThreadBridge | None = None
        self.plans = PlanRegistry()
        self.progress: dict[tuple[str, str], tuple[float, str]] = {}  # review cursors

    def _consolidator(self) -> Consolidator:
        if self._cons is None:
            from persona_mind.storage import FileStore, Layout  # noqa: PLC0415 - at first IO

            layout = Layout(self._layout) if isinstance(self._layout, Path) else self._layout
            system = self.system
            engine = FileStore(
                layout,
                fs=self._fs,
                lock_timeout=self._lock_timeout,
                current_generation=lambda: system.generation,
            )
            engine.wall = self.clock.wall
            self._cons = Consolidator(engine)
        return self._cons

    def _io(self) -> ThreadBridge:
        if self.bridge is None:
            self.bridge = ThreadBridge(f"{self.name}-io")
        return self.bridge

    async def on_stop(self) -> None:
        if self.bridge is not None:
            bridge, self.bridge = self.bridge, None
            await bridge.aclose()

    async def receive(self, message: OptimizerMsg) -> object:
        match message:
            case OptimizeInspect():
                cons = self._consolidator()
                return await self._io().call(
                    lambda: cons.inspect(
                        message.scope,
                        parse_tier(message.tier),
                        now=self.clock.wall(),
                        offset=message.offset,
                        limit=message.limit,
                        expect_fingerprint=message.fingerprint,
                    )
                )
            case OptimizeStage():
                return await self._stage(message)
            case OptimizeApply():
                plan = self.plans.take(message.plan, message.owner, self.clock.wall())
                cons, generation = self._consolidator(), self.admitted
                return await self._io().call(
                    lambda: cons.apply(plan, message.scope, generation=generation)
                )
            case OptimizeUndo():
                cons, generation = self._consolidator(), self.admitted
                tier = parse_tier(message.tier)
                return await self._io().call(
                    lambda: cons.undo(message.scope, tier, message.receipt, generation=generation)
                )
            case OptimizeHistoryList():
                cons = self._consolidator()
                tier = parse_tier(message.tier)
                return await self._io().call(
                    lambda: cons.list_history(message.scope, tier, limit=message.limit)
                )
            case OptimizeReview():
                return self._review(message)
            case DiscardPlans():
                self.plans.discard_owner(message.owner)
                return None
            case OwnerChanged():
                self.plans.clear()
                self.progress.clear()  # review progress is session/scope-local
                return None
            case _:
                assert_never(message)

    def _review(self, message: OptimizeReview) -> object:
        """Admit one review batch (single-flight) as deferred work; see ``_review.py``."""
        targets = review_targets(message.scope, message.target)
        if "review" in self.work_keys():
            raise InvalidArgument("optimize.busy", "a review is already running; wait for it")
        runner = self._runner() if self._runner is not None else None
        if runner is None:
            raise AccessRefused(
                "optimize.no_workers", "this runtime has no child runner for worker reviews"
            )
        if not message.model:
            raise InvalidArgument("optimize.no_model", "the session has no model to review with")
        cons, io, generation = self._consolidator(), self._io(), self.admitted

        ctx = ReviewContext(
            cons=cons,
            io=io.call,
            runner=runner,
            clock=self.clock,
            scope=message.scope,
            model=message.model,
            generation=generation,
            record=self._record,
            owner=message.owner,
            progress=self.progress,  # mutated only by the single running batch
        )

        async def work() -> ReviewReport:
            return await run_review(targets, ctx)

        return self.defer("review", work)

    async def _stage(self, message: OptimizeStage) -> Plan:
        cons, tier = self._consolidator(), parse_tier(message.tier)
        now = self.clock.wall()
        self.plans.check_room(message.owner, now)  # refuse before reading the store
        staged = await self._io().call(
            lambda: cons.stage(message.scope, tier, message.operations, now=now)
        )
        return self.plans.add(
            owner=message.owner,
            tier=staged.tier,
            store=staged.store,
            persona=message.scope.persona,
            fingerprint=staged.fingerprint,
            replacements=staged.replacements,
            now=self.clock.wall(),
        )


def spawn_optimizer(
    system: ActorSystem,
    layout: Layout | Path,
    *,
    name: str = "optimizer",
    fs: FileSystem | None = None,
    restart: RestartPolicy | None = None,
    runner: Callable[[], ActorRef[Any] | None] | None = None,
    record: Record | None = None,
) -> ActorRef[OptimizerMsg]:
    """Spawn the Optimizer next to the Store (``layout`` may be the agent directory).

    ``runner`` returns the ChildRunner for worker reviews (spawned at first use);
    ``record`` durably records a worker's before/after proposal before it is applied.
    """
    return system.spawn(
        lambda: OptimizerActor(layout, fs=fs, runner=runner, record=record),
        name=name,
        restart=restart or RestartPolicy(max_restarts=3, within=5.0),
    )


class OptimizerClient:
    """The :class:`~persona_mind.mind._optimize_port.OptimizerPort` over the actor.

    ``ref`` may be a function returning the ref, so the runtime spawns the Optimizer only
    when a session first uses consolidation (start-up stays light).
    """

    def __init__(
        self,
        ref: ActorRef[OptimizerMsg] | Callable[[], ActorRef[OptimizerMsg]],
        *,
        timeout: float = DEFAULT_OPTIMIZER_ASK_TIMEOUT,
    ) -> None:
        self._ref = ref
        self.timeout = timeout

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
        msg = OptimizeReview(owner=owner, scope=scope, target=target, model=model)
        return await self.ref.ask(msg, timeout=REVIEW_DEADLINE * 3 + 120.0)

    def discard(self, owner: str) -> None:
        if isinstance(self._ref, ActorRef):  # never spawn an Optimizer just to discard
            self._ref.tell_if_alive(DiscardPlans(owner=owner))
