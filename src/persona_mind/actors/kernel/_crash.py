"""What a crash is, for the cell: its description, a link's exit, the fatal exceptions."""

from __future__ import annotations

import asyncio

__all__ = ("FATAL", "LinkedExit", "cancelling", "describe")

FATAL = (KeyboardInterrupt, SystemExit)
"""Fail the asks like any crash, then end the runtime (never restarted)."""


class LinkedExit(Exception):
    """The restart of an actor whose dependency crashed and restarted (``ActorSystem.link``):
    a crash for the supervisor (it counts), but the actor's queued messages are kept."""


def cancelling() -> bool:
    """Whether the running task itself is being cancelled (not a stray CancelledError)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def describe(crash: BaseException) -> str:
    return f"{type(crash).__name__}: {crash}"
