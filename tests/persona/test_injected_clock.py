"""No clock reads in persona/ (issue 10 scope 4): every timestamp Persona writes, and the
retention rule for session snapshots, use the injected clock, so a test drives them with
``ManualClock`` (DEC: records are display-only, retention is P-BINDING's week)."""

from __future__ import annotations

import json
from pathlib import Path

from persona_mind.persona import SessionContext
from persona_mind.persona.binding._team_binding import KEEP_SECONDS, KEEP_SESSIONS, session_key
from persona_mind.persona.packs._drafts import prepare_edit
from persona_mind.persona.packs._lifecycle import prepare_install
from persona_mind.testing import ManualClock
from tests.persona._wiring import persona_service

START = 1_800_000_000.0  # 2027-01-15T08:00:00Z


def test_store_draft_and_snapshot_records_carry_the_manual_clock_time(
    agent_dir: Path, catalog: Path
) -> None:
    clock = ManualClock(wall=START)
    service = persona_service(agent_dir, catalog_dir=catalog, clock=clock)
    prepare_install(service.store, "demo").execute()
    clock.advance(90.0)
    prepare_edit(service.store, "demo").execute()
    clock.advance(3600.0)
    record = service.bindings.bind("s1", "official/demo")

    state = json.loads(service.store.state_path.read_text())
    assert state["packs"]["official/demo"]["updatedAt"] == "2027-01-15T08:00:00Z"
    (draft,) = state["drafts"].values()
    assert draft["createdAt"] == "2027-01-15T08:01:30Z"
    assert record.updatedAt == "2027-01-15T09:01:30Z"
    on_disk = json.loads((service.bindings.session_dir("s1") / "binding.json").read_text())
    assert on_disk["updatedAt"] == "2027-01-15T09:01:30Z"


def test_snapshot_retention_follows_the_injected_clock(agent_dir: Path, catalog: Path) -> None:
    """A session start marks its folder used at the clock's time, and collection measures
    age on the same clock: eight days of ManualClock time later, the ended sessions beyond
    the kept 32 are collected, while the ones touched now are not."""
    clock = ManualClock(wall=START)
    service = persona_service(agent_dir, catalog_dir=catalog, clock=clock)
    prepare_install(service.store, "demo").execute()
    ended = [f"old{i:02d}" for i in range(KEEP_SESSIONS + 2)]
    for sid in ended:
        service.bindings.bind(sid, "official/demo")
        service.bindings.touch(sid)  # used at START
    assert service.bindings.collect(()) == []  # nothing is a week old yet

    clock.advance(KEEP_SECONDS + 86400.0)
    service.open_session(SessionContext(session_id="fresh", cwd=agent_dir))  # collects
    names = {p.name for p in service.bindings.root.iterdir()}
    gone = [sid for sid in ended if session_key(sid) not in names]
    assert len(gone) == 2  # only the overflow beyond KEEP_SESSIONS went
    assert session_key("fresh") in names
