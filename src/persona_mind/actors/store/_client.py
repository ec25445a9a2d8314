"""The Store's client — the :class:`~persona_mind.storage.StorePort` everyone uses — and the
one shape every port implementation shares.

:class:`StoreBase` writes the port's method bodies once over four primitives (read one
snapshot, read it with its raw-byte fingerprint, one locked mutation, one transaction):
``mutate`` and the several-stores read are derived there, so :class:`StoreClient` (over the
Store actor) and the in-memory fake of unit tests (``persona_mind.testing.MemoryStore``)
cannot disagree on them.  It lives here rather than in ``storage/port.py`` because the
storage package loads its engine (portalocker) on import, and a runtime must start without
it; the domain still names only the port.

A mutation function that raises (a deliberate abort) comes back to the caller as that same
exception, never as a Store crash: the Store refuses with :class:`MutationAborted` and the
client re-raises its cause.  An engine error (``StorageError``) is a refusal as it is.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar, cast

from persona_mind.actors import ActorRef
from persona_mind.errors import StorageError
from persona_mind.messages.store import (
    Mutate,
    Read,
    ReadMany,
    ReadStored,
    Repair,
    RunIO,
    StoreMsg,
    Transact,
    WithEngine,
)

if TYPE_CHECKING:
    from persona_mind.storage import FileStore, Mutation, Snapshot, Stored
    from persona_mind.storage.port import StoreTarget

__all__ = (
    "DEFAULT_STORE_ASK_TIMEOUT",
    "IOJobFailed",
    "MutationAborted",
    "StoreBase",
    "StoreClient",
    "StoreReentry",
)

E = TypeVar("E")
R = TypeVar("R")

DEFAULT_STORE_ASK_TIMEOUT = 90.0
"""Longer than the 30 s lock wait plus the write itself, so a slow lock is a LockTimeout."""


class MutationAborted(StorageError):
    """A mutation function raised: nothing was written; ``__cause__`` is its exception."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"the mutation aborted ({type(cause).__name__}: {cause}); nothing written")
        self.__cause__ = cause


class IOJobFailed(StorageError):
    """A ``RunIO`` job raised: the Store is unaffected; ``__cause__`` is the job's exception
    (the client re-raises that cause, so ``offload`` callers see the job's own error)."""

    def __init__(self, purpose: str, cause: BaseException) -> None:
        super().__init__(f"the {purpose} raised {type(cause).__name__}: {cause}")
        self.__cause__ = cause


class StoreReentry(StorageError):
    """A job on the Store's IO thread asked the same Store, which would wait on itself.

    The Store runs one job at a time; the ask would queue behind the job that is waiting
    for it. Do the file work inside the job itself, or return and ask afterwards.
    """

    def __init__(self, actor: str, message_type: str) -> None:
        super().__init__(
            f"{message_type} was asked of {actor!r} from a job running on {actor!r}'s own IO "
            "thread, which would deadlock; do that work inside the job (it already runs on "
            "the IO thread) or after it returns"
        )


_ON_IO_THREAD: ContextVar[ActorRef[Any] | None] = ContextVar("store_io_thread", default=None)
"""The Store whose IO thread runs the current code (carried into coroutines the job submits
to the loop, since ``run_coroutine_threadsafe`` copies the submitting thread's context)."""


class StoreBase(ABC):
    """The :class:`~persona_mind.storage.StorePort` method bodies, written once.

    An implementation says how to read one snapshot (:meth:`read`), how to read it with
    the fingerprint of its exact bytes (:meth:`read_stored`), how to run one locked,
    durable, generation-checked mutation (:meth:`mutate_stored`) and several as one
    decision under the memory transaction lock (:meth:`transact`).  The port's
    :meth:`mutate` is derived here; :meth:`read_many` too, for an implementation without a
    cheaper way than one read after another.
    """

    @abstractmethod
    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        """The current snapshot or ``None``; a corrupt file raises, never reads as empty."""

    @abstractmethod
    async def read_stored(self, target: StoreTarget[E]) -> Stored[E] | None:
        """The snapshot with the raw-byte fingerprint to pass as ``expect_fingerprint``."""

    @abstractmethod
    async def mutate_stored(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
        purpose: str = "mutation",
    ) -> Stored[E]:
        """:meth:`mutate`, also returning the fingerprint of the bytes now on disk."""

    @abstractmethod
    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> list[Stored[Any]]:
        """Several memory-store mutations as one decision, in order (M-STORE-13)."""

    async def mutate(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
    ) -> Snapshot[E]:
        """Apply ``mutation`` under the target's lock; the written snapshot (the port's verb)."""
        stored = await self.mutate_stored(
            target, mutation, generation=generation, expect_fingerprint=expect_fingerprint
        )
        return stored.snapshot

    async def read_many(
        self, targets: Sequence[StoreTarget[Any]]
    ) -> tuple[Snapshot[Any] | None, ...]:
        """Every target's snapshot, in order (see ``storage.port.read_all``)."""
        return tuple([await self.read(target) for target in targets])


class StoreClient(StoreBase):
    """The :class:`~persona_mind.storage.StorePort` backed by a :class:`StoreActor`.

    An explicit ``generation=`` stamps the request's envelope with it (work admitted
    earlier); otherwise the kernel stamps the caller's own admitted generation.
    """

    def __init__(self, ref: ActorRef[StoreMsg], *, timeout: float = DEFAULT_STORE_ASK_TIMEOUT):
        self._ref = ref
        self.timeout = timeout

    @property
    def ref(self) -> ActorRef[StoreMsg]:
        """The Store actor; refuses (:class:`StoreReentry`) when read from one of its jobs.

        Every request goes through here, so a job on the Store's IO thread that reaches
        its own Store (through ``run_coroutine_threadsafe`` or any thread-to-loop call,
        which carry the job's context) fails at once instead of deadlocking.
        """
        if _ON_IO_THREAD.get() is self._ref:
            raise StoreReentry(self._ref.name, "a request")
        return self._ref

    async def run_io(self, work: Callable[[], R], purpose: str = "io job") -> R:
        """Run blocking ``work`` on the Store's IO thread (see ``RunIO``); its result, or the
        exception it raised."""
        try:
            result = await self.ref.ask(RunIO(work=work, purpose=purpose), timeout=self.timeout)
        except IOJobFailed as failed:
            raise _cause(failed) from None
        return cast("R", result)

    def submit_io(self, work: Callable[[], R], purpose: str = "io job") -> asyncio.Future[R]:
        """Queue blocking ``work`` as a ``RunIO`` job and return its outcome's future at once.

        The job is the Store's from then on: it runs, and the future settles, whether or not
        the caller still waits (a Mind index build cut off by a turn's 750 ms deadline is
        kept for the next turn; an old index is taken apart on the IO thread with nobody
        waiting). The future carries the job's own exception, as :meth:`run_io` raises it."""
        reply = self.ref.request(RunIO(work=work, purpose=purpose), timeout=self.timeout)
        out: asyncio.Future[R] = asyncio.get_running_loop().create_future()

        def settle(done: asyncio.Future[object]) -> None:
            if out.done():
                if not done.cancelled():
                    done.exception()  # retrieved: the submitter cancelled its future
            elif done.cancelled():
                out.cancel()
            elif (error := done.exception()) is not None:
                out.set_exception(_cause(error) if isinstance(error, IOJobFailed) else error)
            else:
                out.set_result(cast("R", done.result()))

        reply.add_done_callback(settle)
        return out

    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        return await self.ref.ask(Read(target=target), timeout=self.timeout)

    async def read_many(
        self, targets: Sequence[StoreTarget[Any]]
    ) -> tuple[Snapshot[Any] | None, ...]:
        """Several snapshots in one hop to the IO thread (see ``storage.port.read_all``)."""
        return await self.ref.ask(ReadMany(targets=tuple(targets)), timeout=self.timeout)

    async def read_stored(self, target: StoreTarget[E]) -> Stored[E] | None:
        """The snapshot with the raw-byte fingerprint to pass as ``expect_fingerprint``."""
        found = await self.ref.ask(ReadStored(target=target), timeout=self.timeout)
        return cast("Stored[E] | None", found)  # the engine's answer (messages/store.py)

    async def mutate_stored(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
        purpose: str = "mutation",
    ) -> Stored[E]:
        """:meth:`mutate`, also returning the fingerprint of the bytes now on disk."""
        message = Mutate(
            target=target,
            mutation=mutation,
            expect_fingerprint=expect_fingerprint,
            purpose=purpose,
        )
        try:
            stored = await self.ref.ask(message, timeout=self.timeout, generation=generation)
        except MutationAborted as aborted:
            raise _cause(aborted) from None
        return cast("Stored[E]", stored)  # the engine's answer (messages/store.py)

    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> list[Stored[Any]]:
        """Several memory-store mutations as one decision (see ``FileStore.transact``)."""
        message = Transact(steps=tuple(steps), purpose=purpose)
        try:
            stored = await self.ref.ask(message, timeout=self.timeout, generation=generation)
        except MutationAborted as aborted:
            raise _cause(aborted) from None
        return cast("list[Stored[Any]]", stored)  # the engine's answers (messages/store.py)

    async def with_engine(self, step: Callable[[FileStore], R], purpose: str = "step") -> R:
        """Run ``step`` on the Store's IO thread with its engine (see ``WithEngine``)."""
        try:
            result = await self.ref.ask(
                WithEngine(step=step, purpose=purpose), timeout=self.timeout
            )
        except MutationAborted as aborted:
            raise _cause(aborted) from None
        return cast("R", result)

    async def repair(self, target: StoreTarget[Any]) -> object:
        """Sweep temps and quarantine ``target`` if corrupt; the problem found, or None."""
        return await self.ref.ask(Repair(target=target), timeout=self.timeout)


def _cause(aborted: MutationAborted | IOJobFailed) -> BaseException:
    cause = aborted.__cause__
    return cause if cause is not None else aborted
