"""The base of every actor message: a frozen, tagged, keyword-only msgspec Struct.

Frozen so a message can be shared between actors without copies or races; tagged so a
union of messages decodes unambiguously off the wire; keyword-only so adding a field never
silently shifts positional arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import msgspec

__all__ = ("Ask", "Msg", "Recipient")


class Msg(msgspec.Struct, frozen=True, kw_only=True, tag=True, forbid_unknown_fields=True):
    """Base class of all actor messages."""


R_co = TypeVar("R_co", covariant=True)


if TYPE_CHECKING:

    class Ask(Msg, Generic[R_co], frozen=True, kw_only=True):
        """A message that is asked, not told: ``R_co`` is the type of its answer.

        ``await ref.ask(msg)`` is typed ``R`` for an ``Ask[R]``, so a caller never casts a
        reply; the handler's ``match`` arm returns an ``R``. Covariant (messages are
        frozen), so an ``Ask[tuple[X, ...]]`` is accepted where an ``Ask[Sized]`` is
        expected.
        """

else:

    class Ask(Msg, frozen=True, kw_only=True):
        """A message that is asked, not told; ``Ask[R]`` names the type of its answer.

        The answer type is for the type checker only (the branch above): nothing reads it
        at run time, and a ``Generic`` base made each of the ~60 ask classes that the
        sidecar defines before ``ready`` go through ``typing``'s generic-alias and
        parameter collection (about twice a plain message's class creation; issue 24).
        So at run time ``Ask[R]`` is ``Ask`` itself.
        """

        def __class_getitem__(cls, _answer: object) -> type[Ask]:
            return cls


class Recipient(Protocol):
    """Where a message names an actor to tell later (a progress stream, a timer's target):
    what it needs of an ``ActorRef``, so the vocabulary names no actor module."""

    def tell_if_alive(self, message: object, *, generation: int | None = None) -> bool:
        """Tell unless the actor is gone; ``True`` if queued."""
        ...
