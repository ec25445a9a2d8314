"""The cell behind an actor ref: its task, mailbox, incarnations, work and counters.

The cell outlives restarts (a ref stays valid while the supervisor replaces the instance)
and keeps the kernel's guarantees, modelled on pykka's ``_actor_loop_running`` /
``_actor_loop_teardown``:

* every ask is answered — by the handler, by its refusal, or with ``ActorStopped`` when
  the actor crashes, restarts or stops (gracefully or forced), including the ask being
  handled at that moment and every queued one;
* anything but a refusal escaping a handler is a crash (a stray ``CancelledError``
  included), never a zombie that reports running while its asks time out;
* background work belongs to the incarnation that started it — it runs in an anyio task
  group the cell opens around the incarnation (``_work.WorkGroup``) —: a crash, restart or
  stop cancels it and the group awaits it, and a newer generation than the one it was
  admitted under cancels it too;
* a message stamped with a stale generation is dropped, counted and traced before
  ``receive`` — except the actor's own bookkeeping (outcomes of its work).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio

from persona_mind.actors.kernel import _context
from persona_mind.actors.kernel._actor import Deferred
from persona_mind.actors.kernel._envelope import Envelope, OwnEnvelope
from persona_mind.actors.kernel._mailbox import Mailbox
from persona_mind.actors.kernel._ref import ActorRef
from persona_mind.actors.kernel._work import Cancelled, Failed, Ok, Outcome, Work, WorkGroup
from persona_mind.errors import (
    ActorError,
    ActorStopped,
    PersonaMindError,
    StaleGeneration,
    UnknownMessage,
)

if TYPE_CHECKING:
    from persona_mind.actors.kernel._actor import Actor
    from persona_mind.actors.kernel._supervisor import RestartPolicy, Supervisor
    from persona_mind.actors.kernel._system import ActorSystem
    from persona_mind.trace import EventKind

__all__ = ("STOP_GRACE", "Cell")

M = TypeVar("M")
T = TypeVar("T")

_log = logging.getLogger("persona_mind.actors")

STOP_GRACE = 5.0
"""Seconds a graceful stop lets the current handler (and then cancelled work) finish.

A kernel safety bound on real time, not a domain timer: it only matters when a handler
ignores a stop, and a test that needs it shorter stops with ``force=True``."""

_STOP = object()
_FATAL = (KeyboardInterrupt, SystemExit)


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
        self.mailbox = Mailbox()
        self.ref: ActorRef[M] = ActorRef(self)
        self.accepts: tuple[type, ...] | None = None
        self.exact: frozenset[type] = frozenset()
        self.bound = True
        self.closed = False
        self._state = "new"
        self.actor: Actor[M] | None = None
        self.task: asyncio.Task[None] | None = None
        self.work: WorkGroup | None = None
        """The running incarnation's work group (``None`` between incarnations)."""
        self._promises: dict[str, Deferred] = {}
        self.saved: object | None = None
        self.incarnation = 0
        self.dropped_stale = 0
        self.delivered = 0
        self.restarts = 0
        self.restart_times: list[float] = []
        self._stopping = False
        self._next: Actor[M] | None = None
        self._lifecycle: asyncio.Event | None = None

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
        self.state = "starting"
        self._stopping = False
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"actor:{self.name}")

    async def _run(self) -> None:
        fatal: BaseException | None = None
        try:
            while True:
                crash, restart = await self._incarnate_and_loop()
                if isinstance(crash, _FATAL):
                    fatal = crash
                    break
                if not restart:
                    break
        finally:
            self.state = "stopped"
            self._fail_pending("stopped")
            self._trace("stop", None)
        if fatal is not None:
            raise fatal

    async def _incarnate_and_loop(self) -> tuple[BaseException | None, bool]:
        """One incarnation in its work group: ``(crash, restart?)``.

        The supervisor decides before the group's exit, which yields to the loop (anyio
        checkpoints there): an asker woken by the crash then already reads the restart in
        the statistics, as it did when nothing yielded between the crash and the decision.
        """
        self.incarnation += 1
        restart: bool | None = None
        try:
            async with anyio.create_task_group() as group:  # owns this incarnation's work
                self.work = WorkGroup(self.name, group)
                try:
                    crash = await self._incarnation()
                    if crash is not None:  # now, before the group's exit lets others run
                        self._fail_pending(f"crashed: {_describe(crash)}")
                finally:
                    await self._end_work("actor stopped")  # work started in on_start too
                    self.work = None
                restart = self._decide(crash)
        except BaseExceptionGroup as failed:  # a piece of work raised past its wrapper
            self._fail_pending(f"crashed: {_describe(failed)}")
            return failed, self._decide(failed) if restart is None else restart
        return crash, bool(restart)  # decided in the group (it exited normally)

    def _decide(self, crash: BaseException | None) -> bool:
        """Trace a crash and ask the supervisor; ``True`` to restart (counted here)."""
        if crash is None:
            return False
        reason = _describe(crash)
        self._trace("crash", reason)
        if isinstance(crash, _FATAL):
            return False
        if self._stopping or not self.supervisor.child_crashed(self, crash):
            return False
        self.restarts += 1
        self.state = "starting"  # "running" again once the new incarnation's on_start ended
        self._trace("restart", reason)
        return True

    async def _incarnation(self) -> BaseException | None:
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
            if _cancelling():
                raise
            return asyncio.CancelledError("on_start was cancelled")
        except Exception as exc:
            return exc
        if self.state == "starting":
            self.state = "running"
        self._trace("start", f"incarnation {self.restarts + 1}")
        try:
            return await self._loop(actor)
        finally:
            await self._end_work("actor stopped")
            try:
                await actor.on_stop()
            except Exception:
                _log.exception("on_stop of %s failed", self.name)
            for deferred in list(self._promises.values()):  # on_stop may answer more precisely
                deferred.reject(ActorStopped(self.name, "it stopped before answering"))

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
            if self._stopping or env.message is _STOP:
                if env.message is not _STOP:
                    mailbox.put(env)  # failed with the rest by _fail_pending
                return None
            reply = env.reply
            gen = env.generation
            if gen is None:
                gen = env.generation = system.generation  # unbound (from outside): admitted now
            elif gen < system.generation and not env.bookkeeping and self.bound:
                self._drop_stale(env)
                continue
            if gen != current:
                admitted.set(gen)
                current = gen
            self.delivered += 1  # handed to receive (stale drops are counted apart)
            token = None
            if tracer.enabled:
                self.trace_deliver(env)
                token = _context.current.set((name, env.corr))
            try:
                result = await actor.receive(env.message)  # type: ignore[arg-type]  # checked at send
            except PersonaMindError as refusal:
                if reply is not None:
                    if not reply.done():
                        reply.set_exception(refusal)
                else:
                    _log.warning("%s refused %s: %s", name, type(env.message).__name__, refusal)
                continue
            except asyncio.CancelledError as exc:
                if _cancelling():  # this actor is being stopped by force
                    self._fail_reply(env, "stopped by force", None)
                    raise
                self._fail_reply(env, "crashed", exc, "its handler was cancelled")
                return exc
            except BaseException as exc:  # a crash (fatal ones end the runtime in _run)
                self._fail_reply(env, "crashed", exc, repr(exc))
                return exc
            finally:
                if token is not None:
                    _context.current.reset(token)
            current = admitted.get()  # the handler may have moved on (it asked the Owner)
            if reply is not None and not reply.done():
                env.settled = current
                if isinstance(result, Deferred):
                    self._chain(result, reply)
                else:
                    reply.set_result(result)

    def _drop_stale(self, env: Envelope) -> None:
        self.dropped_stale += 1
        if self.tracer.enabled:
            self.trace_drop(env, "stale-generation")
        reply = env.reply
        if reply is not None and not reply.done():
            assert env.generation is not None
            reply.set_exception(StaleGeneration(self.name, env.generation, self.system.generation))

    def _fail_reply(
        self, env: Envelope, why: str, cause: BaseException | None, detail: str = ""
    ) -> None:
        reply = env.reply
        if reply is None or reply.done():
            return
        what = f"{why} while handling {type(env.message).__name__}"
        stopped = ActorStopped(self.name, f"{what}: {detail}" if detail else what)
        stopped.__cause__ = cause
        reply.set_exception(stopped)

    def _chain(self, deferred: Deferred, reply: asyncio.Future[Any]) -> None:
        name, future = self.name, deferred.future

        def settle(done: asyncio.Future[Any]) -> None:
            if reply.done():
                if not done.cancelled():
                    done.exception()  # retrieved: the asker went away
                return
            if done.cancelled():
                reply.set_exception(ActorStopped(name, "its deferred work was cancelled"))
            elif (error := done.exception()) is not None:
                reply.set_exception(error)
            else:
                reply.set_result(done.result())

        def asker_gone(done: asyncio.Future[Any]) -> None:
            if done.cancelled():
                deferred.abandon()  # nobody waits any more: stop the work (and its children)

        future.add_done_callback(settle)
        reply.add_done_callback(asker_gone)

    def _fail_pending(self, reason: str) -> None:
        for env in self.mailbox.drain():
            if env.message is _STOP:
                continue
            if self.tracer.enabled:
                self.trace_drop(env, reason)
            if env.reply is not None and not env.reply.done():
                env.reply.set_exception(ActorStopped(self.name, reason))

    async def stop(self, reason: str, *, force: bool = False) -> None:
        """Stop after the current message (bounded by ``STOP_GRACE``), or at once if forced."""
        if self.state == "stopped" or self.task is None:
            self.state = "stopped"
            return
        if not self._stopping:
            self._stopping = True
            self.state = "stopping"
            self.mailbox.put(Envelope(_STOP, None, None))
        task = self.task
        if task is asyncio.current_task():
            return
        if not force:
            done, _ = await asyncio.wait({task}, timeout=STOP_GRACE)
            if done:
                return
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    def restart_stopped(self) -> None:
        """Start again after a whole-subtree restart by the supervisor."""
        self.restarts += 1
        self._trace("restart", "supervisor subtree restart")
        self.start()

    # -- background work -------------------------------------------------------------
    def _own(self, message: object, generation: int | None) -> None:
        """Deliver the actor's own bookkeeping (never dropped as stale)."""
        if self.closed:
            return
        if self.accepts is not None and not isinstance(message, self.accepts):
            raise UnknownMessage(self.name, message)
        env = OwnEnvelope(message, generation, None)
        if self.tracer.enabled:
            self.trace_send(env)
        self.mailbox.put(env)

    def _group(self) -> WorkGroup:
        if self.work is None:
            raise ActorError(f"{self.name!r} is not running; work starts only while it runs")
        return self.work

    def start_work(
        self, key: str, work: Callable[[], Awaitable[T]], on_done: Callable[[Outcome[T]], M] | None
    ) -> None:
        group = self._group()
        incarnation = self.incarnation

        def settle(record: Work, outcome: Outcome[T]) -> None:
            if on_done is not None and incarnation == self.incarnation:
                self._own(on_done(outcome), record.generation)

        group.start(key, _context.admitted.get(), work, settle, "work")

    def start_deferred(self, key: str, work: Callable[[], Awaitable[T]]) -> Deferred:
        """Run ``work`` in the incarnation's group; the Deferred settles with its result
        (cancelled: the asker gets ``ActorStopped``, or ``StaleGeneration`` if a newer
        generation cancelled it). An asker that gives up cancels the work."""
        group = self._group()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def settle(record: Work, outcome: Outcome[T]) -> None:
            if future.done():
                return
            match outcome:
                case Cancelled() if record.stale is not None:
                    future.set_exception(record.stale)
                case Cancelled():
                    future.cancel()
                case Failed(error=error):
                    future.set_exception(error)
                case Ok(value=value):
                    future.set_result(value)

        group.start(key, _context.admitted.get(), work, settle, "deferred")

        def abandoned() -> None:
            self.cancel_work(key, "the asker went away")

        return Deferred(future, key, abandoned)

    def promise(self, key: str, on_abandoned: Callable[[], None] | None) -> Deferred:
        if key in self._promises:
            raise ActorError(f"{self.name!r} already has a promise {key!r}; pick a new key")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        deferred = Deferred(future, key, on_abandoned)
        self._promises[key] = deferred
        future.add_done_callback(lambda _: self._promises.pop(key, None))
        return deferred

    def work_keys(self) -> frozenset[str]:
        return frozenset(self.work.works) if self.work is not None else frozenset()

    def cancel_work(self, key: str, reason: str) -> bool:
        """Cancel once: a second request while the work is still unwinding (a child being
        stopped gracefully) must not interrupt its cleanup with another CancelledError."""
        return self.work is not None and self.work.cancel(key, reason)

    def generation_advanced(self, generation: int) -> None:
        """Cancel work admitted under an older generation (its answer could only be stale)."""
        if self.bound and self.work is not None:
            self.work.cancel_stale(self.name, generation)

    async def _end_work(self, reason: str) -> None:
        """Cancel every piece of this incarnation's work and wait (bounded) until it ends;
        whatever outlives the grace is finished by the task group's exit."""
        self.incarnation += 1  # outcomes of the cancelled work never reach a later incarnation
        if self.work is not None:
            await self.work.end(reason, STOP_GRACE)

    # -- tracing ---------------------------------------------------------------------
    def lifecycle_changed(self) -> asyncio.Event:
        """An event set at this actor's next lifecycle step (start, crash, restart, stop).

        The probe behind ``persona_mind.testing.wait_for_actor``: a test waits on the
        kernel's own state change instead of polling. Lifecycle steps only, never per
        message, so it costs the mailbox nothing."""
        if self._lifecycle is None:
            self._lifecycle = asyncio.Event()
        return self._lifecycle

    def _trace(self, ev: EventKind, reason: str | None) -> None:
        if self._lifecycle is not None:
            self._lifecycle.set()
            self._lifecycle = None
        if self.tracer.enabled:
            self.tracer.emit(ev, self.name, reason=reason, gen=self.system.generation)

    def trace_send(self, env: Envelope) -> None:
        current = _context.current.get()
        env.id = self.tracer.next_id()
        env.sender = current[0] if current is not None else None
        env.corr = (current[1] if current is not None else None) or f"c{env.id}"
        self._trace_env("send", env)

    def trace_deliver(self, env: Envelope) -> None:
        self._trace_env("deliver", env)

    def trace_drop(self, env: Envelope, reason: str) -> None:
        self._trace_env("drop", env, reason)

    def _trace_env(self, ev: EventKind, env: Envelope, reason: str | None = None) -> None:
        gen = env.generation
        self.tracer.emit(
            ev,
            self.name,
            sender=env.sender,
            type_=type(env.message).__name__,
            msg_id=env.id,
            corr=env.corr,
            gen=self.system.generation if gen is None else gen,
            reason=reason,
        )


def _cancelling() -> bool:
    """Whether the running task itself is being cancelled (not a stray CancelledError)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _describe(crash: BaseException) -> str:
    return f"{type(crash).__name__}: {crash}"
