"""Reminder logic: which backlog reminders are due, what to arm, and the wake card.

Pure state an actor owns (the Reminder actor arms timers with ``clock.send_after``).
A reminder's *deadline identity* is ``(item id, remindAt)``: a maintenance re-arm that
sees the same identity keeps the pending timer instead of arming a duplicate, and an
identity once delivered or acknowledged is never delivered again (M-REMINDER-3/6).  A
changed ``remindAt`` is a new identity.  Closing the item (done/dropped) or its expiry
cancels the pending timer (M-REMINDER-5).  Home and legs get no reminders (M-REMINDER-7):
the caller simply never builds a book for them.

Acknowledgements are durable (issue 13, M-REMINDER-3): every wake is preceded by a session
custom entry of type :data:`ACK_ENTRY_TYPE` naming the deadline identities it shows, and
:func:`acknowledged_keys` reads them back from the branch a resumed session starts on, so a
reminder shown before a restart and ``/resume`` is not shown again after it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from persona_mind.messages.host import CustomEntry, DisplayMessage
from persona_mind.mind._cards import sanitize
from persona_mind.mind._model import BacklogItem
from persona_mind.mind._text import collapse_ws

__all__ = (
    "ACK_ENTRY_TYPE",
    "CARD_ITEMS",
    "CARD_ITEM_CHARS",
    "DeadlineKey",
    "RearmPlan",
    "ReminderBook",
    "ack_entry_data",
    "acknowledged_keys",
    "reminder_card",
)

CARD_ITEMS = 20
CARD_ITEM_CHARS = 200
DeadlineKey = tuple[str, float]

ACK_ENTRY_TYPE = "persona-mind-reminder-ack"
"""Session custom entry recording the deadline identities a wake showed (M-REMINDER-3)."""


@dataclass(frozen=True, slots=True)
class RearmPlan:
    """What a re-arm changes: timers to start (key, delay), timers to cancel, items due now."""

    arm: tuple[tuple[DeadlineKey, float], ...]
    cancel: tuple[DeadlineKey, ...]
    due: tuple[BacklogItem, ...]


@dataclass(slots=True)
class ReminderBook:
    """Pending and delivered deadline identities of one session's project backlog."""

    pending: set[DeadlineKey] = field(default_factory=set)
    delivered: set[DeadlineKey] = field(default_factory=set)

    def rearm(self, items: Iterable[BacklogItem], now: float) -> RearmPlan:
        """Reconcile timers with the current backlog (idempotent for unchanged items)."""
        wanted: dict[DeadlineKey, BacklogItem] = {}
        for item in items:
            if item.remindAt is not None and item.live(now):
                wanted[(item.id, item.remindAt)] = item
        cancel = tuple(sorted(k for k in self.pending if k not in wanted))
        self.pending.difference_update(cancel)
        arm: list[tuple[DeadlineKey, float]] = []
        due: list[BacklogItem] = []
        for key in sorted(wanted):
            if key in self.delivered or key in self.pending:
                continue
            if key[1] <= now:
                due.append(wanted[key])
            else:
                self.pending.add(key)
                arm.append((key, key[1] - now))
        return RearmPlan(tuple(arm), cancel, tuple(due))

    def fire(
        self, key: DeadlineKey, items: Iterable[BacklogItem], now: float
    ) -> BacklogItem | None:
        """A timer fired: the item if it is still live, due and not yet delivered."""
        self.pending.discard(key)
        if key in self.delivered:
            return None
        for item in items:
            if (item.id, item.remindAt) == key and item.live(now) and key[1] <= now:
                return item
        return None

    def acknowledge(self, delivered: Iterable[BacklogItem]) -> None:
        """Mark reminders shown: they are never replayed (M-REMINDER-3)."""
        for item in delivered:
            if item.remindAt is not None:
                self.delivered.add((item.id, item.remindAt))


def _clip(text: str) -> str:
    flat = collapse_ws(sanitize(text))
    return flat if len(flat) <= CARD_ITEM_CHARS else flat[: CARD_ITEM_CHARS - 1] + "…"


def reminder_card(items: Iterable[BacklogItem]) -> DisplayMessage | None:
    """The display-only wake: at most 20 items of at most 200 characters (DEC-9)."""
    due = sorted(items, key=lambda b: (b.remindAt or 0.0, b.id))
    if not due:
        return None
    shown = due[:CARD_ITEMS]
    lines = [f"- [{b.id}] {_clip(b.text)}" for b in shown]
    if len(due) > CARD_ITEMS:
        lines.append(f"(+{len(due) - CARD_ITEMS} more: backlog list)")
    title = "Backlog reminder" if len(due) == 1 else f"Backlog reminders ({len(due)})"
    return DisplayMessage(
        kind="persona-mind-reminder",
        title=title,
        body="\n".join(lines),
        details={"ids": [b.id for b in due]},
    )


def ack_entry_data(keys: Iterable[DeadlineKey]) -> dict[str, list[list[str | float]]]:
    """The :data:`ACK_ENTRY_TYPE` entry's data: ``{"deadlines": [[item id, remindAt], …]}``."""
    return {"deadlines": [[key[0], key[1]] for key in sorted(keys)]}


def _key(value: object) -> DeadlineKey | None:
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    item_id, at = value
    if not isinstance(item_id, str) or not item_id or isinstance(at, bool):
        return None
    if not isinstance(at, int | float) or not math.isfinite(at):
        return None
    return (item_id, float(at))


def acknowledged_keys(entries: Iterable[CustomEntry]) -> frozenset[DeadlineKey]:
    """Every deadline identity a session's ack entries name.

    A malformed entry (another writer, a hand-edited file) names nothing: the worst outcome
    is one repeated display-only wake, never a lost or invented acknowledgement.
    """
    keys: set[DeadlineKey] = set()
    for entry in entries:
        if entry.custom_type != ACK_ENTRY_TYPE or not isinstance(entry.data, dict):
            continue
        deadlines = entry.data.get("deadlines")
        if not isinstance(deadlines, list):
            continue
        for value in deadlines:
            key = _key(value)
            if key is not None:
                keys.add(key)
    return frozenset(keys)
