"""The cell behind an actor ref: its task, mailbox, incarnations and links.

The cell outlives restarts (a ref stays valid while the supervisor replaces the instance)
and keeps the kernel's guarantees, modelled on pykka's ``_actor_loop_running`` /
``_actor_loop_teardown``:

* every ask is answered — by the handler, by its refusal, or with ``ActorStopped`` when
  the actor crashes, restarts or stops (gracefully or forced), including the ask being
  handled at that moment, every queued one, and every deferred answer not settled yet;
* anything but a refusal escaping a handler is a crash (a stray ``CancelledError``, and a
  partner's ``ActorUnavailable``, included), never a zombie that reports running while its
  asks time out;
* background work belongs to the incarnation that started it (``_cell_work.CellWork``,
  in an anyio task group the cell opens around the incarnation): a crash, restart or stop
  cancels it and the group awaits it, and a newer generation than the one it was admitted
  under cancels it too;
* a message stamped with a stale generation is dropped, counted and traced before
  ``receive`` — except the actor's own bookkeeping (outcomes of its work);
* an actor linked to a dependency (``ActorSystem.link``) crashes and restarts, through
  its supervisor, when that dependency crashed and restarted.

The loop runs as a child of the system's task group (``_tasks.TaskTree``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio

from persona_mind.actors.kernel import _context, _work
from persona_mind.actors.kernel._actor import Deferred
from persona_mind.actors.kernel._cell_answers import drop_stale, fail_queued, fail_reply
from persona_mind.actors.kernel._cell_trace import CellTrace
from persona_mind.actors.kernel._cell_work import CellWork, chain
from persona_mind.actors.kernel._crash import FATAL as _FATAL
from persona_mind.actors.kernel._crash import LinkedExit, cancelling, describe
from persona_mind.actors.kernel._envelope import CONTROL, Envelope
from persona_mind.actors.kernel._mailbox import Mailbox
from persona_mind.actors.kernel._ref import ActorRef
from persona_mind.actors.kernel._work import WorkGroup
from persona_mind.errors import ActorUnavailable, PersonaMindError

if TYPE_CHECKING:
    from persona_mind.actors.kernel._actor import Actor
    from persona_mind.actors.kernel._supervisor import RestartPolicy, Supervisor
    from persona_mind.actors.kernel._system import ActorSystem

__all__ = ("Cell",)

M = TypeVar("M")
T = TypeVar("T")

_log = logging.getLogger("persona_mind.actors")

_STOPPING = object()


class Cell(Generic[M]):
    """Runs one actor (see the module doc)."""

    def __init__(
        self,
        system: ActorSystem,
        name: str,
        factory: Callable[[], Actor[M]],
        supervisor: Supervisor,
        policy: RestartPolicy | None,
    ) -> None:
        self.system = system
        self.name = name
        self.factory = factory
        self.supervisor = supervisor
        self.policy = policy
        self.clock = system.clock
        self.tracer = system.tracer
        self.trace = CellTrace(name, system)
        self.mailbox: Mailbox[Envelope] = Mailbox()
        self.ref: ActorRef[M] = ActorRef(self)
        self.jobs: CellWork[M] = CellWork(self)
        self.accepts: tuple[type, ...] | None = None
        self.exact: frozenset[type] = frozenset()
        self.bound = True
        self.closed = False
        self._state = "new"
        self.actor: Actor[M] | None = None
        self.task: asyncio.Task[Any] | None = None
        self._done: asyncio.Future[None] | None = None
        self.saved: object | None = None
        self.dropped_stale = 0
        self.delivered = 0
        self.restarts = 0
        self.restart_times: list[float] = []
        self.dependents: list[Cell[Any]] = []
        """Cells linked to this one: restarted when this one crashes and restarts."""
        self._halt: object | None = None
        """``_STOPPING``, a ``LinkedExit`` to crash with at the next message, or ``None``."""
        self._forced = False
        self._next: Actor[M] | None = None

    @property
    def state(self) -> str:
        return self._state

    @state.setter
    def state(self, value: str) -> None:
        self._state = value
        self.closed = value in ("stopping", "stopped")  # a plain flag: read on every send

    # -- lifecycle -------------------------------------------------------------------
    def prepare(self) -> None:
        """Build the first instance in the caller, so its protocol is known before any send
        and a constructor error surfaces at spawn time."""
        actor = self.factory()
        self._set_protocol(type(actor))
        self._next = actor

    def _set_protocol(self, cls: type[Actor[M]]) -> None:
        self.accepts = cls._accepts
        self.exact = frozenset(cls._accepts or ())
        self.bound = cls.generation_bound

    def start(self) -> None:
        """Start the loop as a child of the system's task group (it runs from the next step)."""
        self.state = "starting"
        self._halt, self._forced, self.task = None, False, None
        self._done = asyncio.get_running_loop().create_future()
        try:
            self.system.tasks.start_soon(self._run, f"actor:{self.name}", self._done)
        except BaseException:
            self.state, self._done = "stopped", None
            raise

    async def _run(self) -> None:
        self.task = asyncio.current_task()
        self.system.tasks.enter()
        fatal: BaseException | None = None
        try:
            while not self._forced:  # forced: stopped before this task took its first step
                crash, restart = await self._incarnate_and_loop()
                if isinstance(crash, _FATAL):
                    fatal = crash
                    break
                if not restart:
                    break
        except asyncio.CancelledError:
            raise  # a forced stop (or the system's task group closing)
        except BaseException as exc:  # a kernel bug: never let it cancel every other actor
            if isinstance(exc, _FATAL):
                fatal = exc
            else:
                _log.exception("the loop of %s failed", self.name)
        finally:
            self.state = "stopped"
            fail_queued(self, "stopped")
            self.trace.step("stop", None)
            if self._done is not None and not self._done.done():
                self._done.set_result(None)
        if fatal is not None:
            raise fatal

    async def _incarnate_and_loop(self) -> tuple[BaseException | None, bool]:
        """One incarnation in its work group: ``(crash, restart?)``.

        The supervisor decides before the group's exit, which yields to the loop (anyio
        checkpoints there): an asker woken by the crash then already reads the restart in
        the statistics, as it did when nothing yielded between the crash and the decision.
        Whatever ended the incarnation, every deferred answer still open is failed after
        the group's exit, so no asker waits for its timeout.
        """
        restart: bool | None = None
        crash: BaseException | None = None
        try:
            async with anyio.create_task_group() as group:  # owns this incarnation's work
                self.jobs.opened(WorkGroup(self.name, group))
                try:
                    crash = await self._incarnation()
                    if crash is not None and not isinstance(crash, LinkedExit):
                        fail_queued(self, f"crashed: {describe(crash)}")  # before others run
                finally:
                    await self.jobs.end("actor stopped")  # work started in on_start too
                    self.jobs.group = None
                restart = self._decide(crash)
        except BaseExceptionGroup as failed:  # a piece of work raised past its wrapper
            fatal = failed.subgroup(_FATAL)
            crash = fatal.exceptions[0] if fatal is not None else failed
            fail_queued(self, f"crashed: {describe(crash)}")
            if restart is None:
                restart = self._decide(crash)
        finally:
            self.jobs.fail_outstanding(
                "it stopped before answering" if crash is None else f"crashed: {describe(crash)}"
            )
        return crash, bool(restart)

    def _decide(self, crash: BaseException | None) -> bool:
        """Trace a crash and ask the supervisor; ``True`` to restart (counted here)."""
        if crash is None:
            return False
        reason = describe(crash)
        self.trace.step("crash", reason)
        if isinstance(crash, _FATAL):
            return False
        if self._halt is _STOPPING or not self.supervisor.child_crashed(self, crash):
            return False
        self.restarts += 1
        self.state = "starting"  # "running" again once the new incarnation's on_start ended
        self.trace.step("restart", reason)
        for dependent in self.dependents:
            dependent.dependency_restarted(self.name, reason)
        return True

    def dependency_restarted(self, dependency: str, reason: str) -> None:
        """A dependency crashed and restarts: restart before the next message.

        A handler running now finishes first (it may be awaiting that very dependency, and
        then crashes on its ``ActorStopped`` anyway). The queued messages are kept for the
        new incarnation, whose ``on_start`` reads the dependency afresh before it handles
        them; a signal that arrives before that ``on_start`` began is spent by it."""
        if self.closed or self._done is None or self._done.done() or self._halt is not None:
            return
        self._halt = LinkedExit(f"{dependency!r}, linked to it, crashed and restarted ({reason})")
        self.mailbox.put(Envelope(CONTROL, None, None))

    async def _incarnation(self) -> BaseException | None:
        if self._halt is not _STOPPING:
            self._halt = None  # this incarnation reads its dependencies afresh
        try:
            actor, self._next = (self._next or self.factory()), None
            self._set_protocol(type(actor))
            actor.ref, actor.system, actor.clock, actor.name = (
                self.ref,
                self.system,
                self.clock,
                self.name,
            )
            actor._cell = self
            self.actor = actor
            await actor.on_start()
        except asyncio.CancelledError:
            if cancelling():
                raise
            return asyncio.CancelledError("on_start was cancelled")
        except BaseException as exc:  # a crash in on_start (fatal ones end the runtime)
            return exc
        if self.state == "starting":
            self.state = "running"
        self.trace.step("start", f"incarnation {self.restarts + 1}")
        crash: BaseException | None = None
        try:
            crash = await self._loop(actor)
            return crash
        finally:
            why = "it stopped before answering" if crash is None else f"crashed: {describe(crash)}"
            self.jobs.fail_deferred(why)  # now: the work's later answer is void
            await self.jobs.end("actor stopped")
            try:
                await actor.on_stop()
            except (asyncio.CancelledError, *_FATAL):
                raise
            except BaseException:
                _log.exception("on_stop of %s failed", self.name)
            self.jobs.fail_outstanding(why)  # promises: on_stop may have answered them

    async def _loop(self, actor: Actor[M]) -> BaseException | None:  # noqa: PLR0915 - hot loop: one frame per message
        mailbox = self.mailbox
        items = mailbox.items  # read directly: the hot path of a busy actor makes no coroutine
        tracer = self.tracer
        system = self.system
        name = self.name
        admitted = _context.admitted
        current: int | None = -1  # what this task's context is admitted under
        while True:
            env = items.popleft() if items else await mailbox.get()
            if self._halt is not None or env.message is CONTROL:
                halt = self._halt
                if halt is None:
                    continue  # a link's wake-up already spent by a restart
                if halt is _STOPPING:
                    if env.message is not CONTROL:
                        mailbox.put(env)  # failed with the rest by _fail_pending
                    return None
                if env.message is not CONTROL:
                    items.appendleft(env)  # kept, first, for the resynced incarnation
                self._halt = None
                assert isinstance(halt, LinkedExit)
                return halt
            reply = env.reply
            gen = env.generation
            if gen is None:
                gen = env.generation = system.generation  # unbound (from outside): admitted now
            elif gen < system.generation and not env.bookkeeping and self.bound:
                drop_stale(self, env)
                continue
            if gen != current:
                admitted.set(gen)
                current = gen
            self.delivered += 1  # handed to receive (stale drops are counted apart)
            token = None
            if tracer.enabled:
                self.trace.deliver(env)
                token = _context.current.set((name, env.corr))
            try:
                result = await actor.receive(env.message)  # type: ignore[arg-type]  # checked at send
            except PersonaMindError as refusal:
                if isinstance(refusal, ActorUnavailable):  # a partner is gone: a crash
                    fail_reply(name, env, "crashed", refusal, str(refusal))
                    return refusal
                if reply is not None:
                    if not reply.done():
                        reply.set_exception(refusal)
                else:
                    _log.warning("%s refused %s: %s", name, type(env.message).__name__, refusal)
                continue
            except asyncio.CancelledError as exc:
                if cancelling():  # this actor is being stopped by force
                    fail_reply(name, env, "stopped by force", None)
                    raise
                fail_reply(name, env, "crashed", exc, "its handler was cancelled")
                return exc
            except BaseException as exc:  # a crash (fatal ones end the runtime in _run)
                fail_reply(name, env, "crashed", exc, repr(exc))
                return exc
            finally:
                if token is not None:
                    _context.current.reset(token)
            current = admitted.get()  # the handler may have moved on (it asked the Owner)
            if reply is not None and not reply.done():
                env.settled = current
                if isinstance(result, Deferred):
                    chain(name, result, reply)
                else:
                    reply.set_result(result)
            # a handled message and its answer must not outlive their handling: kept in
            # these locals, the idle wait and the next handler would hold what they carry
            # (a retired index's last reference, say) and decide on which thread it is freed
            del env, reply, result

    async def stop(self, reason: str, *, force: bool = False) -> None:
        """Stop after the current message (bounded by ``STOP_GRACE``), or at once if forced."""
        done = self._done
        if self.state == "stopped" or done is None or done.done():
            self.state = "stopped"
            return
        if self._halt is not _STOPPING:
            self._halt = _STOPPING
            self.state = "stopping"
            self.mailbox.put(Envelope(CONTROL, None, None))
        task = self.task
        if task is not None and task is asyncio.current_task():
            return
        if not force:
            finished, _ = await asyncio.wait({done}, timeout=_work.STOP_GRACE)
            if finished:
                return
        if task is None:
            self._forced = True  # its first step sees this and ends at once
        else:
            task.cancel()
        await asyncio.wait({done})

    def restart_stopped(self) -> None:
        """Start again after a whole-subtree restart by the supervisor."""
        self.restarts += 1
        self.trace.step("restart", "supervisor subtree restart")
        self.start()

    def lifecycle_changed(self) -> asyncio.Event:
        """See ``CellTrace.lifecycle_changed`` (the probe behind ``wait_for_actor``)."""
        return self.trace.lifecycle_changed()
