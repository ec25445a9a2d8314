"""One explicit review batch: sequential targets, one worker child each, strict validation.

Runs as the Optimizer's deferred work (its mailbox stays free; a newer owner generation
cancels it, and with it the child, so no stale report is emitted — M-OPTIMIZE-BATCH-20,
-28). Per target (M-OPTIMIZE-BATCH-11..17): inspect one bounded page, form the worker's
window or report a typed no-input reason, run one ``worker`` child through the ChildRunner
(the exact session model, no tools, one 180 s deadline shared by the single retry that
syntactically invalid JSON earns — tenacity), parse strictly, stage the proposal with the
manual rules and apply it through the same CAS + receipt path. Skipped tiers and reviewed
no-ops continue the batch; a refusal or failure stops it and the report lists the tiers
not examined. Diagnostics carry the run id and model, never worker output or records.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from persona_mind.actors.kernel._ref import ActorRef
from persona_mind.actors.optimizer._consolidator import Consolidator
from persona_mind.clock import Clock
from persona_mind.errors import PersonaMindError
from persona_mind.messages.child import ChildPersona, ChildRequest, ChildUsage
from persona_mind.messages.runner import RunChild
from persona_mind.mind import MindScope
from persona_mind.mind._errors import MindRefusal
from persona_mind.mind._model import Tier
from persona_mind.mind.optimize._plans import Plan, PlanRegistry
from persona_mind.mind.optimize._review import (
    REVIEW_DEADLINE,
    WORKER_SYSTEM_PROMPT,
    NoInput,
    ReviewInput,
    ReviewReport,
    TargetOutcome,
    WorkerJsonInvalid,
    WorkerOutputRefused,
    parse_worker_output,
    review_input,
    review_prompt,
)

__all__ = ("WORKER_PERSONA", "Record", "ReviewContext", "run_review")

Io = Callable[[Callable[["Consolidator"], Any]], Awaitable[Any]]
"""Runs a step with the Consolidator on the Store actor's IO thread."""
Record = Callable[[dict[str, Any]], Awaitable[None]]

WORKER_PERSONA = ChildPersona(
    name="mind-optimizer",
    qualified_id="persona-mind/optimizer",
    role="specialist",
    system_prompt=WORKER_SYSTEM_PROMPT,
    tools=(),
)


async def _ask_worker(
    runner: ActorRef[Any],
    clock: Clock,
    window: ReviewInput,
    model: str,
    run_id: str,
    spent: list[ChildUsage],
) -> list[dict[str, Any]]:
    started = clock.monotonic()
    attempt_no = 0
    async for attempt in AsyncRetrying(
        stop=stop_after_attempt(2),
        retry=retry_if_exception_type(WorkerJsonInvalid),
        reraise=True,
    ):
        with attempt:
            attempt_no += 1
            remaining = REVIEW_DEADLINE - (clock.monotonic() - started)
            if remaining <= 0:
                raise WorkerOutputRefused(
                    "worker.deadline", "the retry found no time left of the 180 s deadline"
                )
            request = ChildRequest(
                request_id=f"{run_id}-{window.tier}-{attempt_no}",
                kind="worker",
                persona=WORKER_PERSONA,
                prompt=review_prompt(window),
                model=model,
                deadline=remaining,
            )
            reply = await runner.ask(RunChild(request=request), timeout=remaining + 30.0)
            spent.append(reply.usage)  # a retried attempt's tokens were spent too
            return parse_worker_output(reply.text, window)
    raise AssertionError("unreachable")  # pragma: no cover - tenacity re-raises


@dataclass(frozen=True, slots=True)
class ReviewContext:
    """What one batch runs with (the Optimizer builds it at admission)."""

    io: Io
    runner: ActorRef[Any]
    clock: Clock
    scope: MindScope
    model: str
    generation: int
    record: Record | None = None
    owner: str = ""
    progress: dict[tuple[str, str], tuple[float, str]] = field(default_factory=dict)
    """Where the next review of (owner, target) continues; only completed reviews move it
    (M-OPTIMIZE-WORKER-9, -10). Owned by the single running batch."""
    spent: list[ChildUsage] = field(default_factory=list)
    """Each worker reply's usage, for the report (owned by this batch)."""


def _card(run_id: str, plan: Plan) -> dict[str, Any]:
    """The operator card recorded before applying (M-OPTIMIZE-WORKER-21)."""
    return {
        "kind": "persona-mind-optimize-proposal",
        "run": run_id,
        "tier": plan.tier,
        "before": [[f.id, f.text] for f in plan.before],
        "after": [[f.id, f.text] for f in plan.after],
    }


async def _one(tier: Tier, ctx: ReviewContext, run_id: str) -> TargetOutcome:
    io, clock, scope = ctx.io, ctx.clock, ctx.scope
    key = (ctx.owner, tier)
    after = ctx.progress.get(key)
    page = await io(lambda cons: cons.inspect(scope, tier, now=clock.wall(), after=after))
    if not page.entries and after is not None:  # past the newest page: start over
        page = await io(lambda cons: cons.inspect(scope, tier, now=clock.wall()))
    window = review_input(page)
    if isinstance(window, NoInput):
        return TargetOutcome(tier, "no-input", window.lines())
    try:
        ops = await _ask_worker(ctx.runner, clock, window, ctx.model, run_id, ctx.spent)
    except MindRefusal as exc:
        return TargetOutcome(tier, "refused", (f"worker answer refused ({exc.rule})",))
    except PersonaMindError as exc:
        return TargetOutcome(tier, "failed", (f"worker failed: {type(exc).__name__}",))
    if not ops:
        _advance(ctx, key, window)
        return TargetOutcome(tier, "reviewed-no-op", ("the worker proposed no change",))
    try:
        staged = await io(
            lambda cons: cons.stage(scope, tier, ops, now=clock.wall(), writer="review")
        )
        if staged.fingerprint != window.fingerprint:
            return TargetOutcome(tier, "refused", ("the store changed during the review",))
        plan = PlanRegistry().add(
            owner=run_id,
            tier=tier,
            store=staged.store,
            persona=scope.persona,
            fingerprint=window.fingerprint,
            replacements=staged.replacements,
            now=clock.wall(),
        )
        if ctx.record is not None:
            await ctx.record(_card(run_id, plan))  # durable before the apply; a failure stops
        done = await io(lambda cons: cons.apply(plan, scope, generation=ctx.generation))
    except MindRefusal as exc:
        return TargetOutcome(tier, "refused", (f"proposal refused ({exc.rule})",))
    except PersonaMindError as exc:
        return TargetOutcome(tier, "failed", (f"apply failed: {type(exc).__name__}",))
    _advance(ctx, key, window)
    return TargetOutcome(tier, "applied", (f"receipt {done.receipt}",), done)


def _advance(ctx: ReviewContext, key: tuple[str, str], window: ReviewInput) -> None:
    """A completed review moves this target's cursor (a cancelled or failed one never)."""
    if window.next_cursor is None:
        ctx.progress.pop(key, None)
    else:
        ctx.progress[key] = window.next_cursor


async def run_review(targets: tuple[Tier, ...], ctx: ReviewContext) -> ReviewReport:
    """Review ``targets`` in order; stop at the first refused or failed one."""
    run_id = "rv_" + secrets.token_hex(4)
    outcomes: list[TargetOutcome] = []
    for n, tier in enumerate(targets):
        outcome = await _one(tier, ctx, run_id)
        outcomes.append(outcome)
        if outcome.status in ("refused", "failed"):  # M-OPTIMIZE-BATCH-17
            return ReviewReport(run_id, ctx.model, tuple(outcomes), targets[n + 1 :], _spent(ctx))
    return ReviewReport(run_id, ctx.model, tuple(outcomes), usage=_spent(ctx))


def _spent(ctx: ReviewContext) -> ChildUsage:
    return sum(ctx.spent, ChildUsage())
