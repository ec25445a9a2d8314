"""Relayed blocked reports become model nudges (M-CAPTURE-7..10).

When a subagent's tool result visibly relays a report that was blocked from memory, the
Mind feature suggests (never writes) that the model save it properly; the tracker's state
is per turn and settles when the host does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_mind.messages.host import ToolExecutionEnd
    from persona_mind.mind import MindSession
    from persona_mind.mind.capture._relay import RelayTracker

__all__ = ("RelayNudges",)


class RelayNudges:
    """Feeds the relay tracker with finished tool calls; its hints go to the session."""

    def __init__(self) -> None:
        self._tracker: RelayTracker | None = None

    def result(self, event: ToolExecutionEnd, session: MindSession | None) -> None:
        """A finished tool call; a visibly relayed blocked report becomes a nudge."""
        if session is None or not session.active or session.leg:
            return
        from persona_mind.mind.capture._cues import relay_hint  # noqa: PLC0415 - bound session
        from persona_mind.mind.capture._relay import RelayTracker  # noqa: PLC0415

        if self._tracker is None:
            self._tracker = RelayTracker()
        found = self._tracker.result(
            call_id=event.tool_call_id,
            tool_name=event.tool_name,
            text=event.text,
            parent_call_id=event.parent_tool_call_id,
            is_error=event.is_error,
        )
        hint = relay_hint(found)
        if hint is not None:
            session.suggest(hint)

    def settle(self) -> None:
        """The turn settled or the owner changed: the relay state starts over."""
        if self._tracker is not None:
            self._tracker.settle()
