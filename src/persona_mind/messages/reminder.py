"""The Reminder actor's protocol: arm, fire, cancel and inspect backlog reminders.

The Companion (or Owner) sends :class:`ArmReminders` with the project's current backlog
after session start and after every backlog change or turn (a *maintenance re-arm*); the
actor keeps one timer per deadline identity ``(item id, remindAt)``.  :class:`CancelReminders`
stops every timer (shutdown, home, legs), and so does every ``OwnerChanged`` broadcast (a
new generation).  Timers come back as :class:`ReminderDue` through ``clock.send_after``,
stamped with the generation they were armed under, so a timer of a replaced session is
dropped by the kernel.
"""

from __future__ import annotations

import msgspec

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.backlog import BacklogItem
from persona_mind.messages.owner import OwnerChanged

__all__ = (
    "ArmReminders",
    "CancelReminders",
    "GetReminderState",
    "ReminderDue",
    "ReminderMsg",
    "ReminderState",
)


class ArmReminders(Msg, frozen=True, kw_only=True):
    """Reconcile timers with ``items`` (the project's backlog) under ``generation``.

    ``acknowledged`` are deadline identities the session's history says were already shown
    (its ack entries, replayed on start and resume): they join the delivered set and are
    never shown again (M-REMINDER-3).
    """

    items: tuple[BacklogItem, ...]
    acknowledged: tuple[tuple[str, float], ...] = ()


class ReminderDue(Msg, frozen=True, kw_only=True):
    """A timer fired for deadline identity (``item_id``, ``remind_at``)."""

    item_id: str
    remind_at: float


class CancelReminders(Msg, frozen=True, kw_only=True):
    """Cancel every pending timer (closure, home, legs); shown reminders stay shown."""


class GetReminderState(Ask["ReminderState"], frozen=True, kw_only=True):
    """Ask for a :class:`ReminderState` snapshot (diagnostics, tests)."""


class ReminderState(msgspec.Struct, frozen=True, kw_only=True):
    """Pending and delivered deadline identities, and the number of wakes shown."""

    pending: tuple[tuple[str, float], ...]
    delivered: tuple[tuple[str, float], ...]
    wakes: int


ReminderMsg = ArmReminders | ReminderDue | CancelReminders | GetReminderState | OwnerChanged
