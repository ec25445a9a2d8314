"""The Scheduler actor: automatic reviews admitted by mailbox order (M-OPTIMIZE-AUTO).

All of its state is one immutable :class:`~persona_mind.mind.optimize._schedule.Schedule`, replaced
only while handling its own messages; the rules are pure functions in
``mind/optimize/_schedule.py``.
Single flight is that state's ``in_flight`` attempt: a trigger arriving while one runs is
coalesced (counted) by the handler, and an explicit ``/mind optimize`` while one runs is
refused — no lock, semaphore or flag read from another task (AUTO-20). Timers are messages
(``clock.send_after`` → :class:`WindowElapsed` carrying the sequence number they were armed
at, so a window closed by later input is simply stale).

An attempt is background work under the key ``attempt``: it probes the targets'
fingerprints (the semantic digest, AUTO-23), then asks the Optimizer for one review per
target (``OptimizeReview``, the same admission, validation and CAS as the manual path —
AUTO-1). Cancelling that work cancels the ask, which abandons the Optimizer's deferred
review and with it the worker child (the kernel's abandon chain), so no stale report is
produced; input, agent start, ``off``, deactivation, owner changes (the kernel cancels work
admitted under an older generation) and shutdown all cancel it (AUTO-27).

Restart contract (docs/actors.md): the schedule is checkpointed after every change, so a
restarted Scheduler keeps its setting, dirty tiers, token count and cooldown; an attempt
running at the crash was cancelled by the kernel and becomes retry permission.

The runtime spawns it at start; the rules (Mind) are imported by the handlers, and the
schedule is built at the first message, so start-up never loads Mind.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, assert_never

from persona_mind.actors import Actor, ActorRef, ActorSystem, RestartPolicy
from persona_mind.actors._scheduler_attempt import (
    fingerprints,
    probe_outcome,
    review_outcome,
    review_timeout,
)
from persona_mind.messages.optimizer import OptimizeReview
from persona_mind.messages.owner import OwnerChanged
from persona_mind.messages.scheduler import (
    Activate,
    AttemptEnded,
    AttemptProbed,
    AutoSetting,
    Busy,
    Deactivate,
    ExplicitAdmissible,
    ExplicitReview,
    Saved,
    SchedulerMsg,
    Settled,
    WindowElapsed,
)

if TYPE_CHECKING:
    from persona_mind.clock import TimerHandle
    from persona_mind.mind.optimize import _schedule as rules
    from persona_mind.mind.optimize._review import ReviewReport

__all__ = ("Append", "SchedulerActor", "spawn_scheduler")

Append = Callable[[str, dict[str, Any]], Awaitable[None]]
"""Appends a session custom entry (the attempt receipts)."""


class SchedulerActor(Actor[SchedulerMsg]):
    """See the module doc."""

    def __init__(
        self,
        optimizer: Callable[[], ActorRef[Any] | None],
        append: Append,
        *,
        enabled: bool | None = None,
    ) -> None:
        """``enabled`` is the session default; ``None`` reads it from the environment at the
        first message (``auto_default``: on unless ``PI_PERSONA_MIND_OPTIMIZE=off``)."""
        self._optimizer = optimizer
        self._append = append
        self._enabled = enabled
        self._state: rules.Schedule | None = None
        self._binding: Activate | None = None
        self._timer: TimerHandle | None = None
        self._ids = itertools.count(1)

    @property
    def _default(self) -> bool:
        if self._enabled is None:
            from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

            self._enabled = rules.auto_default(os.environ)
        return self._enabled

    @property
    def state(self) -> rules.Schedule:
        """The schedule (all of this actor's state), built at the first message."""
        if self._state is None:
            from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

            self._state = rules.Schedule(enabled=self._default)
        return self._state

    async def on_start(self) -> None:
        saved = self.recovered
        if isinstance(saved, tuple) and len(saved) == 2:
            from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

            state, binding = saved
            assert isinstance(state, rules.Schedule)
            flight = state.in_flight
            if flight is not None:  # the crash cancelled it: interrupted, never completed
                state = rules.cancelled(state, flight.id, keep_retry=True)
            self._state, self._binding = state, binding

    def _set(self, state: rules.Schedule) -> None:
        self._state = state
        self.checkpoint((state, self._binding))

    async def receive(self, message: SchedulerMsg) -> object:
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        match message:
            case Activate():
                await self._interrupt("the session changed", keep_retry=False)
                receipts = rules.read_receipts(message.entries)
                same = self._binding is not None and self._binding.session_id == message.session_id
                enabled = self.state.enabled if same else self._default
                self._binding = message
                self._set(
                    rules.activate(
                        self.state,
                        enabled=enabled,
                        receipts=receipts,
                        cooldown_at=self._cooldown_from(receipts),
                    )
                )
            case Deactivate():
                await self._interrupt(message.reason, keep_retry=False)
                self._set(rules.deactivate(self.state))
            case OwnerChanged():  # the kernel cancelled older work; the feature rebinds us
                await self._interrupt("the session owner changed", keep_retry=False)
            case Saved():
                self._set(rules.saved(self.state, message.tier))
            case Busy():
                state, flight = rules.busy(self.state)
                self._set(state)
                self._disarm()
                if flight is not None and not flight.id.startswith("explicit-"):
                    await self._interrupt(f"{message.reason} arrived", keep_retry=True)
            case Settled():
                self._set(rules.settled(self.state, message.input_tokens))
                self._arm(rules.COALESCE_SECONDS)
            case WindowElapsed():
                await self._window(message.seq)
            case AttemptProbed():
                await self._probed(message)
            case AttemptEnded():
                await self._ended(message)
            case AutoSetting():
                return await self._auto(message.verb)
            case ExplicitReview():
                return self._explicit(message)
            case ExplicitAdmissible():
                self._admissible()
                return None
            case _:
                assert_never(message)
        return None

    # -- timers ------------------------------------------------------------------------
    def _arm(self, delay: float) -> None:
        self._disarm()
        self._timer = self.clock.send_after(delay, self.ref, WindowElapsed(seq=self.state.seq))

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _cooldown_from(self, receipts: rules.Receipts) -> float | None:
        """The last started receipt's wall time as this clock's monotonic time."""
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        if receipts.last_started_wall is None:
            return None
        age = max(0.0, self.clock.wall() - receipts.last_started_wall)
        return self.clock.monotonic() - age if age < rules.COOLDOWN_SECONDS else None

    # -- admission ---------------------------------------------------------------------
    async def _window(self, seq: int) -> None:
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        now = self.clock.monotonic()
        decision = rules.decide(self.state, seq, now)
        if decision.action == "wait":
            self._arm(decision.delay)
            return
        if decision.action == "none":  # a trigger during a flight was counted when it came
            return
        binding, optimizer = self._binding, self._optimizer()
        if binding is None or optimizer is None or not binding.model:
            return  # no Optimizer or no session model: nothing can review (kept dirty)
        import secrets  # noqa: PLC0415 - hashlib and random: not at start-up

        attempt = rules.Attempt(
            f"auto-{next(self._ids)}-{secrets.token_hex(3)}", decision.targets, decision.retry
        )
        self._set(rules.admit(self.state, attempt))
        scope, targets = binding.scope, attempt.targets
        if not rules.needs_probe(self.state, targets):  # no digest to compare: launch
            await self._probed(AttemptProbed(attempt=attempt.id))
            return

        async def probe() -> tuple[tuple[str, str], ...]:
            return await fingerprints(optimizer, scope, targets)

        self.start_work(_key(attempt.id), probe, functools.partial(probe_outcome, attempt.id))

    async def _probed(self, message: AttemptProbed) -> None:
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        flight = self.state.in_flight
        if flight is None or flight.id != message.attempt:
            return
        binding, optimizer = self._binding, self._optimizer()
        if message.error is not None or binding is None or optimizer is None:
            self._set(rules.cancelled(self.state, flight.id, keep_retry=True))
            return
        state, fresh = rules.probed(self.state, flight.id, dict(message.fingerprints))
        if not fresh:
            self._set(state)
            return
        now = self.clock.monotonic()
        self._set(rules.launched(state, flight.id, fresh, now))
        await self._append(
            rules.RECEIPT_ENTRY_TYPE,
            {
                "phase": "started",
                "attempt": flight.id,
                "targets": list(fresh),
                "retry": flight.retry,
                "at": self.clock.wall(),
            },
        )
        owner, scope, model = binding.owner, binding.scope, binding.model or ""

        async def review() -> tuple[tuple[str, str], ...]:
            for tier in fresh:
                msg = OptimizeReview(owner=owner, scope=scope, target=tier, model=model)
                await optimizer.ask(msg, timeout=review_timeout())
            return await fingerprints(optimizer, scope, fresh)

        self.start_work(_key(flight.id), review, functools.partial(review_outcome, flight.id))

    async def _ended(self, message: AttemptEnded) -> None:
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        flight = self.state.in_flight
        if flight is None or flight.id != message.attempt:
            return  # already settled by the cancelling handler
        if message.outcome == "completed":
            self._set(rules.finished(self.state, flight.id, dict(message.fingerprints)))
        else:
            self._set(rules.cancelled(self.state, flight.id, keep_retry=True))
        if flight.launched:
            await self._settle_receipt(flight.id, message.outcome, message.detail)

    async def _interrupt(self, reason: str, *, keep_retry: bool) -> None:
        """Cancel the running attempt (its child goes with it) and settle its receipt."""
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        self._disarm()
        flight = self.state.in_flight
        if flight is None:
            return
        self.cancel_work(_key(flight.id), reason)
        self._set(rules.cancelled(self.state, flight.id, keep_retry=keep_retry))
        if flight.launched and self._binding is not None:
            await self._settle_receipt(flight.id, "interrupted", reason)

    async def _settle_receipt(self, attempt: str, outcome: str, detail: str) -> None:
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        await self._append(
            rules.RECEIPT_ENTRY_TYPE,
            {"phase": "settled", "attempt": attempt, "outcome": outcome, "detail": detail[:120]},
        )

    async def _auto(self, verb: str) -> tuple[str, ...]:
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        if verb == "off":
            await self._interrupt("automatic review was turned off", keep_retry=False)
            self._set(rules.set_auto(self.state, enabled=False))
        elif verb == "on":
            self._set(rules.set_auto(self.state, enabled=True))
        return rules.status_lines(self.state, self.clock.monotonic())

    def _admissible(self) -> ActorRef[Any]:
        """The explicit-review gates (single flight, agent idle, an Optimizer); its ref."""
        from persona_mind.mind._errors import AccessRefused, InvalidArgument  # noqa: PLC0415

        if self.state.in_flight is not None:
            self._set(self.state.bump(coalesced=1))
            raise InvalidArgument(
                "optimize.busy", "an automatic review is running; wait for it to finish"
            )
        if self.state.busy:
            raise InvalidArgument("optimize.agent_busy", "the agent is running; wait until idle")
        optimizer = self._optimizer()
        if optimizer is None:
            raise AccessRefused("optimize.no_workers", "this runtime has no Optimizer")
        return optimizer

    def _explicit(self, message: ExplicitReview) -> object:
        """``/mind optimize``: bypasses dirty/token/cooldown/off gates, never single flight."""
        from persona_mind.mind.optimize import _schedule as rules  # noqa: PLC0415 - module doc

        optimizer = self._admissible()
        attempt = rules.Attempt(f"explicit-{next(self._ids)}", (), retry=False)
        self._set(rules.admit(self.state, attempt))
        msg = OptimizeReview(
            owner=message.owner, scope=message.scope, target=message.target, model=message.model
        )

        async def work() -> ReviewReport:
            try:
                return await optimizer.ask(msg, timeout=review_timeout())
            finally:
                self.ref.tell_if_alive(
                    AttemptEnded(attempt=attempt.id, outcome="completed", detail="explicit")
                )

        return self.defer(_key(attempt.id), work)


def spawn_scheduler(
    system: ActorSystem,
    optimizer: Callable[[], ActorRef[Any] | None],
    append: Append,
    *,
    enabled: bool | None = None,
    name: str = "scheduler",
    restart: RestartPolicy | None = None,
) -> ActorRef[SchedulerMsg]:
    """Spawn the Scheduler; ``enabled`` is the session default (``None``: read from the
    environment at its first message, ``auto_default``)."""
    return system.spawn(
        lambda: SchedulerActor(optimizer, append, enabled=enabled),
        name=name,
        restart=restart or RestartPolicy(max_restarts=3, within=5.0),
    )


def _key(attempt: str) -> str:
    """The background-work key of one attempt (its probe, then its review)."""
    return f"attempt:{attempt}"
