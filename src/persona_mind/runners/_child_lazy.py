"""A ``PiBackend`` built at the first child run, for hosts that start fast.

The sidecar (``bridge/``), the MCP server and the ``Team`` facade hand the runtime this
backend: a session that never consults never imports the child runner, so the sidecar
answers ``ready`` without it (``docs/bridge.md``, performance). It is process layer — it
names only the real pi, lazily — so every host reaches it without importing a face.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_mind.clock import Clock
    from persona_mind.messages.child import ChildReply, ChildRequest
    from persona_mind.runners._child_backend import ProgressFn
    from persona_mind.runners._child_pi import PiBackend

__all__ = ("LazyPiBackend",)


class LazyPiBackend:
    """A ``PiBackend`` built at the first child run. Same name, same runs."""

    name = "pi"

    def __init__(self, command: Sequence[str], *, clock: Clock) -> None:
        self.command = tuple(command)
        self.clock = clock
        self._backend: PiBackend | None = None

    @property
    def backend(self) -> PiBackend:
        """The real ``PiBackend`` (built now if no child has run yet)."""
        if self._backend is None:
            from persona_mind.runners._child_pi import PiBackend  # noqa: PLC0415 - first child

            self._backend = PiBackend(self.command, clock=self.clock)
        return self._backend

    async def run(self, request: ChildRequest, on_progress: ProgressFn) -> ChildReply:
        return await self.backend.run(request, on_progress)
