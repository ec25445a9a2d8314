"""An in-process scripted model: a child backend with no process, for fast unit tests.

Map ``(persona, phase, prompt)`` to a reply, a typed error, a delay or a hang; delays and
deadlines read the injected clock, so a test advances a ``ManualClock`` instead of sleeping::

    model = ScriptedModel(clock)
    model.on(persona="architect", phase="round1", reply="Use a queue.")
    model.on(persona="critic", error="provider said no")
    model.on(phase="synthesis", prompt_contains="queue", reply=SYNTHESIS, delay=2.0)

The first matching rule wins (rules with ``times`` expire after that many uses); unmatched
requests get ``default``. Every request is recorded in :attr:`calls` (system prompt, tools,
model, prompt) so a test can assert what a child would have been given.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

from persona_mind.child_errors import ChildDeadlineExceeded, ChildModelError
from persona_mind.clock import Clock, MonotonicClock
from persona_mind.messages.child import ChildProgress, ChildReply, ChildRequest, ChildUsage
from persona_mind.runners._child_backend import ProgressFn
from persona_mind.runners._child_process import within

__all__ = ("ScriptedModel", "ScriptedReply")


@dataclass(frozen=True)
class ScriptedReply:
    """What a scripted child does: wait ``delay`` (clock time), then answer or fail."""

    text: str = ""
    error: str | BaseException | None = None
    delay: float = 0.0
    hang: bool = False
    usage: ChildUsage = field(default_factory=ChildUsage)


@dataclass
class _Rule:
    persona: str | None
    phase: str | None
    prompt_contains: str | None
    reply: ScriptedReply
    times: int | None

    def matches(self, request: ChildRequest) -> bool:
        if self.times is not None and self.times <= 0:
            return False
        if self.persona is not None and self.persona not in (
            request.persona.name,
            request.persona.qualified_id,
        ):
            return False
        if self.phase is not None and self.phase != request.kind:
            return False
        return self.prompt_contains is None or self.prompt_contains in request.prompt


DefaultFn = Callable[[ChildRequest], ScriptedReply]


def _default(request: ChildRequest) -> ScriptedReply:
    return ScriptedReply(text=f"[{request.persona.name}] {request.kind} answer")


class ScriptedModel:
    """A :class:`~persona_mind.children.ChildBackend` answering from a script."""

    def __init__(self, clock: Clock | None = None, *, default: DefaultFn | None = None) -> None:
        self.clock: Clock = clock or MonotonicClock()
        self.default = default or _default
        self.rules: list[_Rule] = []
        self.calls: list[ChildRequest] = []
        self.finished: list[str] = []
        self.cancelled: list[str] = []
        self._changed: asyncio.Event | None = None

    async def wait_calls(self, count: int, *, safety_net: float = 10.0) -> None:
        """Wait until ``count`` calls have started (see :meth:`wait_for`)."""
        await self.wait_for(lambda model: len(model.calls) >= count, safety_net=safety_net)

    async def wait_for(
        self, condition: Callable[[ScriptedModel], bool], *, safety_net: float = 10.0
    ) -> None:
        """Wait until ``condition(self)`` holds, re-checked at each call, finish and
        cancellation (an event the model sets, no polling); raises ``TimeoutError`` after
        ``safety_net`` real seconds."""
        async with asyncio.timeout(safety_net):
            while not condition(self):
                if self._changed is None:
                    self._changed = asyncio.Event()
                await self._changed.wait()

    def _note(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    @property
    def name(self) -> str:
        return "scripted"

    def on(
        self,
        persona: str | None = None,
        phase: str | None = None,
        prompt_contains: str | None = None,
        *,
        reply: str = "",
        error: str | BaseException | None = None,
        delay: float = 0.0,
        hang: bool = False,
        usage: ChildUsage | None = None,
        times: int | None = None,
    ) -> ScriptedModel:
        """Add a rule; returns ``self`` so rules chain."""
        scripted = ScriptedReply(
            text=reply, error=error, delay=delay, hang=hang, usage=usage or ChildUsage()
        )
        self.rules.append(_Rule(persona, phase, prompt_contains, scripted, times))
        return self

    def reply_for(self, request: ChildRequest) -> ScriptedReply:
        for rule in self.rules:
            if rule.matches(request):
                if rule.times is not None:
                    rule.times -= 1
                return rule.reply
        return self.default(request)

    async def run(self, request: ChildRequest, on_progress: ProgressFn) -> ChildReply:
        self.calls.append(request)
        self._note()
        scripted = self.reply_for(request)
        started = self.clock.monotonic()
        on_progress(_progress(request, "started"))

        async def wait() -> None:
            await self.clock.sleep(math.inf if scripted.hang else scripted.delay)

        try:
            waits = scripted.hang or scripted.delay > 0
            if waits and not await within(self.clock, request.deadline, wait):
                raise ChildDeadlineExceeded(request.label, request.deadline)
        except anyio.get_cancelled_exc_class():
            self.cancelled.append(request.request_id)
            self._note()
            raise
        if isinstance(scripted.error, BaseException):
            raise scripted.error
        if scripted.error is not None:
            raise ChildModelError(request.label, scripted.error)
        self.finished.append(request.request_id)
        self._note()
        on_progress(_progress(request, "usage", scripted.usage))
        return ChildReply(
            request_id=request.request_id,
            persona=request.persona.name,
            text=scripted.text,
            usage=scripted.usage,
            model=request.child_model,
            duration=self.clock.monotonic() - started,
            backend=self.name,
        )


def _progress(request: ChildRequest, event: str, usage: ChildUsage | None = None) -> ChildProgress:
    return ChildProgress(
        request_id=request.request_id,
        persona=request.persona.name,
        event=event,  # type: ignore[arg-type]
        usage=usage,
    )
