"""An automatic-review attempt's work: the Optimizer asks it makes, and what each outcome says.

The Scheduler (``actors/scheduler.py``) admits an attempt and runs it as background work in
two steps: a probe of its targets' fingerprints (the semantic digest, AUTO-23), then one
``OptimizeReview`` per target and a second probe. Each step ends as a message back to the
Scheduler's own mailbox, whatever happened — a result, a failure, a cancellation — so the
schedule changes only in its handlers. This module is that work seen from outside the
actor: the asks, their bounds, and the mapping from a work outcome to the message. It holds
no state; the Scheduler's handlers decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from persona_mind.actors import ActorRef, Cancelled, Failed, Ok
from persona_mind.messages.optimizer import OptimizeInspect
from persona_mind.messages.scheduler import AttemptEnded, AttemptProbed, SchedulerMsg

if TYPE_CHECKING:
    from persona_mind.actors.kernel._work import Outcome
    from persona_mind.mind._model import Tier

__all__ = (
    "INSPECT_TIMEOUT",
    "Fingerprints",
    "fingerprints",
    "probe_outcome",
    "review_outcome",
    "review_timeout",
)

INSPECT_TIMEOUT = 90.0
"""Bound of one fingerprint ask (a one-row inspection page)."""

Fingerprints = tuple[tuple[str, str], ...]
"""``(tier, fingerprint)`` per target, in target order."""


def review_timeout() -> float:
    """Three worker deadlines plus margin: an ask to the Optimizer for one review."""
    from persona_mind.mind.optimize._review import REVIEW_DEADLINE  # noqa: PLC0415

    return REVIEW_DEADLINE * 3 + 120.0


async def fingerprints(
    optimizer: ActorRef[Any], scope: object, targets: tuple[Tier, ...]
) -> Fingerprints:
    """Each target's store fingerprint (one bounded page; the digest of AUTO-23)."""
    out: list[tuple[str, str]] = []
    for tier in targets:
        page = await optimizer.ask(
            OptimizeInspect(scope=scope, tier=tier, limit=1), timeout=INSPECT_TIMEOUT
        )
        out.append((tier, page.fingerprint))
    return tuple(out)


def probe_outcome(attempt: str, outcome: Outcome[Fingerprints]) -> SchedulerMsg:
    """The probe's end as the Scheduler's message: probed (or failed), or interrupted."""
    match outcome:
        case Ok(value=value):
            return AttemptProbed(attempt=attempt, fingerprints=value)
        case Failed(error=error):
            return AttemptProbed(attempt=attempt, error=type(error).__name__)
        case Cancelled(reason=reason):
            return AttemptEnded(attempt=attempt, outcome="interrupted", detail=reason)


def review_outcome(attempt: str, outcome: Outcome[Fingerprints]) -> SchedulerMsg:
    """The reviews' end as the Scheduler's message: completed with the new fingerprints, or
    interrupted (a failure or a cancellation, named in ``detail``)."""
    match outcome:
        case Ok(value=value):
            return AttemptEnded(attempt=attempt, outcome="completed", fingerprints=value)
        case Failed(error=error):
            return AttemptEnded(attempt=attempt, outcome="interrupted", detail=type(error).__name__)
        case Cancelled(reason=reason):
            return AttemptEnded(attempt=attempt, outcome="interrupted", detail=reason)
