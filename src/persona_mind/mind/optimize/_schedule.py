"""Automatic review scheduling as pure rules: one immutable state, one function per event.

The Scheduler actor (``actors/scheduler.py``) owns a :class:`Schedule` and replaces it only
from its own messages; every rule of M-OPTIMIZE-AUTO lives here so it is testable without an
event loop. The timeline of one automatic attempt:

1. a successful remember/promotion marks its tier dirty (shared never, usage never —
   AUTO-9, -13, -29); saves while ``off`` queue nothing (-5);
2. the host settles: a 2-second coalescing window opens (idle, nothing queued — -18); any
   input or agent start closes it (and cancels a running automatic attempt — -27);
3. when the window elapses :func:`decide` launches if the targets are dirty and either the
   first attempt of the session has not happened (free first burst, -10) or 1,000,000
   main-session *input* tokens arrived since the last actual launch (-11, -12), and the
   5-minute cooldown since the last actual launch has passed (-19); one attempt in flight
   (-20). Only a retry of an interrupted attempt bypasses the token gate, and it still
   needs a later settled event and the cooldown (-24, -25); cancellation never relaunches
   by itself (-26);
4. the attempt first *probes* its targets' store fingerprints: a target whose fingerprint
   equals the digest recorded when it last settled (a terminal refusal, a no-op or the
   state a successful apply produced) is skipped without a launch (-23); what remains is
   the actual launch, stamped by a ``started`` receipt and ended by a ``settled`` one (-17,
   -21), so a resumed session knows whether its first attempt happened and when.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from persona_mind.mind._model import Tier

__all__ = (
    "COALESCE_SECONDS",
    "COOLDOWN_SECONDS",
    "ELIGIBLE_TIERS",
    "RECEIPT_ENTRY_TYPE",
    "TOKEN_GATE",
    "Attempt",
    "Decision",
    "Receipts",
    "Schedule",
    "activate",
    "auto_default",
    "busy",
    "cancelled",
    "decide",
    "finished",
    "launched",
    "needs_probe",
    "probed",
    "read_receipts",
    "saved",
    "set_auto",
    "settled",
    "status_lines",
)

TOKEN_GATE = 1_000_000
COALESCE_SECONDS = 2.0
COOLDOWN_SECONDS = 300.0
RECEIPT_ENTRY_TYPE = "persona-mind-optimize-attempt"
"""Session custom entries: ``{"phase": "started"|"settled", "attempt", "targets", ...}``."""
ELIGIBLE_TIERS: frozenset[str] = frozenset({"persona", "project", "stm"})
"""Shared memories are never reviewed automatically (M-OPTIMIZE-AUTO-29)."""

Outcome = Literal["completed", "interrupted"]


def auto_default(env: Mapping[str, str]) -> bool:
    """On unless ``PI_PERSONA_MIND_OPTIMIZE=off`` (M-OPTIMIZE-AUTO-2)."""
    return env.get("PI_PERSONA_MIND_OPTIMIZE", "").strip().lower() not in ("off", "0", "false")


@dataclass(frozen=True, slots=True)
class Attempt:
    """One automatic attempt: probing its targets, then (maybe) an actual launch."""

    id: str
    targets: tuple[Tier, ...]
    retry: bool
    launched: bool = False


@dataclass(frozen=True, slots=True)
class Counters:
    """What the scheduler did, for status, doctor and the single-flight proof."""

    admitted: int = 0
    launched: int = 0
    coalesced: int = 0
    skipped: int = 0
    cancelled: int = 0


@dataclass(frozen=True, slots=True)
class Schedule:
    """The whole scheduler state (immutable; replaced by the functions below)."""

    enabled: bool = True
    active: bool = False
    busy: bool = False
    dirty: frozenset[Tier] = frozenset()
    tokens: int = 0
    first_done: bool = False
    last_launch: float | None = None
    seq: int = 0
    window: bool = False
    in_flight: Attempt | None = None
    retry: tuple[Tier, ...] = ()
    retry_ready: bool = False
    digests: tuple[tuple[str, str], ...] = ()
    counters: Counters = Counters()

    def bump(self, **fields: int) -> Schedule:
        counts = {k: getattr(self.counters, k) + v for k, v in fields.items()}
        return replace(self, counters=replace(self.counters, **counts))

    def cooldown(self, now: float) -> float:
        """Seconds left of the cooldown after the last actual launch (0 when none)."""
        if self.last_launch is None:
            return 0.0
        return max(0.0, COOLDOWN_SECONDS - (now - self.last_launch))


@dataclass(frozen=True, slots=True)
class Decision:
    """What the elapsed window leads to: ``launch``, ``wait`` (cooldown) or ``none``."""

    action: Literal["launch", "wait", "none"]
    reason: str
    targets: tuple[Tier, ...] = ()
    retry: bool = False
    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Receipts:
    """What a session's attempt receipts say (M-OPTIMIZE-AUTO-17, -21)."""

    first_done: bool = False
    last_started_wall: float | None = None
    interrupted: tuple[Tier, ...] = ()


def read_receipts(entries: Iterable[Any]) -> Receipts:
    """Fold the session's receipt entries; a started attempt without a completed settle
    is interrupted (never treated as completed, M-OPTIMIZE-AUTO-22)."""
    started: dict[str, tuple[tuple[Tier, ...], float]] = {}
    outcome: dict[str, str] = {}
    order: list[str] = []
    for entry in entries:
        if getattr(entry, "custom_type", None) != RECEIPT_ENTRY_TYPE:
            continue
        data = getattr(entry, "data", None)
        if not isinstance(data, dict) or not isinstance(data.get("attempt"), str):
            continue
        key = data["attempt"]
        if data.get("phase") == "started":
            targets = tuple(t for t in data.get("targets", ()) if t in ELIGIBLE_TIERS)
            at = data.get("at")
            started[key] = (targets, float(at) if isinstance(at, int | float) else 0.0)
            order.append(key)
        elif data.get("phase") == "settled":
            outcome[key] = str(data.get("outcome"))
    if not order:
        return Receipts()
    last = order[-1]
    targets, at = started[last]
    done = outcome.get(last) == "completed"
    return Receipts(first_done=True, last_started_wall=at, interrupted=() if done else targets)


def activate(
    state: Schedule, *, enabled: bool, receipts: Receipts, cooldown_at: float | None
) -> Schedule:
    """A (re)bound session: tokens restart at zero (AUTO-16); receipts restore the rest."""
    return Schedule(
        enabled=enabled,
        active=True,
        first_done=receipts.first_done,
        last_launch=cooldown_at,
        seq=state.seq + 1,
        retry=receipts.interrupted if enabled else (),
        counters=state.counters,
    )


def deactivate(state: Schedule) -> Schedule:
    return replace(state, active=False, window=False, seq=state.seq + 1, in_flight=None)


def set_auto(state: Schedule, *, enabled: bool) -> Schedule:
    """``on`` waits for the next save (AUTO-6); ``off`` clears queued targets and retry
    permission (AUTO-4). Cancelling the running attempt is the actor's part."""
    if enabled:
        return replace(state, enabled=True)
    return replace(
        state,
        enabled=False,
        dirty=frozenset(),
        retry=(),
        retry_ready=False,
        window=False,
        seq=state.seq + 1,
    )


def saved(state: Schedule, tier: str) -> Schedule:
    """A successful remember/promotion into ``tier`` (AUTO-5, -9, -29)."""
    if not state.active or not state.enabled or tier not in ELIGIBLE_TIERS:
        return state
    return replace(state, dirty=state.dirty | {tier})  # type: ignore[arg-type]


def busy(state: Schedule) -> tuple[Schedule, Attempt | None]:
    """Input or agent start: the window closes; a running attempt is to be cancelled."""
    nxt = replace(state, busy=True, window=False, seq=state.seq + 1)
    return nxt, state.in_flight


def settled(state: Schedule, input_tokens: int) -> Schedule:
    """The host settled; only the turn's *input* tokens count (AUTO-12)."""
    tokens = state.tokens + max(0, input_tokens) if state.active else state.tokens
    if state.in_flight is not None or state.window:  # a trigger folded into one admission
        state = state.bump(coalesced=1)
    return replace(
        state,
        busy=False,
        window=True,
        seq=state.seq + 1,
        tokens=tokens,
        retry_ready=bool(state.retry),
    )


def decide(state: Schedule, seq: int, now: float) -> Decision:
    """The rules of one elapsed coalescing window (or cooldown wait)."""
    if seq != state.seq or not state.window or state.busy:
        return Decision("none", "stale")
    if not state.active or not state.enabled:
        return Decision("none", "off")
    if state.in_flight is not None:
        return Decision("none", "in-flight")
    retry = bool(state.retry) and state.retry_ready
    targets = state.retry if retry else tuple(sorted(state.dirty))
    if not targets:
        return Decision("none", "clean")
    if not retry and state.first_done and state.tokens < TOKEN_GATE:
        return Decision("none", "tokens")
    wait = state.cooldown(now)
    if wait > 0:
        return Decision("wait", "cooldown", delay=wait)
    return Decision("launch", "retry" if retry else "due", targets, retry)


def admit(state: Schedule, attempt: Attempt) -> Schedule:
    """The attempt starts probing (single flight from here on)."""
    return replace(state, in_flight=attempt, window=False).bump(admitted=1)


def needs_probe(state: Schedule, targets: tuple[Tier, ...]) -> bool:
    """Whether any target has a settled digest to compare (else probing is wasted IO)."""
    known = dict(state.digests)
    return any(t in known for t in targets)


def probed(
    state: Schedule, attempt_id: str, fingerprints: Mapping[str, str]
) -> tuple[Schedule, tuple[Tier, ...]]:
    """Drop targets whose store is unchanged since they last settled (AUTO-23)."""
    attempt = state.in_flight
    if attempt is None or attempt.id != attempt_id:
        return state, ()
    known = dict(state.digests)
    fresh = tuple(
        t for t in attempt.targets if t not in fingerprints or known.get(t) != fingerprints[t]
    )
    skipped = frozenset(attempt.targets) - set(fresh)
    nxt = replace(state, dirty=state.dirty - skipped)
    if not fresh:
        retry = () if attempt.retry else state.retry
        return replace(nxt, in_flight=None, retry=retry).bump(skipped=1), ()
    return nxt, fresh


def launched(state: Schedule, attempt_id: str, targets: tuple[Tier, ...], now: float) -> Schedule:
    """The actual launch: cooldown and the token count restart here (AUTO-11, -19)."""
    attempt = state.in_flight
    if attempt is None or attempt.id != attempt_id:
        return state
    return replace(
        state,
        in_flight=replace(attempt, targets=targets, launched=True),
        last_launch=now,
        tokens=0,
        first_done=True,
        dirty=state.dirty - set(targets),
        retry=(),
        retry_ready=False,
    ).bump(launched=1)


def finished(state: Schedule, attempt_id: str, fingerprints: Mapping[str, str]) -> Schedule:
    """A completed attempt: record each target's settled digest. Dirty tiers left behind
    wait for the token gate like any other (AUTO-15)."""
    attempt = state.in_flight
    if attempt is None or attempt.id != attempt_id:
        return state
    digests = dict(state.digests)
    digests.update(fingerprints)
    return replace(state, in_flight=None, digests=tuple(sorted(digests.items())))


def cancelled(state: Schedule, attempt_id: str, *, keep_retry: bool) -> Schedule:
    """An interrupted attempt: its targets may be retried after a later settle — never by
    the cancellation itself (AUTO-24..26); ``off`` keeps no retry permission (AUTO-4)."""
    attempt = state.in_flight
    if attempt is None or attempt.id != attempt_id:
        return state
    retry = attempt.targets if keep_retry and attempt.launched else state.retry
    if keep_retry and not attempt.launched:  # only probing: the targets stay dirty
        return replace(state, in_flight=None, dirty=state.dirty | set(attempt.targets)).bump(
            cancelled=1
        )
    return replace(state, in_flight=None, retry=retry, retry_ready=False).bump(cancelled=1)


def status_lines(state: Schedule, now: float) -> tuple[str, ...]:
    """``/mind optimize auto status`` and doctor (M-OPTIMIZE-AUTO-7)."""
    flight = state.in_flight
    c = state.counters
    return (
        f"automatic review: {'on' if state.enabled else 'off'}"
        + ("" if state.active else " (no active session)"),
        f"dirty tiers: {', '.join(sorted(state.dirty)) or 'none'}",
        f"input tokens since the last launch: {state.tokens:,} of {TOKEN_GATE:,}"
        + ("" if state.first_done else " (first attempt needs none)"),
        f"cooldown remaining: {state.cooldown(now):.0f} s",
        "in flight: "
        + (
            "none"
            if flight is None
            else f"{flight.id} ({', '.join(flight.targets)}"
            f"{', retry' if flight.retry else ''}{'' if flight.launched else ', probing'})"
        ),
        f"retry permission: {', '.join(state.retry) or 'none'}",
        f"attempts: {c.launched} launched, {c.skipped} skipped unchanged, "
        f"{c.coalesced} coalesced, {c.cancelled} cancelled",
    )


def as_dict(state: Schedule) -> dict[str, Any]:
    """Plain data of the state (tests, doctor details)."""
    return dataclasses.asdict(state)
