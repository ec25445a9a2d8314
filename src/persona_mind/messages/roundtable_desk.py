"""The RoundtableDesk's protocol: one round-table at a time per runtime, by mailbox order.

``StartRoundtable`` is refused while one runs (``RoundtableBusy``) — decided by the desk's
handler from its own state, not by a flag another task flips. Progress arrives as
messages from the run's coordinator, and the run's end is the desk's own bookkeeping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.messages._base import Ask, Msg
from persona_mind.runners._child_types import ChildTeam
from persona_mind.runners._roundtable_progress import RoundtableProgress

if TYPE_CHECKING:
    from persona_mind.runners._roundtable_progress import (  # noqa: F401 - named in Ask["…"]
        RoundtableResult,
    )

__all__ = (
    "CancelRun",
    "DeskMsg",
    "DeskProgress",
    "DeskStatus",
    "RoundtableEnded",
    "RoundtableStatus",
    "StartRoundtable",
)


class StartRoundtable(Ask["RoundtableResult"], frozen=True, kw_only=True):
    """Run one round-table; answered with its synthesis when it ends."""

    team: ChildTeam
    query: str
    model: str
    injection: str = ""
    cwd: str | None = None


class DeskStatus(msgspec.Struct, frozen=True, kw_only=True):
    running: bool
    progress: RoundtableProgress | None


class RoundtableStatus(Ask[DeskStatus], frozen=True, kw_only=True):
    """Whether a round-table runs, and the last progress snapshot (never opinions)."""


class DeskProgress(Msg, frozen=True, kw_only=True):
    """A new progress snapshot of the running round-table (from its coordinator)."""

    progress: RoundtableProgress


class CancelRun(Msg, frozen=True, kw_only=True):
    """The asker went away: stop the running round-table."""

    reason: str = "the caller was cancelled"


class RoundtableEnded(Msg, frozen=True, kw_only=True):
    """Internal bookkeeping: the run's work ended (``outcome`` from the kernel)."""

    outcome: Any


DeskMsg = StartRoundtable | RoundtableStatus | DeskProgress | CancelRun | RoundtableEnded
