"""The event worker's mailbox: FIFO, one waiting reader, a cancelled wait takes nothing."""

from __future__ import annotations

import asyncio

import pytest

from persona_mind.bridge._work import Mailbox
from persona_mind.testing import wait_all_tasks_blocked


@pytest.mark.asyncio
async def test_items_come_out_in_the_order_they_went_in() -> None:
    box: Mailbox[int | None] = Mailbox(asyncio.get_running_loop())
    for item in (1, 2, None, 3):
        box.put_nowait(item)
    assert [await box.get() for _ in range(4)] == [1, 2, None, 3]


@pytest.mark.asyncio
async def test_a_waiting_reader_gets_what_is_put_later() -> None:
    box: Mailbox[str] = Mailbox(asyncio.get_running_loop())
    reader = asyncio.ensure_future(box.get())
    await wait_all_tasks_blocked()
    assert not reader.done()
    box.put_nowait("a")
    box.put_nowait("b")
    assert await reader == "a"
    assert await box.get() == "b"


@pytest.mark.asyncio
async def test_a_cancelled_wait_takes_nothing_and_the_next_reader_gets_the_item() -> None:
    box: Mailbox[str] = Mailbox(asyncio.get_running_loop())
    reader = asyncio.ensure_future(box.get())
    await wait_all_tasks_blocked()
    reader.cancel()
    box.put_nowait("kept")  # in the same step as the cancel: the wait must not take it
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert await box.get() == "kept"
