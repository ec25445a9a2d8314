"""A long user message is recorded for taint in bounded steps (issue 27 item 6): the same
shingles as in one piece, the event loop gets passes by the time budget, a cancelled
recording while hashing leaves nothing behind.  Deterministic: the budget's timer is a
counter and the pause is a plain coroutine.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

from persona_mind.mind.trust import _taint
from persona_mind.mind.trust._normalize import fold, skeleton
from persona_mind.mind.trust._taint import STEPPED_CHARS, TaintLedger, shingle_steps, shingles

LINE = "2026-01-05 INFO Wörker_3 processed job 4411 — naïve ＦＵＬＬ width; "


def _reference(text: str) -> list[int]:
    """The shingles computed in one piece, as the module did before it had steps."""
    words = tuple(_taint._WORD.findall(skeleton(fold(text[: _taint.MAX_TEXT_CHARS]))))
    return [_taint._hash(words[i : i + _taint.SHINGLE]) for i in range(len(words) - 4)]


def _paste() -> str:
    body = LINE * (3 * _taint._WORDS_CHUNK // len(LINE))
    # a word running across the first chunk's edge must stay one word
    edge = _taint._WORDS_CHUNK - 10
    return body[:edge] + "x" * 40 + body[edge:]


def test_shingles_in_steps_equal_the_one_piece_shingles() -> None:
    text = _paste()
    steps = shingle_steps(text)
    count = 0
    while True:
        try:
            next(steps)
            count += 1
        except StopIteration as done:
            stepped = done.value
            break
    assert count > 3
    assert stepped == _reference(text)
    assert shingles(text) == stepped


def test_a_long_message_is_recorded_in_steps_and_counts_as_the_users_words() -> None:
    text = _paste()
    assert len(text) > STEPPED_CHARS
    whole = TaintLedger()
    whole.observe_user(text)
    ticks = itertools.count()
    pauses = 0

    async def pause() -> None:
        nonlocal pauses
        pauses += 1
        await asyncio.sleep(0)

    stepped = TaintLedger()
    stepped.observe("tool-output", text)
    asyncio.run(stepped.observe_user_async(text, pause=pause, budget=2, timer=lambda: next(ticks)))
    assert pauses > 3
    assert stepped._user.hashes == whole._user.hashes
    assert stepped.taint(text[: 4 * len(LINE)]) is None  # the user typed it: never taint


def test_a_cancelled_recording_records_nothing_of_the_hashed_part() -> None:
    ledger = TaintLedger()
    seen = 0

    async def pause() -> None:
        nonlocal seen
        seen += 1
        if seen == 2:
            raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(ledger.observe_user_async(_paste(), pause=pause, budget=0.0))
    assert ledger.size() == 0


def test_a_short_message_is_recorded_inline() -> None:
    async def never() -> None:
        raise AssertionError("a short message needs no pause")

    ledger = TaintLedger()
    asyncio.run(ledger.observe_user_async(LINE, pause=never))
    assert ledger.size() > 0
