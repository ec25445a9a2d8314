"""``pi-persona:activity:v1`` (M-ACTIVITY-1..10)."""

from __future__ import annotations

import msgspec
import pytest

from persona_mind.mind.optimize._activity import (
    MAX_FINISHED_ROWS,
    Activity,
    ActivityBoard,
    Phase,
    State,
)


def ev(n: int | str, state: State = "done", phase: Phase = "inspect") -> Activity:
    return Activity(session="s#1", activity=f"a{n}", phase=phase, state=state, target="stm")


def test_the_payload_is_closed_M_ACTIVITY_2_3() -> None:
    raw = msgspec.json.encode(ev(1))
    assert set(msgspec.json.decode(raw)) == {"v", "session", "activity", "phase", "state", "target"}
    assert msgspec.json.decode(raw)["v"] == "pi-persona:activity:v1"
    widened = raw[:-1] + b',"text":"a memory"}'
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(widened, type=Activity)


@pytest.mark.parametrize("count", [MAX_FINISHED_ROWS - 1, MAX_FINISHED_ROWS, MAX_FINISHED_ROWS + 1])
def test_finished_rows_are_bounded_M_ACTIVITY_8(count: int) -> None:
    board = ActivityBoard()
    board.bind("s#1")
    board.publish("s#1", ev("live", "staged", "stage"))
    for n in range(count):
        board.publish("s#1", ev(n))
    finished = [r for r in board.rows.values() if r.finished]
    assert len(finished) == min(count, MAX_FINISHED_ROWS)
    assert board.rows["alive"].state == "staged"  # a staged plan is kept, shown as staged
    assert board.line() == "Mind activity: stm stage staged"


def test_late_events_of_a_replaced_owner_are_suppressed_M_ACTIVITY_7() -> None:
    board = ActivityBoard()
    board.bind("s#1")
    assert board.publish("s#1", ev(1, "running"))
    board.bind("s#2")
    assert board.rows == {}
    assert not board.publish("s#1", ev(1, "done"))
    assert board.line() is None
    board.bind(None)
    assert not board.publish("s#2", ev(2))
