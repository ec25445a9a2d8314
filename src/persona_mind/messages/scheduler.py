"""The Scheduler actor's protocol: session binding, saves, host turns, the auto setting.

The Mind feature tells the Scheduler what happened (a session bound, a save succeeded,
input arrived, the agent started or settled with its usage); the Scheduler alone decides
whether an automatic review is admitted (M-OPTIMIZE-AUTO). Timers come back as
:class:`WindowElapsed`, attempt outcomes as :class:`AttemptProbed`/:class:`AttemptEnded`.
Explicit ``/mind optimize`` reviews ask :class:`ExplicitReview` so both paths share one
single-flight admission. The Mind scope is carried opaquely (a ``mind.MindScope``), as in the
Optimizer's protocol: the Scheduler hands it on, the Optimizer checks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from persona_mind.messages._base import Ask, Msg
from persona_mind.messages.owner import OwnerChanged

if TYPE_CHECKING:
    from persona_mind.messages.consolidation import ReviewReport  # noqa: F401 - Ask["…"]

__all__ = (
    "Activate",
    "AttemptEnded",
    "AttemptProbed",
    "AutoSetting",
    "Busy",
    "Deactivate",
    "ExplicitAdmissible",
    "ExplicitReview",
    "Saved",
    "SchedulerMsg",
    "Settled",
    "WindowElapsed",
)


class Activate(Msg, frozen=True, kw_only=True):
    """A main (non-leg) Mind session bound: ``entries`` carry the attempt receipts."""

    session_id: str
    owner: str
    scope: object
    model: str | None
    entries: tuple[Any, ...] = ()


class Deactivate(Msg, frozen=True, kw_only=True):
    """The session was revoked or shut down: cancel, forget the binding."""

    reason: str = "session ended"


class Saved(Msg, frozen=True, kw_only=True):
    """A remember or promotion into ``tier`` succeeded."""

    tier: str


class Busy(Msg, frozen=True, kw_only=True):
    """Incoming input or the agent started: the host is not idle."""

    reason: Literal["input", "agent-start"]


class Settled(Msg, frozen=True, kw_only=True):
    """The host settled; ``input_tokens`` of the main session's turn (nothing else)."""

    input_tokens: int = 0


class WindowElapsed(Msg, frozen=True, kw_only=True):
    """A coalescing window (or cooldown wait) armed at ``seq`` elapsed."""

    seq: int


class AttemptProbed(Msg, frozen=True, kw_only=True):
    """The attempt's targets' store fingerprints (``error`` when probing failed)."""

    attempt: str
    fingerprints: tuple[tuple[str, str], ...] = ()
    error: str | None = None


class AttemptEnded(Msg, frozen=True, kw_only=True):
    """The attempt's review ended: completed (with settled digests) or interrupted."""

    attempt: str
    outcome: Literal["completed", "interrupted"]
    fingerprints: tuple[tuple[str, str], ...] = ()
    detail: str = ""


class AutoSetting(Ask["tuple[str, ...]"], frozen=True, kw_only=True):
    """``/mind optimize auto [status|on|off]``; answered with the status lines."""

    verb: Literal["status", "on", "off"] = "status"


class ExplicitAdmissible(Ask[None], frozen=True, kw_only=True):
    """Would an :class:`ExplicitReview` be admitted now? Raises the refusal it would get.

    ``/mind optimize`` answers at acceptance (M-OPTIMIZE-BATCH-8): the command asks this,
    replies, and sends the :class:`ExplicitReview` as detached work right after.
    """


class ExplicitReview(Ask["ReviewReport"], frozen=True, kw_only=True):
    """An explicit ``/mind optimize`` review through the same single-flight admission."""

    owner: str
    scope: object
    target: str | None = None
    model: str


SchedulerMsg = (
    Activate
    | Deactivate
    | Saved
    | Busy
    | Settled
    | WindowElapsed
    | AttemptProbed
    | AttemptEnded
    | AutoSetting
    | ExplicitReview
    | ExplicitAdmissible
    | OwnerChanged
)
