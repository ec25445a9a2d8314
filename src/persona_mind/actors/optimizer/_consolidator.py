"""Consolidation against real files: strict reads, receipt-guarded apply, undo and history.

Synchronous and actor-free, so the Optimizer actor runs it on its IO thread and the CLI
runs it directly. It lives beside the actors, not in ``mind/``, because it drives the
storage engine itself (domain code reaches storage only through the port).

Every write goes through :class:`~persona_mind.storage.OptimizeHistory`:
under the memory -> history -> store locks it refuses while a receipt is unresolved, runs
the fingerprint CAS, the generation check and our pure step (:func:`apply_rows` /
:func:`undo_rows`, which recheck source expiry and changes), persists the receipt
*prepared*, renames the store, then settles the receipt (M-OPTIMIZE-MANUAL-36..38,
M-OPTIMIZE-HISTORY-1..10). Nothing here ever spawns a model (M-OPTIMIZE-MANUAL-40).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from persona_mind.messages.memory import Origin
from persona_mind.mind import MindScope
from persona_mind.mind._errors import AccessRefused, ForeignOwner, InvalidArgument, NotFound
from persona_mind.mind._model import Fact, Tier
from persona_mind.mind.optimize._errors import PlanConflict, PlanExpired, StaleSnapshot
from persona_mind.mind.optimize._inspect import (
    Inspection,
    SafetyMemo,
    inspect_rows,
    safe_row,
)
from persona_mind.mind.optimize._plans import Applied, Plan
from persona_mind.mind.optimize._stage import (
    TIER_ALIASES,
    Replacement,
    apply_rows,
    build_replacements,
    parse_operations,
    undo_rows,
)
from persona_mind.storage import (
    ABSENT_FINGERPRINT,
    ApplyResult,
    CasConflict,
    FileStore,
    OptimizeHistory,
    Receipt,
)
from persona_mind.storage.port import StoreTarget

__all__ = (
    "DEFAULT_HISTORY_LIMIT",
    "MAX_HISTORY_LIMIT",
    "Consolidator",
    "Staged",
    "receipt_view",
)

DEFAULT_HISTORY_LIMIT = 10
MAX_HISTORY_LIMIT = 32
TIERS: tuple[Tier, ...] = ("persona", "shared", "project", "stm")
_FACTS = msgspec.json.Decoder(tuple[Fact, ...])


@dataclass(frozen=True, slots=True)
class Staged:
    """A validated set of replacements and the fingerprint of the bytes it was cut from."""

    tier: Tier
    store: str
    fingerprint: str
    replacements: tuple[Replacement, ...]


def parse_tier(value: object) -> Tier:
    """A consolidation target: one store (M-OPTIMIZE-MANUAL-16); the seed's ``project-long``
    is accepted for ``project``."""
    if isinstance(value, str) and value in TIER_ALIASES:
        return TIER_ALIASES[value]
    if not isinstance(value, str) or value not in TIERS:
        raise InvalidArgument(
            "optimize.target", f"target must be one of {', '.join(TIERS)} (got {value!r})"
        )
    return value


def _target(scope: MindScope, tier: Tier) -> StoreTarget[Fact]:
    if tier in ("project", "stm") and scope.persona is None:
        what = "project memory" if tier == "project" else "short-term memory"
        raise AccessRefused(
            "optimize.no_persona",
            f"{what} is consolidated only by its owning persona; select a persona first",
        )
    return scope.fact_target(tier)


def receipt_view(receipt: Receipt) -> dict[str, Any]:
    """One history row: withheld texts when a recorded fact no longer passes the scanner."""
    before = _FACTS.decode(receipt.before) if bytes(receipt.before) != b"null" else ()
    after = _FACTS.decode(receipt.after) if bytes(receipt.after) != b"null" else ()
    safe = all(safe_row(f) for f in (*before, *after))
    return {
        "receipt": receipt.id,
        "state": receipt.state,
        "outcome": receipt.outcome,
        "needsRecovery": receipt.state == "prepared",
        "createdAt": receipt.createdAt,
        "note": receipt.note,
        "before": [f.text for f in before] if safe else None,
        "after": [f.text for f in after] if safe else None,
        "withheld": not safe,
    }


def _applied(
    kind: str,
    tier: Tier,
    receipt: Receipt,
    before: tuple[Fact, ...],
    after: tuple[Fact, ...],
    result: ApplyResult[Fact],
) -> Applied:
    return Applied(
        kind=kind,
        tier=tier,
        receipt=receipt.id,
        outcome=receipt.outcome,
        needs_recovery=receipt.state == "prepared",
        before=before,
        after=after,
        warnings=result.warnings,
    )


class Consolidator:
    """Inspect, stage, apply, undo and history over one profile's stores."""

    def __init__(self, engine: FileStore, history: OptimizeHistory | None = None) -> None:
        self.engine = engine
        self.history = history if history is not None else OptimizeHistory(engine)
        self.safe = SafetyMemo()

    def _read(self, target: StoreTarget[Fact]) -> tuple[tuple[Fact, ...], str]:
        stored = self.engine.read_stored(target)  # strict: no recovery or quarantine writes
        if stored is None:
            return (), ABSENT_FINGERPRINT
        return stored.snapshot.entries, stored.fingerprint

    def inspect(
        self,
        scope: MindScope,
        tier: Tier,
        *,
        now: float,
        offset: object = 0,
        limit: object = None,
        expect_fingerprint: str | None = None,
        after: tuple[float, str] | None = None,
    ) -> Inspection:
        """One bounded page of ``tier``'s safe entries (M-OPTIMIZE-MANUAL-6..14)."""
        rows, fingerprint = self._read(_target(scope, tier))
        return inspect_rows(
            rows,
            fingerprint,
            tier=tier,
            persona=scope.persona,
            now=now,
            offset=offset,
            limit=limit,
            expect_fingerprint=expect_fingerprint,
            is_safe_row=self.safe,
            after=after,
        )

    def stage(
        self,
        scope: MindScope,
        tier: Tier,
        operations: object,
        *,
        now: float,
        writer: Origin = "consolidation",
    ) -> Staged:
        """Validate ``operations`` against the current rows; nothing is written.

        ``writer``: the origin a mixed-origin replacement records (``review`` for the
        automatic review worker)."""
        ops = parse_operations(operations)
        target = _target(scope, tier)
        rows, fingerprint = self._read(target)
        reps = build_replacements(
            rows, ops, tier=tier, persona=scope.persona, now=now, writer=writer
        )
        return Staged(tier, str(target.path), fingerprint, reps)

    def apply(self, plan: Plan, scope: MindScope, *, generation: int | None = None) -> Applied:
        """Commit ``plan`` once, under the fingerprint CAS and a durable receipt."""
        target = _target(scope, plan.tier)
        if str(target.path) != plan.store or scope.persona != plan.persona:
            raise PlanConflict(
                "plan.scope_changed", "the scope changed since this plan was staged; stage again"
            )
        reps, wall = plan.replacements, self.engine.wall

        def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
            at = wall()  # inside the locked mutation step (M-OPTIMIZE-MANUAL-36)
            if at >= plan.expires:
                raise PlanExpired(
                    "plan.expired",
                    f"plan {plan.id} expired ten minutes after staging; stage it again",
                )
            return apply_rows(rows, reps, now=at)

        try:
            result = self.history.apply(
                target,
                step,
                before=plan.before,
                after=plan.after,
                owner=plan.persona,
                generation=generation,
                expect_fingerprint=plan.fingerprint,
                note=f"apply {plan.id} ({plan.tier})",
            )
        except CasConflict as exc:
            raise StaleSnapshot(
                "plan.stale",
                f"the {plan.tier} store changed since plan {plan.id} was staged (or another "
                "apply committed it); inspect and stage again",
            ) from exc
        return _applied("apply", plan.tier, result.receipt, plan.before, plan.after, result)

    def receipts(self, scope: MindScope, tier: Tier) -> tuple[Receipt, ...]:
        return self.history.receipts(_target(scope, tier))

    def list_history(
        self, scope: MindScope, tier: Tier, *, limit: object = None
    ) -> list[dict[str, Any]]:
        """Newest first, bounded, this persona's receipts only (M-OPTIMIZE-HISTORY-12)."""
        size = DEFAULT_HISTORY_LIMIT if limit is None else limit
        if (
            isinstance(size, bool)
            or not isinstance(size, int)
            or not 1 <= size <= MAX_HISTORY_LIMIT
        ):
            raise InvalidArgument(
                "history.limit", f"limit must be a whole number from 1 to {MAX_HISTORY_LIMIT}"
            )
        mine = self.history.receipts(_target(scope, tier), owner=scope.persona)
        return [receipt_view(r) for r in reversed(mine)][:size]

    def undo(
        self,
        scope: MindScope,
        tier: Tier,
        receipt_id: str,
        *,
        generation: int | None = None,
    ) -> Applied:
        """Restore exactly the facts an applied receipt replaced (M-OPTIMIZE-HISTORY-13..18)."""
        target = _target(scope, tier)
        found = [r for r in self.history.receipts(target) if r.id == receipt_id]
        if not found:
            raise NotFound("undo.unknown", f"no receipt {receipt_id!r} in the {tier} history")
        receipt = found[0]
        if receipt.owner != scope.persona:
            raise ForeignOwner(
                "undo.owner",
                f"receipt {receipt_id} was made by {receipt.owner or 'no persona'}; only its "
                "owner may undo it",
            )
        if not receipt.note.startswith("apply ") or receipt.outcome != "applied":
            raise PlanConflict(
                "undo.not_applied",
                f"receipt {receipt_id} is {receipt.state}/{receipt.outcome}, not an applied "
                "consolidation; only applied consolidations can be undone",
            )
        before = _FACTS.decode(receipt.before)
        after = _FACTS.decode(receipt.after)
        wall = self.engine.wall
        result = self.history.apply(
            target,
            lambda rows: undo_rows(rows, before, after, now=wall()),
            before=after,
            after=before,
            owner=scope.persona,
            generation=generation,
            note=f"undo {receipt_id} ({tier})",
        )
        return _applied("undo", tier, result.receipt, after, before, result)
