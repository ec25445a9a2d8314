"""The Optimizer actor's protocol: inspect, stage, apply, undo and history of consolidation.

Every request names its *owner* (the session/scope key plans are bound to) and the
Mind scope it acts in (a ``mind.MindScope``: carried here as an opaque value — it is
domain, with the rules that name a scope's files — and checked by the Optimizer). Plans
never travel in messages: staging answers a
:class:`~persona_mind.messages.consolidation.Plan` that stays in the Optimizer's registry,
and apply names it by id. :class:`DiscardPlans` (a session or scope change) and
every ``OwnerChanged`` drop plans (M-OPTIMIZE-MANUAL-39). These messages stay in-process.

A later Scheduler submits reviews through the same actor; the manual verbs here are the
path a worker's proposal takes once validated (stage, then apply by id).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.owner import OwnerChanged

if TYPE_CHECKING:
    from persona_mind.messages.consolidation import (  # noqa: F401 - named in Ask["…"]
        Applied,
        Inspection,
        Plan,
        ReviewReport,
    )

__all__ = (
    "DiscardPlans",
    "OptimizeAdmissible",
    "OptimizeApply",
    "OptimizeHistoryList",
    "OptimizeInspect",
    "OptimizeReview",
    "OptimizeStage",
    "OptimizeUndo",
    "OptimizerMsg",
)


class OptimizeInspect(Ask["Inspection"], frozen=True, kw_only=True):
    """One bounded page of a store's safe entries (``fingerprint`` continues a paging)."""

    scope: object
    tier: str
    offset: int = 0
    limit: int | None = None
    fingerprint: str | None = None


class OptimizeStage(Ask["Plan"], frozen=True, kw_only=True):
    """Validate exact replacements and register them as a plan of ``owner``."""

    owner: str
    scope: object
    tier: str
    operations: Any


class OptimizeApply(Ask["Applied"], frozen=True, kw_only=True):
    """Apply the staged plan ``plan`` of ``owner`` once, under the fingerprint CAS."""

    owner: str
    scope: object
    plan: str


class OptimizeUndo(Ask["Applied"], frozen=True, kw_only=True):
    """Restore the facts the applied receipt ``receipt`` replaced."""

    scope: object
    tier: str
    receipt: str


class OptimizeHistoryList(Ask["list[dict[str, Any]]"], frozen=True, kw_only=True):
    """The newest receipts of one store, bounded and owner-filtered."""

    scope: object
    tier: str
    limit: int | None = None


class OptimizeReview(Ask["ReviewReport"], frozen=True, kw_only=True):
    """Review ``target`` (a tier, ``all`` or ``None`` for every allowed one) by worker children.

    The admission message for explicit requests — and for a later Scheduler: answered with
    the terminal report when the batch ends; one batch at a time per Optimizer.
    """

    owner: str
    scope: object
    target: str | None = None
    model: str


class OptimizeAdmissible(Ask[None], frozen=True, kw_only=True):
    """Would an :class:`OptimizeReview` be admitted now? Raises the refusal it would get
    (the command answers at acceptance, M-OPTIMIZE-BATCH-8)."""


class DiscardPlans(Msg, frozen=True, kw_only=True):
    """Drop every plan of ``owner`` (its session or scope changed)."""

    owner: str


OptimizerMsg = (
    OptimizeInspect
    | OptimizeStage
    | OptimizeApply
    | OptimizeUndo
    | OptimizeHistoryList
    | OptimizeReview
    | OptimizeAdmissible
    | DiscardPlans
    | OwnerChanged
)
