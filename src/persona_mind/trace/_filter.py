"""Selecting events from a trace: by actor, correlation id, generation and event kind.

Options of different kinds combine with AND; several values of one kind combine with
OR, so ``--actor a --actor b --event drop`` means "drops that concern a or b".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from persona_mind.trace._schema import TraceEvent

__all__ = ("TraceFilter",)


@dataclass(frozen=True, slots=True)
class TraceFilter:
    """Which events to keep; an empty set means "no constraint on this field".

    ``actors`` matches an event's ``actor`` *or* its ``sender``, so filtering by one actor
    shows both what it received and what it sent. ``gens`` keeps only events that carry
    one of the generations (lifecycle events without ``gen`` are then left out).
    """

    actors: frozenset[str] = frozenset()
    corrs: frozenset[str] = frozenset()
    gens: frozenset[int] = frozenset()
    events: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        """True when at least one constraint is set."""
        return bool(self.actors or self.corrs or self.gens or self.events)

    def matches(self, event: TraceEvent) -> bool:
        """Whether ``event`` passes every constraint."""
        if self.actors and event.actor not in self.actors and event.sender not in self.actors:
            return False
        if self.corrs and event.corr not in self.corrs:
            return False
        if self.gens and event.gen not in self.gens:
            return False
        return not (self.events and event.ev not in self.events)

    def apply(self, events: Iterable[TraceEvent]) -> Iterator[TraceEvent]:
        """Yield the events that match, in their original order."""
        return (event for event in events if self.matches(event))
