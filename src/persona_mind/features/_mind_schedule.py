"""The Mind feature's side of the Scheduler: what it tells it about the session and turns.

The Scheduler alone decides whether an automatic review is admitted (M-OPTIMIZE-AUTO); the
Mind feature tells it when a session binds or ends, when a save succeeded, when input or an
agent start makes the host busy, and the main session's input tokens when the host settles
(only those count toward the token gate). Nothing is told when the runtime has no
Scheduler (no child backend: no worker reviews) or the session is a delegated leg (legs
never schedule, M-OPTIMIZE-AUTO-28).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from persona_mind.messages.scheduler import (
    Activate,
    AutoSetting,
    Busy,
    Deactivate,
    Saved,
    SchedulerMsg,
    Settled,
)

if TYPE_CHECKING:
    from persona_mind.actors import ActorRef
    from persona_mind.messages.host import SessionStart
    from persona_mind.mind import MindSession

__all__ = ("SchedulerLink",)


class SchedulerLink:
    """Tells the Scheduler what the Mind session saw (see the module doc)."""

    def __init__(self, ref: ActorRef[SchedulerMsg] | None) -> None:
        self.ref = ref
        self.leg = False
        """Set once the session is built: a leg tells the Scheduler nothing."""

    @property
    def wired(self) -> bool:
        """A Scheduler exists and this is not a leg."""
        return self.ref is not None and not self.leg

    def tell(self, message: SchedulerMsg) -> None:
        if self.ref is not None and not self.leg:
            self.ref.tell_if_alive(message)

    def saved(self, tier: str) -> None:
        """A remember or promotion into ``tier`` succeeded (the session's ``saved_sink``)."""
        self.tell(Saved(tier=tier))

    def busy(self, reason: Literal["input", "agent-start"]) -> None:
        """The host is not idle: a running automatic review is cancelled (AUTO-27)."""
        self.tell(Busy(reason=reason))

    def settled(self, input_tokens: int) -> None:
        self.tell(Settled(input_tokens=input_tokens))

    def deactivate(self, reason: str) -> None:
        self.tell(Deactivate(reason=reason))

    def activate(self, start: SessionStart, generation: int, session: MindSession) -> None:
        """The session (re)bound: activate it, or deactivate when Mind is inactive."""
        if session.service is None or session.leg:
            self.deactivate("Mind is inactive")
            return
        self.tell(
            Activate(
                session_id=start.session_id,
                owner=f"{start.session_id}#{generation}",
                scope=session.service.scope,
                model=session.model,
                entries=start.entries,
            )
        )

    async def auto(self, verb: str) -> tuple[str, ...]:
        """``/mind optimize auto [status|on|off]`` (the session's ``auto``)."""
        if self.ref is None:
            return ("automatic review is not available in this runtime",)
        return await self.ref.ask(AutoSetting(verb=verb))  # type: ignore[arg-type]
