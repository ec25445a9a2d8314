"""The one interface every child backend implements (the process layer's face).

:class:`ChildBackend` is what the ChildRunner actor drives: the real ``pi``
(:class:`~persona_mind.children.PiBackend`) and the in-process scripted model of
``persona_mind.testing`` implement it. The values it takes and returns live in
:mod:`persona_mind.messages.child`, which every layer may name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from persona_mind.messages.child import ChildProgress, ChildReply, ChildRequest

__all__ = ("ChildBackend", "ProgressFn")

ProgressFn = Callable[[ChildProgress], None]


class ChildBackend(Protocol):
    """Runs one child to completion. Raises a ``ChildError`` leaf; honours cancellation.

    Cancelling the calling task stops the child (abort → SIGTERM → SIGKILL for a process)
    before the cancellation propagates; no backend retries after launch.
    """

    @property
    def name(self) -> str: ...

    async def run(self, request: ChildRequest, on_progress: ProgressFn) -> ChildReply: ...
