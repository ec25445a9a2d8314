"""Issue 13 item 1: durable reminder acknowledgements (M-REMINDER-3, M-REMINDER-1)."""

from __future__ import annotations

from typing import Any

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.reminder import ReminderActor
from persona_mind.messages.host import CustomEntry, DisplayMessage
from persona_mind.messages.reminder import ArmReminders, GetReminderState
from persona_mind.mind import BacklogItem
from persona_mind.mind.backlog._reminder import ACK_ENTRY_TYPE, ack_entry_data, acknowledged_keys
from persona_mind.testing import ManualClock


def item(i: int, remind_at: float) -> BacklogItem:
    return BacklogItem(
        id=f"b_{i}",
        text=f"task {i}",
        status="open",
        createdAt=0.0,
        updatedAt=0.0,
        expiresAt=1e12,
        remindAt=remind_at,
    )


def ack(data: Any) -> CustomEntry:
    return CustomEntry(custom_type=ACK_ENTRY_TYPE, data=data)


def test_ack_entry_round_trips_M_REMINDER_3() -> None:
    keys = {("b_2", 20.0), ("b_1", 10.0)}
    entries = (ack(ack_entry_data(keys)), CustomEntry(custom_type="other", data={}))
    assert acknowledged_keys(entries) == frozenset(keys)


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {"deadlines": "b_1"},
        {"deadlines": [["b_1"]]},
        {"deadlines": [[1, 10.0]]},
        {"deadlines": [["", 10.0]]},
        {"deadlines": [["b_1", "10"]]},
        {"deadlines": [["b_1", True]]},
        {"deadlines": [["b_1", float("nan")]]},
    ],
)
def test_malformed_ack_entry_names_nothing_M_REMINDER_3(data: Any) -> None:
    assert acknowledged_keys((ack(data),)) == frozenset()


def test_integer_remind_at_is_the_same_identity_M_REMINDER_6() -> None:
    assert acknowledged_keys((ack({"deadlines": [["b_1", 10]]}),)) == {("b_1", 10.0)}


@pytest.mark.asyncio
async def test_actor_records_ack_before_display_and_honours_replayed_acks_M_REMINDER_3() -> None:
    clock = ManualClock()
    now = clock.wall()
    events: list[tuple[str, Any]] = []

    async def display(message: DisplayMessage) -> None:
        events.append(("display", message.details))

    async def toast(text: str) -> None:
        events.append(("toast", text))

    async def record(custom_type: str, data: object) -> None:
        events.append((custom_type, data))

    async with ActorSystem(clock=clock) as system:
        ref = system.spawn(
            lambda: ReminderActor(display, toast=toast, record=record), name="reminder"
        )
        due = (item(1, now - 5), item(2, now - 1))
        # b_1 was acknowledged in the resumed session's history: only b_2 is shown
        ref.tell(ArmReminders(items=due, acknowledged=(("b_1", now - 5),)))
        state = await ref.ask(GetReminderState(), timeout=5.0)
        assert state.wakes == 1
        assert set(state.delivered) == {("b_1", now - 5), ("b_2", now - 1)}
        assert [kind for kind, _ in events] == [ACK_ENTRY_TYPE, "display", "toast"]
        assert events[0][1] == {"deadlines": [["b_2", now - 1]]}
        assert events[1][1] == {"ids": ["b_2"]}
        assert events[2][1] == "Backlog reminder"
