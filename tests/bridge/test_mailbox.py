"""The kernel's mailbox, which the event worker uses too: FIFO, one waiting reader, a
cancelled wait takes nothing."""

from __future__ import annotations

import asyncio

import pytest

from persona_mind.actors import Mailbox
from persona_mind.testing import wait_all_tasks_blocked


@pytest.mark.asyncio
async def test_items_come_out_in_the_order_they_went_in() -> None:
    box: Mailbox[int | None] = Mailbox()
    for item in (1, 2, None, 3):
        box.put(item)
    assert [await box.get() for _ in range(4)] == [1, 2, None, 3]


@pytest.mark.asyncio
async def test_a_waiting_reader_gets_what_is_put_later() -> None:
    box: Mailbox[str] = Mailbox()
    reader = asyncio.ensure_future(box.get())
    await wait_all_tasks_blocked()
    assert not reader.done()
    box.put("a")
    box.put("b")
    assert await reader == "a"
    assert await box.get() == "b"


@pytest.mark.asyncio
async def test_a_cancelled_wait_takes_nothing_and_the_next_reader_gets_the_item() -> None:
    box: Mailbox[str] = Mailbox()
    reader = asyncio.ensure_future(box.get())
    await wait_all_tasks_blocked()
    reader.cancel()
    box.put("kept")  # in the same step as the cancel: the wait must not take it
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert await box.get() == "kept"
