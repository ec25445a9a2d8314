"""The Reminder actor: due backlog reminders become display-only wakes (M-REMINDER-*).

A wake is a :class:`DisplayMessage` (plus an optional short toast) handed to ``display`` —
never a user message and never a turn (M-REMINDER-1/2).  Timers are messages
(``clock.send_after``), so a firing timer is ordered in this mailbox like any other event.
The pure :class:`persona_mind.mind.ReminderBook` decides what to arm, cancel and deliver;
deadline identity survives re-arms and a delivered reminder is never shown again
(M-REMINDER-3/6).  Work from an older generation is ignored, so a replaced session never
gets a late wake.  The caller never arms reminders in home or for legs (M-REMINDER-7).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence

from persona_mind.actors import Actor
from persona_mind.clock import TimerHandle
from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import DisplayMessage
from persona_mind.messages.reminder import (
    ArmReminders,
    CancelReminders,
    GetReminderState,
    ReminderDue,
    ReminderMsg,
    ReminderState,
)
from persona_mind.mind import BacklogItem, ReminderBook, reminder_card

__all__ = ("ReminderActor",)

Display = Callable[[DisplayMessage], Awaitable[None]]
Toast = Callable[[str], Awaitable[None]]
LoadBacklog = Callable[[], Awaitable[Sequence[BacklogItem]]]


class ReminderActor(Actor[ReminderMsg]):
    """Owns one session's reminder timers."""

    def __init__(
        self, display: Display, *, toast: Toast | None = None, load: LoadBacklog | None = None
    ) -> None:
        self.display = display
        self.toast = toast
        self.load = load
        self.book = ReminderBook()
        self.items: tuple[BacklogItem, ...] = ()
        self.timers: dict[tuple[str, float], TimerHandle] = {}
        self.wakes = 0

    async def on_stop(self) -> None:
        self._cancel_all()

    async def receive(self, message: ReminderMsg) -> object:
        match message:
            case ArmReminders():
                if message.generation < self.generation:
                    return None
                if message.generation > self.generation:
                    self._reset(message.generation)
                await self._arm(message.items)
                return None
            case ReminderDue():
                if message.generation == self.generation:
                    await self._fire((message.item_id, message.remind_at))
                return None
            case CancelReminders():
                if message.generation >= self.generation:
                    self._reset(message.generation)
                return None
            case GetReminderState():
                return ReminderState(
                    generation=self.generation,
                    pending=tuple(sorted(self.book.pending)),
                    delivered=tuple(sorted(self.book.delivered)),
                    wakes=self.wakes,
                )

    def _reset(self, generation: int) -> None:
        self._cancel_all()
        self.book = ReminderBook()
        self.items = ()
        self.generation = generation

    def _cancel_all(self) -> None:
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()

    async def _arm(self, items: Sequence[BacklogItem]) -> None:
        self.items = tuple(items)
        plan = self.book.rearm(self.items, self.clock.wall())
        for key in plan.cancel:
            handle = self.timers.pop(key, None)
            if handle is not None:
                handle.cancel()
        for key, delay in plan.arm:
            msg = ReminderDue(item_id=key[0], remind_at=key[1], generation=self.generation)
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
        card = reminder_card(due)
        if card is None:
            return
        self.book.acknowledge(due)  # acknowledged before display: never replayed
        self.wakes += 1
        await self.display(card)
        if self.toast is not None:
            await self.toast(card.title)
