"""Consolidation over real files: CAS apply, receipts, history, undo (M-OPTIMIZE-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.errors import StaleGeneration
from persona_mind.mind._errors import AccessRefused, ForeignOwner, NotFound
from persona_mind.mind.optimize._commands import history_card
from persona_mind.mind.optimize._errors import PlanConflict, PlanExpired, StaleSnapshot
from persona_mind.mind.optimize._plans import PLAN_LIFETIME, Plan, PlanRegistry
from persona_mind.storage import MAX_RECEIPTS, HistoryBlocked, Layout, Receipt
from persona_mind.testing import ManualClock
from tests.optimize._helpers import REVIEWER, consolidator, rows, scope_for, seed

OPS = [{"sources": [], "text": "Run ruff and mypy before every commit"}]


def _plan(tmp_path: Path, clock: ManualClock, ids: list[str], text: str = "merged rule") -> Plan:
    cons = consolidator(tmp_path, clock)
    scope = scope_for(tmp_path)
    staged = cons.stage(scope, "project", [{"sources": ids, "text": text}], now=clock.wall())
    return PlanRegistry().add(
        owner="s",
        tier=staged.tier,
        store=staged.store,
        persona=scope.persona,
        fingerprint=staged.fingerprint,
        replacements=staged.replacements,
        now=clock.wall(),
    )


def test_apply_writes_receipt_and_supersedes_M_OPTIMIZE_HISTORY_1_MANUAL_19(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    a, b, c = seed(tmp_path, clock, ["run ruff", "run mypy", "deploy on fridays"])
    plan = _plan(tmp_path, clock, [a.id, b.id])
    cons = consolidator(tmp_path, clock)
    done = cons.apply(plan, scope_for(tmp_path))
    assert done.outcome == "applied"
    assert not done.needs_recovery
    after = {f.id: f for f in rows(tmp_path, clock)}
    assert after[c.id] == c  # unselected untouched (-31)
    assert after[a.id].status == after[b.id].status == "superseded"
    new = after[plan.after[0].id]
    assert new.recordedAt == a.recordedAt  # earliest (-28)
    target = scope_for(tmp_path).fact_target("project")
    assert Layout.history(target.path).exists()
    (receipt,) = cons.receipts(scope_for(tmp_path), "project")
    assert (receipt.state, receipt.outcome) == ("settled", "applied")


def test_a_plan_applies_once_and_a_second_plan_over_the_same_sources_is_stale_M_OPTIMIZE_MANUAL_38(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    a, b = seed(tmp_path, clock, ["run ruff", "run mypy"])
    first = _plan(tmp_path, clock, [a.id, b.id], "one")
    second = _plan(tmp_path, clock, [a.id, b.id], "two")
    cons = consolidator(tmp_path, clock)
    cons.apply(first, scope_for(tmp_path))
    with pytest.raises(StaleSnapshot):
        cons.apply(second, scope_for(tmp_path))
    with pytest.raises(StaleSnapshot):
        cons.apply(first, scope_for(tmp_path))  # the same plan again: the bytes moved on
    assert len(cons.receipts(scope_for(tmp_path), "project")) == 1


def test_same_sequence_external_rewrite_invalidates_the_plan_M_OPTIMIZE_MANUAL_37(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    (a,) = seed(tmp_path, clock, ["run ruff"])
    plan = _plan(tmp_path, clock, [a.id])
    path = scope_for(tmp_path).fact_target("project").path
    path.write_bytes(path.read_bytes() + b"\n")  # same sequence, same rows, other bytes
    with pytest.raises(StaleSnapshot):
        consolidator(tmp_path, clock).apply(plan, scope_for(tmp_path))
    assert consolidator(tmp_path, clock).receipts(scope_for(tmp_path), "project") == ()


def test_lifetime_is_rechecked_inside_the_lock_M_OPTIMIZE_MANUAL_34_36(tmp_path: Path) -> None:
    clock = ManualClock()
    (a,) = seed(tmp_path, clock, ["run ruff"])
    plan = _plan(tmp_path, clock, [a.id])
    clock.advance(PLAN_LIFETIME)
    with pytest.raises(PlanExpired):
        consolidator(tmp_path, clock).apply(plan, scope_for(tmp_path))
    assert rows(tmp_path, clock) == (a,)


def test_source_expiry_is_rechecked_at_apply_M_OPTIMIZE_MANUAL_25_36(tmp_path: Path) -> None:
    clock = ManualClock()
    (a,) = seed(tmp_path, clock, ["working note"], tier="stm")
    assert a.expiresAt is not None
    clock.advance(a.expiresAt - clock.wall() - 5)  # five seconds left when staged
    cons = consolidator(tmp_path, clock)
    scope = scope_for(tmp_path)
    staged = cons.stage(scope, "stm", [{"sources": [a.id], "text": "better"}], now=clock.wall())
    plan = PlanRegistry().add(
        owner="s",
        tier="stm",
        store=staged.store,
        persona=scope.persona,
        fingerprint=staged.fingerprint,
        replacements=staged.replacements,
        now=clock.wall(),
    )
    clock.advance(5)
    with pytest.raises(NotFound):
        cons.apply(plan, scope)


def test_owner_change_refuses_inside_the_step_M_OPTIMIZE_HISTORY_17_18(tmp_path: Path) -> None:
    clock = ManualClock()
    (a,) = seed(tmp_path, clock, ["run ruff"])
    plan = _plan(tmp_path, clock, [a.id])
    cons = consolidator(tmp_path, clock)
    cons.engine.current_generation = lambda: 2
    with pytest.raises(StaleGeneration):
        cons.apply(plan, scope_for(tmp_path), generation=1)
    assert cons.receipts(scope_for(tmp_path), "project") == ()  # rejected, not recorded (-9)


def test_scope_change_refuses_a_plan_M_OPTIMIZE_MANUAL_39(tmp_path: Path) -> None:
    clock = ManualClock()
    (a,) = seed(tmp_path, clock, ["run ruff"])
    plan = _plan(tmp_path, clock, [a.id])
    with pytest.raises(PlanConflict):
        consolidator(tmp_path, clock).apply(plan, scope_for(tmp_path, REVIEWER))


def test_undo_restores_exactly_and_survives_recreation_M_OPTIMIZE_HISTORY_11_13(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    a, b, _c = seed(tmp_path, clock, ["run ruff", "run mypy", "other"])
    before = rows(tmp_path, clock)
    plan = _plan(tmp_path, clock, [a.id, b.id])
    done = consolidator(tmp_path, clock).apply(plan, scope_for(tmp_path))
    (d,) = seed(tmp_path, clock, ["recorded later"])
    fresh = consolidator(tmp_path, clock)  # a new optimizer: history is on disk
    history = fresh.list_history(scope_for(tmp_path), "project")
    assert [h["receipt"] for h in history] == [done.receipt]
    undone = fresh.undo(scope_for(tmp_path), "project", done.receipt)
    assert undone.kind == "undo"
    assert rows(tmp_path, clock) == (*before, d)
    with pytest.raises(PlanConflict):  # undo twice: the replacement is gone (-14)
        fresh.undo(scope_for(tmp_path), "project", done.receipt)


def test_undo_refuses_changed_replacement_and_foreign_owner_M_OPTIMIZE_HISTORY_14_17(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    a, b = seed(tmp_path, clock, ["run ruff", "run mypy"])
    plan = _plan(tmp_path, clock, [a.id, b.id])
    cons = consolidator(tmp_path, clock)
    done = cons.apply(plan, scope_for(tmp_path))
    with pytest.raises(ForeignOwner):
        cons.undo(scope_for(tmp_path, REVIEWER), "project", done.receipt)
    new = plan.after[0]
    follow = _plan(tmp_path, clock, [new.id], "rewritten again")
    cons.apply(follow, scope_for(tmp_path))
    with pytest.raises(PlanConflict) as info:
        cons.undo(scope_for(tmp_path), "project", done.receipt)
    assert info.value.rule == "undo.changed_replacement"


def test_history_is_owner_filtered_and_bounded_M_OPTIMIZE_HISTORY_12(tmp_path: Path) -> None:
    clock = ManualClock()
    facts = seed(tmp_path, clock, [f"rule {i}" for i in range(3)])
    cons = consolidator(tmp_path, clock)
    for f in facts:
        cons.apply(_plan(tmp_path, clock, [f.id], f"better {f.text}"), scope_for(tmp_path))
    assert len(cons.list_history(scope_for(tmp_path), "project", limit=2)) == 2
    assert len(cons.list_history(scope_for(tmp_path), "project")) == 3
    assert cons.list_history(scope_for(tmp_path, REVIEWER), "project") == []


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_history_keeps_at_most_32_receipts_M_OPTIMIZE_HISTORY_3_6(
    tmp_path: Path, extra: int
) -> None:
    clock = ManualClock()
    (fact,) = seed(tmp_path, clock, ["rule v0"])
    cons = consolidator(tmp_path, clock)
    current = fact
    for i in range(MAX_RECEIPTS + extra):
        plan = _plan(tmp_path, clock, [current.id], f"rule v{i + 1}")
        cons.apply(plan, scope_for(tmp_path))
        current = plan.after[0]
    receipts = cons.receipts(scope_for(tmp_path), "project")
    assert len(receipts) == min(MAX_RECEIPTS, MAX_RECEIPTS + extra)
    assert receipts[-1].note.startswith("apply ")


def test_prepared_receipt_blocks_and_is_listed_as_needing_recovery_M_OPTIMIZE_HISTORY_7_20(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    a, b = seed(tmp_path, clock, ["run ruff", "run mypy"])
    cons = consolidator(tmp_path, clock)
    target = scope_for(tmp_path).fact_target("project")
    hist = Layout.history(target.path)
    # an interrupted apply: the receipt was persisted prepared, the outcome is unknown
    from persona_mind.storage._history import history_target  # noqa: PLC0415

    stuck = Receipt(
        id="r_stuck",
        state="prepared",
        outcome="pending",
        target=str(target.path),
        owner=scope_for(tmp_path).persona,
        createdAt="2026-01-01T00:00:00.000Z",
        beforeFingerprint="x",
        afterFingerprint="y",
        note="apply plan_x (project)",
    )
    cons.engine.mutate(history_target(target), lambda _old: (stuck,))
    assert hist.exists()
    (row,) = cons.list_history(scope_for(tmp_path), "project")
    assert row["needsRecovery"] is True
    card = history_card("project", [row])
    assert "NEEDS RECOVERY" in card.full()
    assert "persona-mind store history reconcile" in card.full()
    with pytest.raises(HistoryBlocked):
        cons.apply(_plan(tmp_path, clock, [a.id]), scope_for(tmp_path))
    assert rows(tmp_path, clock) == (a, b)


def test_project_tiers_need_the_current_persona_M_OPTIMIZE_MANUAL_17(tmp_path: Path) -> None:
    clock = ManualClock()
    seed(tmp_path, clock, ["run ruff"])
    cons = consolidator(tmp_path, clock)
    for tier in ("project", "stm"):
        with pytest.raises(AccessRefused) as info:
            cons.inspect(scope_for(tmp_path, None), tier, now=clock.wall())
        assert info.value.rule == "optimize.no_persona"
    assert cons.inspect(scope_for(tmp_path, None), "shared", now=clock.wall()).matched == 0
