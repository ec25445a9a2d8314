"""Trace filters: by actor (receiver or sender), correlation id, generation, event kind
(issue 2 item 5: "filters by actor, correlation id or generation")."""

from __future__ import annotations

from persona_mind.trace import TraceEvent, TraceFilter
from tests.trace._helpers import sample_events


def _ids(selection: TraceFilter) -> list[tuple[str, str, int | None]]:
    return [(e.ev, e.actor, e.id) for e in selection.apply(sample_events())]


def test_no_constraint_keeps_every_event_in_order() -> None:
    assert not TraceFilter().active
    assert list(TraceFilter().apply(sample_events())) == sample_events()


def test_actor_matches_the_receiver_or_the_sender() -> None:
    kept = _ids(TraceFilter(actors=frozenset({"owner"})))
    assert kept == [
        ("start", "owner", None),
        ("send", "owner", 1),
        ("deliver", "owner", 1),
        ("send", "store", 2),  # owner is the sender
        ("deliver", "store", 2),
        ("reply", "store", 2),
    ]


def test_several_actors_are_alternatives() -> None:
    kept = _ids(TraceFilter(actors=frozenset({"reminder", "child-runner"})))
    assert kept == [("child", "child-runner", None), ("send", "reminder", 4)]


def test_correlation_id_selects_one_causal_chain() -> None:
    kept = _ids(TraceFilter(corrs=frozenset({"c1"})))
    assert kept == [
        ("send", "owner", 1),
        ("deliver", "owner", 1),
        ("send", "store", 2),
        ("deliver", "store", 2),
        ("reply", "store", 2),
    ]


def test_generation_keeps_only_events_that_carry_it() -> None:
    assert _ids(TraceFilter(gens=frozenset({2}))) == [("send", "reminder", 4)]
    assert len(_ids(TraceFilter(gens=frozenset({1})))) == 7  # lifecycle events carry no gen


def test_event_kind_filter() -> None:
    kept = _ids(TraceFilter(events=frozenset({"drop", "restart"})))
    assert kept == [("drop", "store", 3), ("restart", "store", None)]


def test_different_constraints_combine_with_and() -> None:
    selection = TraceFilter(
        actors=frozenset({"store"}), events=frozenset({"send"}), gens=frozenset({1})
    )
    assert selection.active
    assert _ids(selection) == [("send", "store", 2), ("send", "store", 3)]
    assert _ids(TraceFilter(actors=frozenset({"reminder"}), corrs=frozenset({"c1"}))) == []


def test_an_unknown_actor_matches_nothing() -> None:
    assert _ids(TraceFilter(actors=frozenset({"nobody"}))) == []


def test_filter_on_sender_none_does_not_match_actor_named_host() -> None:
    # The outside (sender None) is rendered as "host" but is not an actor of that name.
    event = TraceEvent(t=0.0, ev="send", actor="owner", sender=None)
    assert not TraceFilter(actors=frozenset({"host"})).matches(event)
