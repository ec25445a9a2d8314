"""How a cell answers the asks it will not hand to its actor: stale, interrupted, left queued.

The cell promises that every ask is answered (the module doc of ``_cell``). Besides the
handler's own return and its refusal, that promise is kept in three places, gathered here:
a message stamped with a stale generation is dropped, counted and traced, and its asker
gets ``StaleGeneration``; the ask a crash or a forced stop interrupts gets ``ActorStopped``
naming what happened (the crash chained as its cause); and every ask still queued when an
incarnation ends gets ``ActorStopped`` with the reason, each drop traced. The cell's hot
loop calls these only on those paths, so they live apart from it as plain functions over
the cell (composition, like ``_cell_work`` and ``_cell_trace``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from persona_mind.actors.kernel._envelope import CONTROL, Envelope
from persona_mind.errors import ActorStopped, StaleGeneration

if TYPE_CHECKING:
    from persona_mind.actors.kernel._cell import Cell

__all__ = ("drop_stale", "fail_queued", "fail_reply")


def drop_stale(cell: Cell[Any], env: Envelope) -> None:
    """Drop ``env``, sent under an older generation; its asker gets ``StaleGeneration``."""
    cell.dropped_stale += 1
    if cell.tracer.enabled:
        cell.trace.drop(env, "stale-generation")
    reply = env.reply
    if reply is not None and not reply.done():
        assert env.generation is not None
        reply.set_exception(StaleGeneration(cell.name, env.generation, cell.system.generation))


def fail_reply(
    name: str, env: Envelope, why: str, cause: BaseException | None, detail: str = ""
) -> None:
    """Answer the ask being handled with ``ActorStopped``: ``why`` it ended, ``cause`` chained."""
    reply = env.reply
    if reply is None or reply.done():
        return
    what = f"{why} while handling {type(env.message).__name__}"
    stopped = ActorStopped(name, f"{what}: {detail}" if detail else what)
    stopped.__cause__ = cause
    reply.set_exception(stopped)


def fail_queued(cell: Cell[Any], reason: str) -> None:
    """Answer every ask still in the mailbox with ``ActorStopped(reason)``, tracing each drop."""
    for env in cell.mailbox.drain():
        if env.message is CONTROL:
            continue
        if cell.tracer.enabled:
            cell.trace.drop(env, reason)
        if env.reply is not None and not env.reply.done():
            env.reply.set_exception(ActorStopped(cell.name, reason))
