"""TestProbe: an actor that records what it receives, for asserting on message flows.

Wire a probe's ``ref`` wherever an actor expects a collaborator, then ``await
probe.expect(SomeType)``. Waiting is on an event set by the probe's own mailbox, with a
generous real-time safety net so a broken test fails instead of hanging.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from persona_mind.actors import Actor, ActorRef

if TYPE_CHECKING:
    from persona_mind.actors import ActorSystem

__all__ = ("TestProbe",)

T = TypeVar("T")

SAFETY_NET = 10.0  # seconds of real time before an expectation gives up


class _ProbeActor(Actor[Any]):
    def __init__(self, probe: TestProbe) -> None:
        self._probe = probe

    async def receive(self, message: Any) -> object:
        self._probe._record(message)
        return self._probe.reply(message)


class TestProbe:
    """A recording actor plus the expectations tests make on it."""

    __test__ = False  # not a pytest test class

    def __init__(
        self, system: ActorSystem, name: str = "probe", reply: Callable[[Any], object] | None = None
    ) -> None:
        self.messages: list[Any] = []
        self.reply: Callable[[Any], object] = reply or (lambda _message: None)
        self._cursor = 0
        self._changed = asyncio.Event()
        self.ref: ActorRef[Any] = system.spawn(lambda: _ProbeActor(self), name=name)

    def _record(self, message: object) -> None:
        self.messages.append(message)
        self._changed.set()

    async def expect(self, type_: type[T], *, safety_net: float = SAFETY_NET) -> T:
        """The next unconsumed message, which must be a ``type_`` (else AssertionError)."""
        async with asyncio.timeout(safety_net):
            while self._cursor >= len(self.messages):
                self._changed.clear()
                await self._changed.wait()
        message = self.messages[self._cursor]
        self._cursor += 1
        if not isinstance(message, type_):
            raise AssertionError(f"expected {type_.__name__}, got {message!r}")
        return message

    async def expect_count(self, count: int, *, safety_net: float = SAFETY_NET) -> list[Any]:
        """Wait until ``count`` unconsumed messages arrived; consume and return them."""
        async with asyncio.timeout(safety_net):
            while len(self.messages) - self._cursor < count:
                self._changed.clear()
                await self._changed.wait()
        got = self.messages[self._cursor : self._cursor + count]
        self._cursor += count
        return got

    def expect_none(self) -> None:
        """Assert that nothing unconsumed has arrived (call after the effect is settled)."""
        extra = self.messages[self._cursor :]
        if extra:
            raise AssertionError(f"expected no more messages, got {extra!r}")
