"""The Reminder actor: due backlog reminders become display-only wakes (M-REMINDER-*).

A wake is a :class:`DisplayMessage` (plus an optional short toast) handed to ``display`` —
never a user message and never a turn (M-REMINDER-1/2).  Timers are messages
(``clock.send_after``), so a firing timer is ordered in this mailbox like any other event.
The pure :class:`persona_mind.mind.ReminderBook` decides what to arm, cancel and deliver;
deadline identity survives re-arms and a delivered reminder is never shown again
(M-REMINDER-3/6), across generations and restarts of this actor.  Timers carry the
generation they were armed under and the kernel drops a stale one, so a replaced session
never gets a late wake; a new generation (``OwnerChanged``) cancels every timer, and the
next ``ArmReminders`` re-arms what the new session's backlog still wants.  The caller
never arms reminders in home or for legs (M-REMINDER-7).

Acknowledgements outlive this actor too (issue 13, M-REMINDER-3): before a wake is shown,
``record`` appends a session custom entry naming its deadline identities, and the Mind
feature hands them back in ``ArmReminders.acknowledged`` when a session starts or resumes, so a
wake acknowledged before a process restart and ``/resume`` is not shown again.  Each wake is
display-only plus a short toast (M-REMINDER-1).

The runtime spawns it at start; Mind's reminder rules (:class:`ReminderBook`, the card) are
imported at its first message, so start-up never loads Mind.

Restart contract (docs/actors.md): the delivered set is checkpointed after every wake, so a
restarted Reminder never replays one; pending timers are lost with the instance and come
back at the next maintenance re-arm (every settled turn and backlog change sends one).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, assert_never

from persona_mind.actors import Actor
from persona_mind.clock import TimerHandle
from persona_mind.errors import PersonaMindError
from persona_mind.messages.backlog import BacklogItem
from persona_mind.messages.host import DisplayMessage
from persona_mind.messages.owner import OwnerChanged
from persona_mind.messages.reminder import (
    ArmReminders,
    CancelReminders,
    GetReminderState,
    ReminderDue,
    ReminderMsg,
    ReminderState,
)

if TYPE_CHECKING:
    from persona_mind.mind.backlog._reminder import ReminderBook

__all__ = ("ReminderActor",)

Display = Callable[[DisplayMessage], Awaitable[None]]
Toast = Callable[[str], Awaitable[None]]
LoadBacklog = Callable[[], Awaitable[Sequence[BacklogItem]]]
Record = Callable[[str, object], Awaitable[None]]


class ReminderActor(Actor[ReminderMsg]):
    """Owns one session's reminder timers."""

    def __init__(
        self,
        display: Display,
        *,
        toast: Toast | None = None,
        load: LoadBacklog | None = None,
        record: Record | None = None,
    ) -> None:
        """``record(custom_type, data)`` appends a session custom entry (the ack entry)."""
        self.display = display
        self.toast = toast
        self.load = load
        self.record = record
        self._book: ReminderBook | None = None
        self.items: tuple[BacklogItem, ...] = ()
        self.timers: dict[tuple[str, float], TimerHandle] = {}
        self.wakes = 0

    @property
    def book(self) -> ReminderBook:
        """The pure reminder rules' state, built at the first message (imports Mind)."""
        if self._book is None:
            from persona_mind.mind.backlog._reminder import (  # noqa: PLC0415 - see module doc
                ReminderBook,
            )

            self._book = ReminderBook()
        return self._book

    async def on_start(self) -> None:
        saved = self.recovered
        if isinstance(saved, frozenset):
            self.book.delivered.update(saved)

    async def on_stop(self) -> None:
        self._cancel_all()

    async def receive(self, message: ReminderMsg) -> ReminderState | None:
        match message:
            case ArmReminders():
                self._acknowledged(message.acknowledged)
                await self._arm(message.items)
            case ReminderDue():
                await self._fire((message.item_id, message.remind_at))
            case CancelReminders() | OwnerChanged():
                self._reset()
            case GetReminderState():
                return ReminderState(
                    pending=tuple(sorted(self.book.pending)),
                    delivered=tuple(sorted(self.book.delivered)),
                    wakes=self.wakes,
                )
            case _:
                assert_never(message)
        return None

    def _reset(self) -> None:
        """Cancel every timer; what was shown stays shown (never replayed)."""
        self._cancel_all()
        if self._book is not None:  # nothing armed before the book exists
            self._book.pending.clear()
        self.items = ()

    def _cancel_all(self) -> None:
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()

    def _acknowledged(self, keys: Sequence[tuple[str, float]]) -> None:
        """The session history's acks join the delivered set (never shown again)."""
        fresh = set(keys) - self.book.delivered
        if not fresh:
            return
        self.book.delivered.update(fresh)
        self.checkpoint(frozenset(self.book.delivered))

    async def _arm(self, items: Sequence[BacklogItem]) -> None:
        self.items = tuple(items)
        plan = self.book.rearm(self.items, self.clock.wall())
        for key in plan.cancel:
            handle = self.timers.pop(key, None)
            if handle is not None:
                handle.cancel()
        for key, delay in plan.arm:
            msg = ReminderDue(item_id=key[0], remind_at=key[1])
            self.timers[key] = self.clock.send_after(delay, self.ref, msg)
        await self._deliver(plan.due)

    async def _fire(self, key: tuple[str, float]) -> None:
        self.timers.pop(key, None)
        if self.load is not None:
            # a store hiccup: decide on the last armed items rather than crash
            with contextlib.suppress(PersonaMindError):
                self.items = tuple(await self.load())
        item = self.book.fire(key, self.items, self.clock.wall())
        if item is not None:
            await self._deliver((item,))

    async def _deliver(self, due: Sequence[BacklogItem]) -> None:
        from persona_mind.mind.backlog._reminder import (  # noqa: PLC0415 - see module doc
            ACK_ENTRY_TYPE,
            ack_entry_data,
            reminder_card,
        )

        card = reminder_card(due)
        if card is None:
            return
        self.book.acknowledge(due)  # acknowledged before display: never replayed
        self.checkpoint(frozenset(self.book.delivered))
        if self.record is not None:  # durable: a resumed session replays it
            keys = [(b.id, b.remindAt) for b in due if b.remindAt is not None]
            await self.record(ACK_ENTRY_TYPE, ack_entry_data(keys))
        self.wakes += 1
        await self.display(card)
        if self.toast is not None:
            await self.toast(card.title)
