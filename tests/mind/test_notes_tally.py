"""The Owner's copy of the session-notes budget (M-SESSION-NOTES-4/14): a ledger hands it
out as an immutable tally and absorbs it back after a Companion restart."""

from __future__ import annotations

from persona_mind.mind import NotesLedger, NotesTally, OwnerKey
from persona_mind.mind.notes._ledger import MAX_EVENTS


def ledger(session: str = "s1") -> NotesLedger:
    return NotesLedger(OwnerKey("pi", session, None))


def test_a_tally_round_trips_the_seen_events_and_the_close() -> None:
    first = ledger()
    first.decide_save("Checkpoint: v2", now=1.0)
    tally = first.tally()
    assert (tally.session_id, len(tally.seen), tally.closed) == ("s1", 1, None)
    fresh = ledger()
    fresh.absorb(tally)
    assert (fresh.lifetime_events, fresh.lifetime_bytes) == (1, first.lifetime_bytes)
    assert fresh.notes == {}  # counted toward the budget, not made active


def test_another_sessions_tally_is_ignored() -> None:
    first = ledger("other")
    first.decide_save("not mine", now=1.0)
    mine = ledger()
    mine.absorb(first.tally())
    assert mine.lifetime_events == 0


def test_a_closed_tally_closes_the_ledger_and_an_exceeded_budget_closes_it_too() -> None:
    mine = ledger()
    mine.absorb(NotesTally(session_id="s1", closed="notes.unknown_version"))
    assert mine.closed == "notes.unknown_version"
    assert mine.views() == ()
    over = ledger()
    over.absorb(
        NotesTally(session_id="s1", seen=tuple((f"e{i}", 10) for i in range(MAX_EVENTS + 1)))
    )
    assert over.closed is not None
    assert "note events" in over.closed
