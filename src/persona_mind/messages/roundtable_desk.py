"""The RoundtableDesk's protocol: one round-table at a time per runtime, by mailbox order.

``StartRoundtable`` is refused while one runs (``RoundtableBusy``) — decided by the desk's
handler from its own state, not by a flag another task flips. Progress arrives as
messages from the run's coordinator, and the run's end is the desk's own bookkeeping.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.child import ChildTeam
from persona_mind.messages.roundtable_progress import RoundtableProgress, RoundtableResult

__all__ = (
    "CancelRun",
    "DeskMsg",
    "DeskProgress",
    "DeskStatus",
    "RoundtableEnded",
    "RoundtableStatus",
    "StartRoundtable",
    "WatchRoundtable",
    "WatchedProgress",
)


class StartRoundtable(Ask[RoundtableResult], frozen=True, kw_only=True):
    """Run one round-table; answered with its synthesis when it ends."""

    team: ChildTeam
    query: str
    model: str
    injection: str = ""
    cwd: str | None = None
    selection: tuple[tuple[str, str], ...] | None = None
    """The session lead's validated ``(name, reason)`` roster (its ``persona_roundtable``
    call); ``None``: a child lead selects (the CLI/library path)."""
    on_progress: Callable[[RoundtableProgress], Awaitable[None]] | None = None
    """A live display: the desk awaits it with each new snapshot while the run lasts, as
    its own work (the tool call's partial results in Pi). This message never leaves the
    process, like the Store's mutation functions."""


class DeskStatus(msgspec.Struct, frozen=True, kw_only=True):
    running: bool
    progress: RoundtableProgress | None


class RoundtableStatus(Ask[DeskStatus], frozen=True, kw_only=True):
    """Whether a round-table runs, and the last progress snapshot (never opinions)."""


class WatchedProgress(msgspec.Struct, frozen=True, kw_only=True):
    """A progress snapshot newer than the watcher's ``after`` (``version`` counts changes)."""

    version: int
    running: bool
    progress: RoundtableProgress | None


class WatchRoundtable(Ask[WatchedProgress], frozen=True, kw_only=True):
    """Answered with the first progress snapshot whose version is above ``after``.

    A live display long-polls with it (``after`` = the last version it showed): the answer
    comes at once when there is news, else at the next change. No reply-to ref travels."""

    after: int = 0


class DeskProgress(Msg, frozen=True, kw_only=True):
    """A new progress snapshot of the running round-table (from its coordinator)."""

    progress: RoundtableProgress


class CancelRun(Msg, frozen=True, kw_only=True):
    """The asker went away: stop the running round-table."""

    reason: str = "the caller was cancelled"


class RoundtableEnded(Msg, frozen=True, kw_only=True):
    """Internal bookkeeping: the run's work ended (``outcome`` from the kernel)."""

    outcome: Any


DeskMsg = (
    StartRoundtable
    | RoundtableStatus
    | WatchRoundtable
    | DeskProgress
    | CancelRun
    | RoundtableEnded
)
