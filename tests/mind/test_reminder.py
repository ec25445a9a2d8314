"""Reminders: display-only wakes, deadline identity across re-arms, no replay (M-REMINDER-*)."""

from __future__ import annotations

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.reminder import ReminderActor
from persona_mind.messages.host import DisplayMessage
from persona_mind.messages.reminder import (
    ArmReminders,
    CancelReminders,
    GetReminderState,
    ReminderState,
)
from persona_mind.mind import BacklogItem, ReminderBook, reminder_card
from persona_mind.mind.backlog._reminder import CARD_ITEM_CHARS, CARD_ITEMS
from persona_mind.testing import ManualClock


def item(
    i: int,
    remind_at: float | None,
    status: str = "open",
    text: str | None = None,
    expires: float = 1e12,
) -> BacklogItem:
    return BacklogItem(
        id=f"b_{i}",
        text=text or f"task {i}",
        status=status,  # type: ignore[arg-type]
        createdAt=0.0,
        updatedAt=0.0,
        expiresAt=expires,
        remindAt=remind_at,
    )


def test_book_keeps_identity_across_rearms_M_REMINDER_6() -> None:
    book = ReminderBook()
    first = book.rearm([item(1, 100.0)], now=10.0)
    assert first.arm == ((("b_1", 100.0), 90.0),)
    again = book.rearm([item(1, 100.0)], now=20.0)
    assert again.arm == ()  # no duplicate timer
    assert again.cancel == ()
    moved = book.rearm([item(1, 200.0)], now=30.0)
    assert moved.cancel == (("b_1", 100.0),)
    assert moved.arm == ((("b_1", 200.0), 170.0),)


def test_acknowledged_never_replayed_M_REMINDER_3() -> None:
    book = ReminderBook()
    plan = book.rearm([item(1, 5.0)], now=10.0)
    assert [b.id for b in plan.due] == ["b_1"]
    book.acknowledge(plan.due)
    assert book.rearm([item(1, 5.0)], now=11.0).due == ()


def test_closed_item_cancels_M_REMINDER_5() -> None:
    book = ReminderBook()
    book.rearm([item(1, 100.0)], now=0.0)
    plan = book.rearm([item(1, 100.0, status="done")], now=1.0)
    assert plan.cancel == (("b_1", 100.0),)
    assert book.fire(("b_1", 100.0), [item(1, 100.0, status="done")], now=100.0) is None


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_card_items_bound(delta: int) -> None:
    n = CARD_ITEMS + delta
    card = reminder_card([item(i, float(i)) for i in range(n)])
    assert card is not None
    lines = card.body.splitlines()
    assert sum(1 for ln in lines if ln.startswith("- [")) == min(n, CARD_ITEMS)
    assert ("more: backlog list" in card.body) is (n > CARD_ITEMS)


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_card_chars_bound(delta: int) -> None:
    n = CARD_ITEM_CHARS + delta
    card = reminder_card([item(1, 1.0, text="w" * n)])
    assert card is not None
    text = card.body.split("] ", 1)[1]
    assert len(text) == min(n, CARD_ITEM_CHARS)


class Sink:
    def __init__(self) -> None:
        self.shown: list[DisplayMessage] = []
        self.toasts: list[str] = []

    async def display(self, msg: DisplayMessage) -> None:
        self.shown.append(msg)

    async def toast(self, text: str) -> None:
        self.toasts.append(text)


async def state(ref: object) -> ReminderState:
    result = await ref.ask(GetReminderState(), timeout=5.0)  # type: ignore[attr-defined]
    assert isinstance(result, ReminderState)
    return result


@pytest.mark.asyncio
async def test_actor_arms_fires_once_display_only_M_REMINDER_1_2_4() -> None:
    clock = ManualClock()
    sink = Sink()
    now = clock.wall()
    async with ActorSystem(clock=clock) as system:
        ref = system.spawn(lambda: ReminderActor(sink.display, toast=sink.toast), name="reminder")
        items = (item(1, now + 60), item(2, now - 1))
        ref.tell(ArmReminders(items=items))
        st = await state(ref)
        assert st.pending == (("b_1", now + 60),)
        assert len(sink.shown) == 1  # b_2 was already due: shown immediately
        ref.tell(ArmReminders(items=items))  # maintenance re-arm
        await state(ref)
        assert len(sink.shown) == 1  # nothing replayed, no duplicate timer
        clock.advance(60)
        st = await state(ref)
        assert st.wakes == 2
        assert sink.shown[1].kind == "persona-mind-reminder"
        assert "b_1" in sink.shown[1].body
        assert sink.toasts == [s.title for s in sink.shown]
        clock.advance(3600)
        assert (await state(ref)).wakes == 2


@pytest.mark.asyncio
async def test_actor_cancel_and_stale_generation_M_REMINDER_5() -> None:
    clock = ManualClock()
    sink = Sink()
    now = clock.wall()
    async with ActorSystem(clock=clock) as system:
        ref = system.spawn(lambda: ReminderActor(sink.display), name="reminder")
        system.advance_generation()  # generation 1
        ref.tell(ArmReminders(items=(item(1, now + 10),)))
        await state(ref)
        system.advance_generation()  # the session changed: generation 2
        ref.tell(CancelReminders())
        ref.tell(ArmReminders(items=(item(1, now + 10),)), generation=1)  # late, stale
        st = await state(ref)
        assert st.pending == ()
        assert ref.statistics().dropped_stale == 1
        clock.advance(20)
        assert (await state(ref)).wakes == 0
        assert sink.shown == []
