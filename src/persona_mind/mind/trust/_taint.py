"""Taint: does a model write reproduce text the user did not type?

An agent's memory is poisoned mostly by text the model *read* — a file, a tool result, a
peer's answer, a child's report — and was then talked into saving.  The runtime sees that
text arrive, so it keeps a bounded record of it per session and asks, for each model
``remember``/``supersede``/``stage``: does this text *substantially reproduce* untrusted
content, and not the user's own words?

"Substantially" is defined on normalised text (:func:`~._normalize.fold`, then word
tokens of letters and digits): the write's word 5-shingles are hashed, and the write is
tainted by a source when at least :data:`CONTAINMENT` of its shingles occur in that
source's record *and* fewer than :data:`CONTAINMENT` occur in what the user typed.  A
write shorter than :data:`SHINGLE` words is compared as one shingle of all its words, so a
copied short sentence still matches exactly.  Paraphrases share few 5-word runs; copies
(even with case, spacing, punctuation or lookalike changes) share nearly all of them —
``bench/taint.py`` measures both sides.

Memory is bounded: each source keeps at most :data:`MAX_SHINGLES` 64-bit hashes (oldest
evicted first), and a single observed text contributes at most :data:`MAX_TEXT_CHARS`
characters — so a session's record is at most ``len(sources) x MAX_SHINGLES x ~70 B``.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass

from persona_mind.messages.memory import Origin
from persona_mind.mind.trust._normalize import fold, skeleton

__all__ = (
    "CONTAINMENT",
    "MAX_SHINGLES",
    "MAX_TEXT_CHARS",
    "SHINGLE",
    "Taint",
    "TaintLedger",
    "containment",
    "shingle_steps",
    "shingles",
)

SHINGLE = 5
"""Words per shingle: long enough that ordinary phrasing rarely repeats a run by chance."""
CONTAINMENT = 0.5
"""Share of a write's shingles found in a source's record at or above which it is a copy."""
MAX_SHINGLES = 50_000
"""Hashes kept per source (FIFO); ~3.5 MB per source at most, usually far less."""
MAX_TEXT_CHARS = 256 * 1024
"""Characters of one observed text that are recorded (its head); the rest is ignored."""

_WORD = re.compile(r"[^\W_]+")
_NOT_WORD = re.compile(r"[\W_]")
_WORDS_CHUNK = 8 * 1024
_HASH_CHUNK = 512
_ADD_CHUNK = 4096
STEPPED_CHARS = 16 * 1024
"""A user message longer than this is recorded in steps (:meth:`TaintLedger.observe_user_async`)."""
UNTRUSTED: tuple[Origin, ...] = ("tool-output", "peer", "report")


async def _next_turn() -> None:
    await asyncio.sleep(0)


def _hash(words: tuple[str, ...]) -> int:
    digest = hashlib.blake2b(" ".join(words).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def shingles(text: str, *, limit: int = MAX_TEXT_CHARS) -> list[int]:
    """The hashed word shingles of ``text`` after normalisation (short text: one shingle)."""
    steps = shingle_steps(text, limit=limit)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: list[int] = done.value
            return result


def shingle_steps(text: str, *, limit: int = MAX_TEXT_CHARS) -> Generator[None, None, list[int]]:
    """:func:`shingles` in bounded steps: each ``next()`` splits about :data:`_WORDS_CHUNK`
    characters into words or hashes :data:`_HASH_CHUNK` shingles (under a millisecond each;
    a 256 KiB head is about 50 ms of CPU); the return value is the shingles."""
    form = skeleton(fold(text[:limit]))
    found: list[str] = []
    at = 0
    while at < len(form):  # cut only where no word runs on, so no word is split
        cut = _NOT_WORD.search(form, min(len(form), at + _WORDS_CHUNK))
        end = cut.start() if cut is not None else len(form)
        found.extend(_WORD.findall(form, at, end))
        at = end
        yield
    words = tuple(found)
    if not words:
        return []
    if len(words) < SHINGLE:
        return [_hash(words)]
    total = len(words) - SHINGLE + 1
    out: list[int] = []
    for start in range(0, total, _HASH_CHUNK):
        out.extend(
            _hash(words[i : i + SHINGLE]) for i in range(start, min(total, start + _HASH_CHUNK))
        )
        yield
    return out


def containment(candidate: list[int], record: set[int] | OrderedDict[int, None]) -> float:
    """Share of ``candidate`` shingles present in ``record`` (0.0 for an empty candidate)."""
    if not candidate:
        return 0.0
    return sum(1 for h in candidate if h in record) / len(candidate)


@dataclass(frozen=True, slots=True)
class Taint:
    """Why a write is tainted: its source and the measured shares."""

    source: Origin
    containment: float
    user_containment: float

    def reason(self) -> str:
        """One line for the model's tool result and the pending card."""
        label = {"tool-output": "a tool result", "peer": "a consulted persona's answer"}.get(
            self.source, "a relayed report" if self.source == "report" else self.source
        )
        return (
            f"{round(self.containment * 100)} % of its wording reproduces {label} "
            "the user did not type"
        )


class _Record:
    __slots__ = ("hashes",)

    def __init__(self) -> None:
        self.hashes: OrderedDict[int, None] = OrderedDict()

    def add(self, hashes: list[int]) -> None:
        for h in hashes:
            if h in self.hashes:
                self.hashes.move_to_end(h)
            else:
                self.hashes[h] = None
        while len(self.hashes) > MAX_SHINGLES:
            self.hashes.popitem(last=False)


class TaintLedger:
    """One session's record of untrusted text and of the user's own messages.

    Owned by whoever owns the session's state (Mind's session); not thread-safe, called
    from one event loop.  Hashing a 256 KiB tool result costs a few milliseconds.
    """

    __slots__ = ("_records", "_user")

    def __init__(self) -> None:
        self._records: dict[Origin, _Record] = {}
        self._user = _Record()

    def observe(self, source: Origin, text: str) -> None:
        """Record text that entered the session from ``source`` (not typed by the user)."""
        if source not in UNTRUSTED or not text:
            return
        self._records.setdefault(source, _Record()).add(shingles(text))

    def observe_user(self, text: str) -> None:
        """Record a message the user typed: reproducing it is never taint."""
        if text:
            self._user.add(shingles(text))

    async def observe_user_async(
        self,
        text: str,
        *,
        pause: Callable[[], Awaitable[None]] = _next_turn,
        budget: float = 0.0005,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        """:meth:`observe_user` for a caller on an event loop: a message longer than
        :data:`STEPPED_CHARS` (a pasted log) is hashed in steps, awaiting ``pause`` whenever
        the steps since the last one have used ``budget`` seconds of ``timer``.  A call
        cancelled while hashing records nothing; one cancelled while recording keeps the
        hashes already added (less of the user's own text: never a write wrongly trusted)."""
        if len(text) <= STEPPED_CHARS:
            self.observe_user(text)
            return
        steps = shingle_steps(text)
        start = timer()
        while True:
            try:
                next(steps)
            except StopIteration as done:
                hashes: list[int] = done.value
                break
            if timer() - start >= budget:
                await pause()
                start = timer()
        for at in range(0, len(hashes), _ADD_CHUNK):  # 50,000 hashes are a few ms to add
            self._user.add(hashes[at : at + _ADD_CHUNK])
            if timer() - start >= budget:
                await pause()
                start = timer()

    def size(self) -> int:
        """Hashes held in all records (for the bound's tests and status)."""
        return len(self._user.hashes) + sum(len(r.hashes) for r in self._records.values())

    def taint(self, text: str) -> Taint | None:
        """The strongest untrusted source ``text`` substantially reproduces, or ``None``."""
        cand = shingles(text)
        if not cand or not self._records:
            return None
        user = containment(cand, self._user.hashes)
        if user >= CONTAINMENT:
            return None
        best: Taint | None = None
        for source, record in self._records.items():
            share = containment(cand, record.hashes)
            if share >= CONTAINMENT and (best is None or share > best.containment):
                best = Taint(source, share, user)
        return best
