"""Outcomes of cancellable background work started by an actor.

An actor must not block its mailbox on long work (a child process, a model call). It
starts the work with ``Actor.start_work`` and gets the outcome back *as a message*, so
cancellation and completion are ordered with everything else it receives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

__all__ = ("Cancelled", "Failed", "Ok", "Outcome")


@dataclass(frozen=True, slots=True)
class Ok(Generic[T]):
    """The work returned ``value``."""

    key: str
    value: T


@dataclass(frozen=True, slots=True)
class Failed:
    """The work raised ``error``."""

    key: str
    error: Exception


@dataclass(frozen=True, slots=True)
class Cancelled:
    """The work was cancelled (by ``cancel_work``, a stop or a restart)."""

    key: str
    reason: str


Outcome = Ok[T] | Failed | Cancelled
