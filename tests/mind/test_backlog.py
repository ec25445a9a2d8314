"""Backlog: states, expiry, reminders, idempotent take, no reopen, bounded history (M-BACKLOG-*)."""

from __future__ import annotations

import pytest

from persona_mind.mind import (
    MAX_BACKLOG_TEXT,
    MAX_TERMINAL,
    STM_TTL,
    AccessRefused,
    BacklogItem,
    InvalidArgument,
    LimitExceeded,
    MemoryService,
    MindScope,
)
from persona_mind.mind.backlog._rules import cleanup
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore


@pytest.mark.asyncio
async def test_states_and_idempotent_take_M_BACKLOG_1_4(
    svc: MemoryService, store: FakeStore
) -> None:
    item, outcome = await svc.backlog_add("write the migration guide")
    assert outcome == "added"
    assert item.status == "open"
    taken, changed = await svc.backlog_move(item.id, "taken")
    assert changed
    assert taken.status == "taken"
    writes = len(store.writes)
    again, changed2 = await svc.backlog_move(item.id, "taken")
    assert not changed2
    assert again == taken
    assert len(store.writes) == writes  # a repeated take writes nothing
    done, _ = await svc.backlog_move(item.id, "done")
    assert done.status == "done"
    assert done.closedAt is not None


@pytest.mark.asyncio
async def test_readd_never_reopens_completed_M_BACKLOG_5(svc: MemoryService) -> None:
    item, _ = await svc.backlog_add("fix flaky test")
    await svc.backlog_move(item.id, "done")
    again, outcome = await svc.backlog_add("Fix  flaky test")
    assert outcome == "completed"
    assert again.id == item.id
    assert again.status == "done"
    with pytest.raises(InvalidArgument) as err:
        await svc.backlog_move(item.id, "taken")
    assert err.value.rule == "backlog.terminal"
    dup, outcome2 = await svc.backlog_add("other task")
    same, outcome3 = await svc.backlog_add("other task")
    assert (outcome2, outcome3) == ("added", "existing")
    assert same.id == dup.id


@pytest.mark.asyncio
@pytest.mark.parametrize(("offset", "live"), [(-1, True), (0, False), (1, False)])
async def test_expiry_48h_M_BACKLOG_2(
    svc: MemoryService, clock: ManualClock, offset: int, live: bool
) -> None:
    item, _ = await svc.backlog_add("look at the logs")
    clock.advance(STM_TTL + offset)
    assert (item.id in [b.id for b in await svc.backlog_list()]) is live


@pytest.mark.asyncio
async def test_later_reminder_extends_expiry_M_BACKLOG_3_M_REMINDER_8(
    svc: MemoryService, clock: ManualClock
) -> None:
    item, _ = await svc.backlog_add("release notes")
    clock.advance(3600)
    reminded = await svc.backlog_remind(item.id, 72 * 3600)
    assert reminded.remindAt == item.createdAt + 3600 + 72 * 3600
    assert reminded.expiresAt == reminded.remindAt + STM_TTL
    clock.advance(STM_TTL)  # past the original 48 h
    assert [b.id for b in await svc.backlog_list()] == [item.id]
    # an earlier reminder never shortens the expiry
    shorter = await svc.backlog_remind(item.id, 60)
    assert shorter.expiresAt == reminded.expiresAt


def _closed(i: int) -> BacklogItem:
    return BacklogItem(
        id=f"b_{i:05d}",
        text=f"t{i}",
        status="done",
        createdAt=0.0,
        updatedAt=float(i),
        expiresAt=1.0,
        closedAt=float(i),
    )


@pytest.mark.parametrize("n", [MAX_TERMINAL - 1, MAX_TERMINAL, MAX_TERMINAL + 1])
def test_terminal_history_bounded_M_BACKLOG_6(n: int) -> None:
    active = BacklogItem(id="b_live", text="live", createdAt=0.0, updatedAt=0.0, expiresAt=1e12)
    rows = (active, *(_closed(i) for i in range(n)))
    kept = cleanup(rows, now=100.0)
    assert active in kept
    terminal = [b for b in kept if not b.active]
    assert len(terminal) == min(n, MAX_TERMINAL)
    if n > MAX_TERMINAL:
        assert _closed(0) not in kept  # the oldest closed item goes first


@pytest.mark.asyncio
async def test_cleanup_runs_on_current_rows_under_lock_M_BACKLOG_7(
    svc: MemoryService, store: FakeStore, clock: ManualClock
) -> None:
    old, _ = await svc.backlog_add("expires")
    clock.advance(STM_TTL + 1)
    new, _ = await svc.backlog_add("added after expiry")
    assert await svc.cleanup()
    ids = [b.id for b in store.rows(svc.scope.backlog_target())]
    assert ids == [new.id]
    assert old.id not in ids


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("n", "ok"),
    [(MAX_BACKLOG_TEXT - 1, True), (MAX_BACKLOG_TEXT, True), (MAX_BACKLOG_TEXT + 1, False)],
)
async def test_backlog_text_limit(svc: MemoryService, store: FakeStore, n: int, ok: bool) -> None:
    if ok:
        await svc.backlog_add("y" * n)
    else:
        with pytest.raises(LimitExceeded):
            await svc.backlog_add("y" * n)
        assert store.writes == []


@pytest.mark.asyncio
async def test_no_backlog_in_home_M_SCOPE_18(
    store: FakeStore, clock: ManualClock, scope: MindScope
) -> None:
    home = MemoryService(store, clock, MindScope(scope.agent_dir, scope.persona, None))
    with pytest.raises(AccessRefused) as err:
        await home.backlog_add("anything")
    assert err.value.rule == "scope.home_not_project"
    assert store.writes == []
