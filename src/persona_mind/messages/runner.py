"""Protocols of the ChildRunner actor and of a round-table coordinator.

Replies to long work are *deferred* by the kernel: asking :class:`RunChild` (or
:class:`AwaitRoundtable`) is answered when the child (or the round-table) finishes, while
the actor's mailbox stays free for progress, status queries and cancels. Every ask's
reply type is part of its message type (``Ask[R]``). No message carries a generation:
the kernel stamps and checks it, and a newer generation cancels the work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.child import (
    ChildProgress,
    ChildReply,
    ChildRequest,
    ChildSpend,  # noqa: F401 - named in Ask["…"]
    ChildUsage,
)
from persona_mind.messages.roundtable_progress import RoundtableProgress, RoundtableResult

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef

__all__ = (
    "AwaitRoundtable",
    "CancelChild",
    "CancelRoundtable",
    "ChildActivity",
    "ChildOverdue",
    "ChildStatus",
    "ChildTotals",
    "ChildWorkDone",
    "GetRoundtableProgress",
    "ListChildren",
    "RoundtableMessage",
    "RoundtableStep",
    "RoundtableWorkDone",
    "RunChild",
    "RunnerMessage",
)


class RunChild(Ask[ChildReply], frozen=True, kw_only=True):
    """Run one child; answered with its reply when it finishes (or its typed failure)."""

    request: ChildRequest
    progress_to: ActorRef[Any] | None = None


class CancelChild(Ask[bool], frozen=True, kw_only=True):
    """Stop a running child (abort → SIGTERM → SIGKILL); its asker gets ChildCancelled.

    Answered once the child's process is gone (``True``), or at once with ``False`` when
    no child runs under that id.
    """

    request_id: str
    reason: str = "cancelled"


class ListChildren(Ask["tuple[ChildStatus, ...]"], frozen=True, kw_only=True):
    """Ask for a tuple of :class:`ChildStatus` of the children still running."""


class ChildStatus(msgspec.Struct, frozen=True, kw_only=True):
    request_id: str
    persona: str
    kind: str
    pid: int | None
    started: float
    usage: ChildUsage = ChildUsage()
    """What the child reported so far (each assistant message's usage as it ended)."""


class ChildTotals(Ask["tuple[ChildSpend, ...]"], frozen=True, kw_only=True):
    """What the runner's children cost, per owner generation, persona and kind, counting
    running children as far as they reported; only generations ``>= since``."""

    since: int = 0


class ChildActivity(Msg, frozen=True, kw_only=True):
    """Progress of a child, forwarded to ``progress_to`` (never the child's opinion text)."""

    progress: ChildProgress


class ChildWorkDone(Msg, frozen=True, kw_only=True):
    """Internal: the background work of a child ended (outcome from the kernel)."""

    request_id: str
    outcome: Any


class ChildOverdue(Msg, frozen=True, kw_only=True):
    """Internal watchdog: the child outlived its deadline plus the stop ladder."""

    request_id: str


RunnerMessage = (
    RunChild
    | CancelChild
    | ListChildren
    | ChildTotals
    | ChildActivity
    | ChildWorkDone
    | ChildOverdue
)


class GetRoundtableProgress(Ask[RoundtableProgress], frozen=True, kw_only=True):
    """Ask for the current ``RoundtableProgress`` snapshot."""


class AwaitRoundtable(Ask[RoundtableResult], frozen=True, kw_only=True):
    """Wait for the run's result (answered when it ends; its typed failure otherwise)."""


class CancelRoundtable(Ask[bool], frozen=True, kw_only=True):
    """Cancel the run: running children are stopped and no synthesis is produced."""

    reason: str = "cancelled by the user"


class RoundtableWorkDone(Msg, frozen=True, kw_only=True):
    """Internal: the coordinator's background run ended."""

    outcome: Any


class RoundtableStep(Msg, frozen=True, kw_only=True):
    """Internal: the coordinator's run reached a step (phase change, selection, child end)."""

    kind: str
    phase: str = ""
    persona: str = ""
    picks: tuple[tuple[str, str], ...] = ()
    usage: ChildUsage | None = None
    ok: bool = True
    model: str | None = None
    """``kind="models"``: the one model the whole panel runs, ``None`` when it differs."""


RoundtableMessage = (
    GetRoundtableProgress
    | AwaitRoundtable
    | CancelRoundtable
    | RoundtableWorkDone
    | ChildActivity
    | RoundtableStep
)
