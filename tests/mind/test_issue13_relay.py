"""Issue 13 item 2 at the Mind level: the deferred-input replay (M-TRUST-2) and relay nudges
(M-CAPTURE-8) through :class:`MindSession`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from persona_mind.messages.host import DEFERRED_INPUT_TYPE, BeforeAgentStart, Input
from persona_mind.mind._session import DEFERRED_INPUT_TYPE as MIND_DEFERRED_INPUT_TYPE
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore
from tests.mind.conftest import ARCHITECT
from tests.mind.test_session import session, start_event

TEXT = "Remember that release tags are signed"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "app"
    (root / ".git").mkdir(parents=True)
    return root


def test_one_reserved_type_for_port_and_mind_M_TRUST_2() -> None:
    assert DEFERRED_INPUT_TYPE == MIND_DEFERRED_INPUT_TYPE == "pi-persona-deferred-input"
    assert Input(text="x", source="extension", custom_type=DEFERRED_INPUT_TYPE).deferred
    assert not Input(text="x", source="extension", custom_type="pi-persona-deferred").deferred
    assert not Input(text="x", source="extension", custom_type="PI-PERSONA-DEFERRED-INPUT").deferred
    assert not Input(text="x").deferred


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("custom_type", "captured"),
    [
        (DEFERRED_INPUT_TYPE, True),
        ("intercom-message", False),
        ("pi-persona-deferred-input ", False),
        (None, False),
    ],
)
async def test_only_the_reserved_custom_type_is_direct_input_M_TRUST_2(
    store: FakeStore,
    clock: ManualClock,
    tmp_path: Path,
    repo: Path,
    custom_type: str | None,
    captured: bool,
) -> None:
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    event = Input(text=TEXT, source="extension", custom_type=custom_type)
    out = await s.on_input(event, deferred=event.deferred)
    assert (out.captured is not None) is captured
    assert bool(store.writes) is captured


@pytest.mark.asyncio
async def test_a_custom_message_is_foreign_whatever_its_source_M_TRUST_1(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    event = Input(text=TEXT, source="interactive", custom_type="intercom-message")
    out = await s.on_input(event, deferred=event.deferred)
    assert (out.captured, out.nudge) == (None, None)
    assert store.writes == []


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("settings", "shown"),
    [
        (None, True),
        ({"mind": {"capture": "prompt"}}, True),
        ({"mind": {"capture": "off"}}, False),
        ({"mind": {"nudge": False}}, False),
    ],
)
async def test_relay_suggestion_is_a_one_time_nudge_M_CAPTURE_8(
    store: FakeStore,
    clock: ManualClock,
    tmp_path: Path,
    repo: Path,
    settings: dict[str, Any] | None,
    shown: bool,
) -> None:
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1, settings=settings)
    assert s.suggest("RELAY-HINT-77") is shown
    first = await s.before_agent_start(BeforeAgentStart(prompt="next"))
    assert any("RELAY-HINT-77" in sec for sec in first.sections) is shown
    again = await s.before_agent_start(BeforeAgentStart(prompt="next"))
    assert not any("RELAY-HINT-77" in sec for sec in again.sections)
    assert store.writes == []  # a suggestion never writes


@pytest.mark.asyncio
async def test_no_suggestion_in_a_leg_or_inactive_session(
    store: FakeStore, clock: ManualClock, tmp_path: Path, repo: Path
) -> None:
    leg = session(store, clock, tmp_path, leg=True)
    leg.start(start_event(repo), persona=ARCHITECT, generation=1)
    assert not leg.suggest("x")
    idle = session(store, clock, tmp_path)
    assert not idle.suggest("x")
