"""Protocols of the ChildRunner actor and of a round-table coordinator.

Replies to long work are *deferred*: asking :class:`RunChild` (or :class:`AwaitRoundtable`)
answers at once with an ``asyncio.Future`` that the actor resolves when the child (or the
round-table) finishes, so the mailbox never blocks on a child and progress queries and
cancels stay responsive. Actors that prefer messages pass ``reply_to`` instead and get a
:class:`ChildDone` / :class:`RoundtableDone`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from persona_mind.messages._base import Msg
from persona_mind.runners._child_types import ChildProgress, ChildReply, ChildRequest, ChildUsage

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef

__all__ = (
    "AwaitRoundtable",
    "CancelChild",
    "CancelRoundtable",
    "ChildActivity",
    "ChildDone",
    "ChildOverdue",
    "ChildStatus",
    "ChildWorkDone",
    "GetRoundtableProgress",
    "ListChildren",
    "RoundtableDone",
    "RoundtableMessage",
    "RoundtableStep",
    "RoundtableWorkDone",
    "RunChild",
    "RunnerGeneration",
    "RunnerMessage",
)


class RunChild(Msg, frozen=True, kw_only=True):
    """Start one child. The ask reply is an ``asyncio.Future[ChildReply]``."""

    request: ChildRequest
    reply_to: ActorRef[Any] | None = None
    progress_to: ActorRef[Any] | None = None
    generation: int | None = None
    """The Owner generation the child was admitted under (None: not generation-bound)."""


class CancelChild(Msg, frozen=True, kw_only=True):
    """Stop a running child (abort → SIGTERM → SIGKILL); its future fails ChildCancelled."""

    request_id: str
    reason: str = "cancelled"


class RunnerGeneration(Msg, frozen=True, kw_only=True):
    """The Owner moved to ``generation``: refuse older admissions, cancel older children."""

    generation: int


class ListChildren(Msg, frozen=True, kw_only=True):
    """Ask for a tuple of :class:`ChildStatus` of the children still running."""


class ChildStatus(msgspec.Struct, frozen=True, kw_only=True):
    request_id: str
    persona: str
    kind: str
    pid: int | None
    started: float


class ChildActivity(Msg, frozen=True, kw_only=True):
    """Progress of a child, forwarded to ``progress_to`` (never the child's opinion text)."""

    progress: ChildProgress


class ChildDone(Msg, frozen=True, kw_only=True):
    """A child finished: exactly one of ``reply`` / ``error`` is set."""

    request_id: str
    reply: ChildReply | None = None
    error: Exception | None = None


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
    | ChildActivity
    | ChildWorkDone
    | ChildOverdue
    | RunnerGeneration
)


class GetRoundtableProgress(Msg, frozen=True, kw_only=True):
    """Ask for the current ``RoundtableProgress`` snapshot."""


class AwaitRoundtable(Msg, frozen=True, kw_only=True):
    """Ask for an ``asyncio.Future[RoundtableResult]`` resolved when the run ends."""


class CancelRoundtable(Msg, frozen=True, kw_only=True):
    """Cancel the run: running children are stopped and no synthesis is produced."""

    reason: str = "cancelled by the user"


class RoundtableDone(Msg, frozen=True, kw_only=True):
    """Told to ``reply_to`` when a round-table ends (``result`` or ``error``)."""

    result: Any = None
    error: Exception | None = None


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


RoundtableMessage = (
    GetRoundtableProgress
    | AwaitRoundtable
    | CancelRoundtable
    | RoundtableWorkDone
    | ChildActivity
    | RoundtableStep
)
