"""One round-table run as an actor: selection → Round 1 → Round 2 → synthesis.

The selection comes either from the session's lead as one validated ``persona_roundtable``
tool call (Pi: the coordinator is given the picks and starts at Round 1) or, on the
CLI/library path, from a child lead's JSON answer (the ``selection`` phase below).

The coordinator owns the run's progress (its mailbox orders every update) and runs the
fixed workflow as one piece of cancellable work. Each parallel phase is a kernel
``fan_out`` over children started through the ChildRunner: the first failure (or the
phase deadline) cancels the unfinished siblings — ``run_child`` then tells the runner to
stop each process and waits until it is gone — and no synthesis is produced
(P-ROUNDTABLE-12). ``CancelRoundtable`` cancels the same way, and so does a newer
generation (the kernel cancels the run, admitted under the generation of the request that
spawned the coordinator). Callers ask ``AwaitRoundtable`` for the :class:`RoundtableResult`
(answered when the run ends), and ``GetRoundtableProgress`` at any time for a snapshot
that never contains opinions.

:func:`run_roundtable` is the client that drives one run end to end (the RoundtableDesk,
the CLI and the demo call it): it spawns a coordinator, reports each changed progress
snapshot, stops the coordinator when the run ends and returns the one synthesis — or raises
the run's typed error. Cancelling the caller cancels the run (children stopped, no
synthesis).

Restart contract (docs/actors.md): the coordinator is spawned without a restart budget for
its run — a crash cancels and awaits the run (its children stop) and every pending ask
fails with ``ActorStopped``; a round-table is never re-run behind the user's back.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
from collections.abc import Callable
from typing import Any, assert_never

from persona_mind.actors import (
    Actor,
    ActorRef,
    ActorSystem,
    Cancelled,
    Deferred,
    Failed,
    Ok,
    fan_out,
)
from persona_mind.actors.child_runner import run_child
from persona_mind.child_errors import (
    ChildCancelled,
    RoundtableFailed,
    RoundtableQueryEmpty,
    SelectionInvalid,
)
from persona_mind.errors import FanOutFailed
from persona_mind.messages.child import (
    ChildKind,
    ChildPersona,
    ChildReply,
    ChildRequest,
    ChildTeam,
    ChildUsage,
)
from persona_mind.messages.roundtable_progress import RoundtableProgress, RoundtableResult
from persona_mind.messages.runner import (
    AwaitRoundtable,
    CancelRoundtable,
    ChildActivity,
    GetRoundtableProgress,
    RoundtableMessage,
    RoundtableStep,
    RoundtableWorkDone,
)
from persona_mind.persona.children._outcome import Member, roundtable_result
from persona_mind.persona.children._progress import RoundtableTracker
from persona_mind.persona.children._roundtable import (
    parse_selection,
    picks_by_name,
    round1_prompt,
    round2_prompt,
    selection_prompt,
    synthesis_prompt,
)
from persona_mind.persona.children._verdict import one_model

__all__ = ("PHASE_DEADLINE", "RoundtableCoordinator", "run_roundtable")

_log = logging.getLogger("persona_mind.roundtable")

PHASE_DEADLINE = 180.0
"""Per-phase deadline (seconds; DEC-16). Each child gets it; the phase gets it plus slack."""


def _quiet(fut: asyncio.Future[RoundtableResult]) -> None:
    if not fut.cancelled():
        fut.exception()


class RoundtableCoordinator(Actor[RoundtableMessage]):
    """Runs one round-table on this session's team snapshot (P-ROUNDTABLE-1..21)."""

    def __init__(
        self,
        runner: ActorRef[Any],
        team: ChildTeam,
        query: str,
        model: str,
        *,
        run_id: str,
        injection: str = "",
        phase_deadline: float = PHASE_DEADLINE,
        phase_slack: float = 20.0,
        cwd: str | None = None,
        on_change: Callable[[RoundtableProgress], None] | None = None,
        selection: tuple[tuple[str, str], ...] | None = None,
    ) -> None:
        self.runner = runner
        self.team = team
        self.query = query
        self.model = model
        self.run_id = run_id
        self.injection = injection
        self.phase_deadline = phase_deadline
        self.phase_slack = phase_slack
        self.cwd = cwd
        self.on_change = on_change
        self.selection = selection
        self._waits = itertools.count(1)
        lead = team.lead
        self.tracker = RoundtableTracker(query, lead.name if lead else "(no lead)", 0.0)
        if selection is not None:  # chosen already: the display starts at Round 1
            self.tracker.selected(selection)
            self.tracker.enter("independent")
            chosen = [team.find(name) for name, _ in selection]
            if lead is not None and all(chosen):
                self.tracker.same_model = one_model(
                    [self._model_of(p) for p in (lead, *chosen) if p is not None]
                )
        self.result: asyncio.Future[RoundtableResult] | None = None

    async def on_start(self) -> None:
        loop = asyncio.get_running_loop()
        self.result = loop.create_future()
        self.result.add_done_callback(_quiet)
        self.tracker.started = self.clock.monotonic()
        self.start_work("run", self._run, lambda outcome: RoundtableWorkDone(outcome=outcome))

    async def receive(self, message: RoundtableMessage) -> object:
        match message:
            case GetRoundtableProgress():
                return self.tracker.snapshot(self.clock.monotonic())
            case AwaitRoundtable():
                return self._await_result()
            case CancelRoundtable(reason=reason):
                return self.cancel_work("run", reason)
            case ChildActivity(progress=progress):
                self.tracker.child_event(progress)
                self._changed()
            case RoundtableStep():
                self._step(message)
                self._changed()
            case RoundtableWorkDone(outcome=outcome):
                self._done(outcome)
                self._changed()
            case _:
                assert_never(message)
        return None

    def _await_result(self) -> Deferred:
        result = self.result
        assert result is not None

        async def wait() -> RoundtableResult:
            return await asyncio.shield(result)

        return self.defer(f"await-{next(self._waits)}", wait)

    def _changed(self) -> None:
        """Push the new snapshot to the listener (a display); its errors never crash us."""
        if self.on_change is None:
            return
        try:
            self.on_change(self.tracker.snapshot(self.clock.monotonic()))
        except Exception:
            _log.exception("round-table progress listener failed")

    def _step(self, step: RoundtableStep) -> None:
        match step.kind:
            case "phase":
                self.tracker.enter(step.phase)  # type: ignore[arg-type]
            case "selected":
                self.tracker.selected(step.picks)
            case "child":
                self.tracker.child_done(step.persona, step.usage, step.ok)
            case "models":
                self.tracker.same_model = step.model

    def _done(self, outcome: object) -> None:
        now = self.clock.monotonic()
        assert self.result is not None
        error: Exception | None = None
        match outcome:
            case Ok(value=value):
                self.tracker.end("done", now)
                self.result.set_result(value)
            case Failed(error=exc):
                error = exc
                self.tracker.end("failed", now, str(exc))
            case Cancelled(reason=reason):
                error = ChildCancelled(f"roundtable#{self.run_id}", reason)
                self.tracker.end("cancelled", now, str(error))
        if error is not None:
            self.result.set_exception(error)

    # -- the workflow (runs as background work; talks to the mailbox by tell) ------------

    def _request(self, kind: ChildKind, persona: ChildPersona, prompt: str) -> ChildRequest:
        return ChildRequest(
            request_id=f"{self.run_id}-{kind}-{persona.name}",
            kind=kind,
            persona=persona,
            prompt=prompt,
            model=self.model,
            deadline=self.phase_deadline,
            injection=self.injection,
            cwd=self.cwd,
        )

    async def _child(self, kind: ChildKind, persona: ChildPersona, prompt: str) -> ChildReply:
        try:
            reply = await run_child(
                self.runner,
                self._request(kind, persona, prompt),
                progress_to=self.ref,
            )
        except Exception:
            self.ref.tell_if_alive(RoundtableStep(kind="child", persona=persona.name, ok=False))
            raise
        self.ref.tell_if_alive(
            RoundtableStep(kind="child", persona=persona.name, usage=reply.usage)
        )
        return reply

    async def _phase(
        self, kind: ChildKind, prompts: dict[str, tuple[ChildPersona, str]]
    ) -> dict[str, ChildReply]:
        legs = {
            name: (lambda p=persona, t=text: self._child(kind, p, t))
            for name, (persona, text) in prompts.items()
        }
        try:
            replies = await fan_out(
                legs, timeout=self.phase_deadline + self.phase_slack, clock=self.clock
            )
        except FanOutFailed as exc:
            raise RoundtableFailed(kind, exc.leg, exc.cause) from exc
        return replies

    async def _run(self) -> RoundtableResult:
        lead = self.team.lead
        if lead is None:
            raise SelectionInvalid(f"pack {self.team.pack!r} has no single [G] lead to moderate")
        if not self.team.specialists:
            raise SelectionInvalid(f"pack {self.team.pack!r} has no specialists")
        tell = self.ref.tell_if_alive
        usage = ChildUsage()
        children = 2
        if self.selection is not None:  # the session's lead chose by tool call (validated)
            picks = picks_by_name(self.selection, self.team)
            children = 1
        else:
            tell(RoundtableStep(kind="phase", phase="selection"))
            selection = await self._child("select", lead, selection_prompt(self.team, self.query))
            usage = selection.usage
            picks = parse_selection(selection.text, self.team)
        roster = tuple((p.name, reason) for p, reason in picks)
        tell(RoundtableStep(kind="selected", picks=roster))
        panel = [Member(p.name, reason, self._model_of(p)) for p, reason in picks]
        same = one_model([self._model_of(lead), *(m.model for m in panel)])
        tell(RoundtableStep(kind="models", model=same))
        tell(RoundtableStep(kind="phase", phase="independent"))
        first = await self._phase(
            "round1", {p.name: (p, round1_prompt(self.query, p, r)) for p, r in picks}
        )
        round1 = tuple((name, reply.text) for name, reply in first.items())
        tell(RoundtableStep(kind="phase", phase="revision"))
        second = await self._phase(
            "round2", {p.name: (p, round2_prompt(self.query, p, r, round1)) for p, r in picks}
        )
        finals = tuple((name, reply.text) for name, reply in second.items())
        tell(RoundtableStep(kind="phase", phase="synthesis"))
        synthesis = await self._child(
            "synthesis", lead, synthesis_prompt(self.query, roster, finals)
        )
        for reply in (*first.values(), *second.values(), synthesis):
            usage = usage + reply.usage
        return roundtable_result(
            query=self.query,
            lead=lead.name,
            lead_model=self._model_of(lead),
            panel=panel,
            round1={name: reply.text for name, reply in first.items()},
            final=dict(finals),
            synthesis=synthesis.text,
            usage=usage,
            children=children + 2 * len(picks),
            elapsed=self.clock.monotonic() - self.tracker.started,
            run_id=self.run_id,
        )

    def _model_of(self, persona: ChildPersona) -> str:
        """The model this persona's children run (its declared one, else the session's)."""
        return self._request("round1", persona, "").child_model


_run_ids = itertools.count(1)


def _key(p: RoundtableProgress) -> tuple[object, ...]:
    return (
        p.phase,
        p.lead_state,
        tuple((s.name, s.state, s.activity) for s in p.roster),
        p.children_started,
        p.children_finished,
    )


async def run_roundtable(
    system: ActorSystem,
    runner: ActorRef[Any],
    team: ChildTeam,
    query: str,
    model: str,
    *,
    on_progress: Callable[[RoundtableProgress], None] | None = None,
    injection: str = "",
    phase_deadline: float = PHASE_DEADLINE,
    cwd: str | None = None,
    run_id: str | None = None,
    selection: tuple[tuple[str, str], ...] | None = None,
) -> RoundtableResult:
    """One round-table on ``team`` with children on ``runner``; see the module docstring.

    An empty query is refused before any child starts (it would only spend tokens).
    ``selection`` is the lead's validated ``(name, reason)`` roster when the session's lead
    chose by tool call; without it a child lead selects (the CLI/library path)."""
    if not query.strip():
        raise RoundtableQueryEmpty()
    rid = run_id or f"rt{next(_run_ids)}"
    last: list[tuple[object, ...]] = []

    def changed(snapshot: RoundtableProgress) -> None:
        if on_progress is not None and (not last or last[-1] != _key(snapshot)):
            last.append(_key(snapshot))
            on_progress(snapshot)

    coord = system.spawn(
        lambda: RoundtableCoordinator(
            runner,
            team,
            query,
            model,
            run_id=rid,
            injection=injection,
            phase_deadline=phase_deadline,
            cwd=cwd,
            on_change=changed,
            selection=selection,
        ),
        name=f"roundtable-{rid}",
    )
    result = asyncio.ensure_future(coord.ask(AwaitRoundtable(), timeout=math.inf))
    try:
        if on_progress is not None:
            changed(await coord.ask(GetRoundtableProgress()))
        return await asyncio.shield(result)
    except asyncio.CancelledError:
        # Stop the children before the cancellation goes on (bounded by the ladders).
        coord.tell_if_alive(CancelRoundtable(reason="the caller was cancelled"))
        if not result.done():
            await asyncio.wait({result}, timeout=60.0)
        raise
    finally:
        if result.done() and not result.cancelled():
            result.exception()  # retrieved: the caller saw it, or went away
        await coord.stop()
