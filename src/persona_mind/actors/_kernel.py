"""Actors, references and the per-actor cell that runs them.

An :class:`Actor` owns its state and handles one message at a time; the single-consumer
mailbox is what serialises access, so control-plane state needs no locks. An
:class:`ActorRef` is the only way to reach an actor: ``tell`` (synchronous, never blocks)
and ``ask`` (async, answered or failed — never left hanging). The ``_Cell`` behind a ref
survives restarts, so a ref stays valid while the supervisor replaces the instance.

Failure model (OTP-flavoured, see docs/actors.md):

* A handler that raises a :class:`~persona_mind.errors.PersonaMindError` is *refusing* the
  request: the error goes to the asker and the actor keeps running.
* Any other exception is a *crash*: the asker gets ``ActorStopped`` (the cause chained),
  every other pending ask gets ``ActorStopped``, background work is cancelled, and the
  supervisor restarts the actor or escalates.
* A message sent under an older lifecycle generation than the actor's current one is
  dropped, counted and traced; an asker gets ``StaleGeneration``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import types
import typing
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar

from persona_mind.actors._envelope import Envelope
from persona_mind.actors._mailbox import Mailbox
from persona_mind.actors._work import Cancelled, Failed, Ok, Outcome
from persona_mind.errors import (
    ActorError,
    ActorStopped,
    AskTimeout,
    PersonaMindError,
    StaleGeneration,
    UnknownMessage,
)

if TYPE_CHECKING:
    from persona_mind.actors._supervisor import RestartPolicy, Supervisor
    from persona_mind.actors._system import ActorSystem
    from persona_mind.clock import Clock
    from persona_mind.trace import EventKind

__all__ = ("Actor", "ActorRef", "ActorStatistics", "Deferred")

M = TypeVar("M")
T = TypeVar("T")

_log = logging.getLogger("persona_mind.actors")

# (actor name, correlation id) of the message being handled; set only while tracing.
_current: contextvars.ContextVar[tuple[str, str | None] | None] = contextvars.ContextVar(
    "persona_mind_current_actor", default=None
)

DEFAULT_ASK_TIMEOUT = 30.0
STOP_GRACE = 5.0


def _accepted_types(cls: type) -> tuple[type, ...] | None:
    """The message classes named in ``class X(Actor[A | B])``; ``None`` accepts anything."""
    for base in getattr(cls, "__orig_bases__", ()):
        if typing.get_origin(base) is Actor:
            (arg,) = typing.get_args(base)
            members = typing.get_args(arg) if isinstance(arg, types.UnionType) else (arg,)
            if typing.get_origin(arg) is typing.Union:
                members = typing.get_args(arg)
            found = tuple(
                m for m in members if isinstance(m, type) and m not in (typing.Any, object)
            )
            return found if found and len(found) == len(members) else None
    return None


class Deferred:
    """Returned by a handler to answer an ask later, without holding the mailbox.

    Built by :meth:`Actor.defer`: the work runs as the actor's background work, and the
    asker gets its result (or error) when it finishes. The actor meanwhile handles the
    next message — so several slow requests (parallel consults) run side by side.
    """

    __slots__ = ("task",)

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task


class Actor(Generic[M]):
    """Base class of every actor: subclass with your message union and implement ``receive``.

    The kernel binds ``ref``, ``system``, ``clock`` and ``name`` before ``on_start``.
    ``generation`` is the actor's current lifecycle generation: set it when you learn of a
    new one, and messages sent under older generations are dropped before ``receive``.
    """

    _accepts: ClassVar[tuple[type, ...] | None] = None
    ref: ActorRef[M]
    system: ActorSystem
    clock: Clock
    name: str
    generation: int = 0
    _cell: _Cell[M]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        accepts = _accepted_types(cls)
        if accepts is not None:
            cls._accepts = accepts

    async def on_start(self) -> None:
        """Called in the actor's task before the first message (and after each restart)."""

    async def on_stop(self) -> None:
        """Called when the actor stops or crashes; keep it short and bounded."""

    async def receive(self, message: M) -> object:
        """Handle one message; the return value answers an ask."""
        raise NotImplementedError

    def start_work(
        self,
        key: str,
        work: Callable[[], Awaitable[T]],
        on_done: Callable[[Outcome[T]], M] | None = None,
    ) -> None:
        """Run ``work`` in the background; its outcome comes back as ``on_done(outcome)``.

        Work is cancelled by :meth:`cancel_work`, and on stop, crash or restart (then no
        outcome is delivered: the instance that asked for it is gone).
        """
        self._cell.start_work(key, work, on_done)

    def defer(self, key: str, work: Callable[[], Awaitable[object]]) -> Deferred:
        """Answer the current ask with ``work``'s result when it finishes (see Deferred).

        The work is cancellable with :meth:`cancel_work` under ``key``; a stop, crash or
        restart cancels it and the asker gets ``ActorStopped``.
        """
        return Deferred(self._cell.start_deferred(key, work))

    def cancel_work(self, key: str, reason: str = "cancelled") -> bool:
        """Cancel background work ``key``; ``False`` if none is running under that key."""
        return self._cell.cancel_work(key, reason)

    def work_keys(self) -> frozenset[str]:
        """Keys of the background work still running."""
        return frozenset(self._cell.works)


class ActorStatistics(NamedTuple):
    """Counters of one actor since it was first spawned."""

    name: str
    state: str
    queued: int
    delivered: int
    dropped_stale: int
    restarts: int


class ActorRef(Generic[M]):
    """The address of an actor. Cheap to copy; valid across restarts."""

    __slots__ = ("_cell",)

    def __init__(self, cell: _Cell[M]) -> None:
        self._cell = cell

    @property
    def name(self) -> str:
        return self._cell.name

    def is_alive(self) -> bool:
        """Whether messages sent now can still be delivered."""
        return not self._cell.closed

    def tell(self, message: M, *, generation: int | None = None) -> None:
        """Queue ``message`` and return at once (never blocks).

        Raises ``ActorStopped`` if the actor is stopped and ``UnknownMessage`` if the
        type is outside its protocol — both before anything is queued.
        """
        cell = self._cell
        if cell.closed:
            raise ActorStopped(cell.name, cell.state)
        accepts = cell.accepts
        if (
            accepts is not None
            and type(message) not in cell.exact
            and not isinstance(message, accepts)
        ):
            raise UnknownMessage(cell.name, message)
        env = Envelope(message, generation, None)
        if cell.tracer.enabled:
            cell.trace_send(env)
        cell.mailbox.put(env)

    def tell_if_alive(self, message: object) -> bool:
        """Tell unless the actor is gone (timers use this); ``True`` if queued."""
        try:
            self.tell(message)  # type: ignore[arg-type]  # timers carry the actor's own types
        except ActorError:
            return False
        return True

    async def ask(
        self,
        message: M,
        *,
        timeout: float = DEFAULT_ASK_TIMEOUT,
        generation: int | None = None,
    ) -> Any:
        """Send ``message`` and wait for the handler's return value.

        Raises the handler's refusal (a ``PersonaMindError``), ``ActorStopped`` on stop,
        crash or restart, ``StaleGeneration`` if dropped as stale, ``AskTimeout`` when
        the system clock passes ``timeout``. Checkpoint: always yields to the loop.
        """
        cell = self._cell
        if cell.closed:
            raise ActorStopped(cell.name, cell.state)
        accepts = cell.accepts
        if (
            accepts is not None
            and type(message) not in cell.exact
            and not isinstance(message, accepts)
        ):
            raise UnknownMessage(cell.name, message)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        env = Envelope(message, generation, fut)
        if cell.tracer.enabled:
            cell.trace_send(env)
        cell.mailbox.put(env)
        name = cell.name

        def expire() -> None:
            if not fut.done():
                fut.set_exception(AskTimeout(name, type(message).__name__, timeout))

        handle = cell.clock.call_later(timeout, expire)
        try:
            return await fut
        finally:
            handle.cancel()

    async def stop(self) -> None:
        """Stop this actor (queued asks fail with ``ActorStopped``); idempotent."""
        await self._cell.stop("stopped")

    def statistics(self) -> ActorStatistics:
        cell = self._cell
        return ActorStatistics(
            cell.name,
            cell.state,
            len(cell.mailbox),
            cell.delivered,
            cell.dropped_stale,
            cell.restarts,
        )

    def __repr__(self) -> str:
        return f"<ActorRef {self._cell.name} ({self._cell.state})>"


_STOP = object()


class _Cell(Generic[M]):
    """Runs one actor: its task, mailbox, incarnations, work and counters."""

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
        self.closed = False
        self._state = "new"
        self.actor: Actor[M] | None = None
        self.task: asyncio.Task[None] | None = None
        self.works: dict[str, asyncio.Task[Any]] = {}
        self._cancel_reasons: dict[str, str] = {}
        self.incarnation = 0
        self.dropped_stale = 0
        self.delivered = 0
        self.restarts = 0
        self.restart_times: list[float] = []
        self._stopping = False
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

    def start(self) -> None:
        self.state = "starting"
        self._stopping = False
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"actor:{self.name}")

    async def _run(self) -> None:
        while True:
            crash = await self._incarnate_and_loop()
            if crash is None:
                break
            self._fail_pending(f"crashed: {type(crash).__name__}: {crash}")
            if self.tracer.enabled:
                self.tracer.emit("crash", self.name, reason=f"{type(crash).__name__}: {crash}")
            if self._stopping or not self.supervisor.child_crashed(self, crash):
                break
            self.restarts += 1
            if self.tracer.enabled:
                self.tracer.emit("restart", self.name, reason=f"{type(crash).__name__}: {crash}")
        self.state = "stopped"
        self._fail_pending("stopped")
        if self.tracer.enabled:
            self.tracer.emit("stop", self.name)

    async def _incarnate_and_loop(self) -> Exception | None:
        self.incarnation += 1
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
        except Exception as exc:
            return exc
        if self.state == "starting":
            self.state = "running"
        if self.tracer.enabled:
            self.tracer.emit("start", self.name, reason=f"incarnation {self.restarts + 1}")
        try:
            return await self._loop(actor)
        finally:
            self._cancel_all_work("actor stopped")
            try:
                await actor.on_stop()
            except Exception:
                _log.exception("on_stop of %s failed", self.name)

    async def _loop(self, actor: Actor[M]) -> Exception | None:
        mailbox = self.mailbox
        items = mailbox.items  # read directly: the hot path of a busy actor makes no coroutine
        tracer = self.tracer
        name = self.name
        while True:
            env = items.popleft() if items else await mailbox.get()
            if self._stopping or env.message is _STOP:
                if env.message is not _STOP:
                    mailbox.put(env)  # failed with the rest by _fail_pending
                return None
            reply = env.reply
            gen = env.generation
            if gen is not None and gen < actor.generation:
                self.dropped_stale += 1
                if tracer.enabled:
                    self.trace_drop(env, "stale-generation")
                if reply is not None and not reply.done():
                    reply.set_exception(StaleGeneration(name, gen, actor.generation))
                continue
            self.delivered += 1  # handed to receive (stale drops are counted apart)
            token = None
            if tracer.enabled:
                self.trace_deliver(env)
                token = _current.set((name, env.corr))
            try:
                result = await actor.receive(env.message)  # type: ignore[arg-type]  # checked at send
            except PersonaMindError as refusal:
                if reply is not None:
                    if not reply.done():
                        reply.set_exception(refusal)
                else:
                    _log.warning("%s refused %s: %s", name, type(env.message).__name__, refusal)
                continue
            except Exception as exc:
                if reply is not None and not reply.done():
                    stopped = ActorStopped(
                        name, f"crashed while handling {type(env.message).__name__}: {exc!r}"
                    )
                    stopped.__cause__ = exc
                    reply.set_exception(stopped)
                return exc
            finally:
                if token is not None:
                    _current.reset(token)
            if reply is not None and not reply.done():
                if isinstance(result, Deferred):
                    self._chain(result.task, reply)
                else:
                    reply.set_result(result)

    def _chain(self, task: asyncio.Task[Any], reply: asyncio.Future[Any]) -> None:
        name = self.name

        def settle(done: asyncio.Task[Any]) -> None:
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
            if done.cancelled() and not task.done():
                task.cancel()  # nobody waits for it any more: stop the work (and its children)

        task.add_done_callback(settle)
        reply.add_done_callback(asker_gone)

    def _fail_pending(self, reason: str) -> None:
        for env in self.mailbox.drain():
            if env.message is _STOP:
                continue
            if self.tracer.enabled:
                self.trace_drop(env, reason)
            if env.reply is not None and not env.reply.done():
                env.reply.set_exception(ActorStopped(self.name, reason))

    async def stop(self, reason: str) -> None:
        """Let the current message finish (bounded), then fail the rest and stop."""
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
        done, _ = await asyncio.wait({task}, timeout=STOP_GRACE)
        if not done:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self.state = "stopped"
            self._fail_pending(f"{reason} (forced after {STOP_GRACE:g}s)")

    def restart_stopped(self) -> None:
        """Start again after a whole-subtree restart by the supervisor."""
        self.restarts += 1
        if self.tracer.enabled:
            self.tracer.emit("restart", self.name, reason="supervisor subtree restart")
        self.start()

    # -- background work -------------------------------------------------------------
    def start_work(
        self, key: str, work: Callable[[], Awaitable[T]], on_done: Callable[[Outcome[T]], M] | None
    ) -> None:
        if key in self.works:
            raise ActorError(
                f"{self.name!r} already runs work {key!r}; cancel it or pick a new key"
            )
        incarnation = self.incarnation

        async def run() -> None:
            outcome: Outcome[T]
            try:
                outcome = Ok(key, await work())
            except asyncio.CancelledError:
                outcome = Cancelled(key, self._cancel_reasons.pop(key, "cancelled"))
            except Exception as exc:
                outcome = Failed(key, exc)
            finally:
                self.works.pop(key, None)
            if on_done is not None and incarnation == self.incarnation and not self.closed:
                self.ref.tell(on_done(outcome))

        self.works[key] = asyncio.get_running_loop().create_task(
            run(), name=f"work:{self.name}:{key}"
        )

    def start_deferred(self, key: str, work: Callable[[], Awaitable[T]]) -> asyncio.Task[T]:
        if key in self.works:
            raise ActorError(f"{self.name!r} already runs work {key!r}; pick a new key")

        async def run() -> T:
            try:
                return await work()
            finally:
                self.works.pop(key, None)

        task = asyncio.get_running_loop().create_task(run(), name=f"deferred:{self.name}:{key}")
        self.works[key] = task
        return task

    def cancel_work(self, key: str, reason: str) -> bool:
        task = self.works.get(key)
        if task is None or task.done():
            return False
        self._cancel_reasons[key] = reason
        task.cancel()
        return True

    def _cancel_all_work(self, reason: str) -> None:
        for key in list(self.works):
            self.cancel_work(key, reason)
        self.incarnation += 1  # outcomes of the cancelled work never reach a later incarnation

    # -- tracing ---------------------------------------------------------------------
    def trace_send(self, env: Envelope) -> None:
        current = _current.get()
        env.id = self.tracer.next_id()
        env.sender = current[0] if current is not None else None
        env.corr = (current[1] if current is not None else None) or f"c{env.id}"
        self._trace_env("send", env)

    def trace_deliver(self, env: Envelope) -> None:
        self._trace_env("deliver", env)

    def trace_drop(self, env: Envelope, reason: str) -> None:
        self._trace_env("drop", env, reason)

    def _trace_env(self, ev: EventKind, env: Envelope, reason: str | None = None) -> None:
        self.tracer.emit(
            ev,
            self.name,
            sender=env.sender,
            type_=type(env.message).__name__,
            msg_id=env.id,
            corr=env.corr,
            gen=env.generation,
            reason=reason,
        )
