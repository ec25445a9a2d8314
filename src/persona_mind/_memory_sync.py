"""``persona_mind.SyncMemory``: :class:`~persona_mind.Memory` for code without an event loop.

Why: a script, a notebook cell or a web handler that is not async should not write
``asyncio.run`` around every call (mem0 ships ``Memory`` beside ``AsyncMemory`` for the same
reason).  ``SyncMemory`` owns one private event loop on a daemon thread, opens an async
``Memory`` there and runs each call on it, so the Store actor, its lock and its generation
checks are the very same as in the async facade.  ``close()`` (or leaving the ``with``
block) closes the memory on its loop, stops the loop and joins the thread; a call after
``close()`` raises :class:`~persona_mind.errors.HostError`.

Example::

    with SyncMemory(cwd=".") as memory:
        found = memory.remember("we deploy on Fridays", kind="convention", tier="project")
        print(found.tier, found.expires_at)      # project None: kept until forgotten
        print([hit.text for hit in memory.recall("deploy")])
"""

from __future__ import annotations

import asyncio
import builtins
import os
import threading
from collections.abc import Coroutine, Iterable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from persona_mind._memory import Memory, MemoryOptions
from persona_mind.errors import HostError

if TYPE_CHECKING:
    from persona_mind.clock import Clock
    from persona_mind.mind import FoundFact, InjectionPlan, Kind, MindScope, Recalled, Tier
    from persona_mind.mind.migrate._exchange import ImportOutcome

__all__ = ("SyncMemory",)

T = TypeVar("T")


class SyncMemory:
    """The memory of one scope with blocking methods (see the module doc); open on creation."""

    def __init__(
        self,
        options: MemoryOptions | None = None,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        persona: str | None = None,
        clock: Clock | None = None,
    ) -> None:
        """As :class:`~persona_mind.Memory`: ``options``, each keyword given overriding it."""
        merged = MemoryOptions.merged(
            options, agent_dir=agent_dir, cwd=cwd, persona=persona, clock=clock
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="persona-mind-memory", daemon=True
        )
        self._thread.start()
        self._memory: Memory | None = None
        memory = Memory(merged)
        try:
            self._memory = self._call(memory.__aenter__())
        except BaseException:
            self._stop_loop()
            raise

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop.is_closed():
            coro.close()
            raise HostError("SyncMemory is closed; create a new one")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _open(self) -> Memory:
        if self._memory is None:
            raise HostError("SyncMemory is closed; create a new one")
        return self._memory

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def close(self) -> None:
        """Close the memory (its Store actor stops), then the private loop; idempotent."""
        memory, self._memory = self._memory, None
        if memory is None:
            return
        try:
            self._call(memory.__aexit__(None, None, None))
        finally:
            self._stop_loop()

    def __enter__(self) -> SyncMemory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def scope(self) -> MindScope:
        """Agent dir, persona and project this memory reads and writes."""
        return self._open().scope

    # -- the memory verbs, as in Memory ---------------------------------------------------
    def remember(
        self,
        text: str,
        *,
        kind: Kind = "note",
        tags: Sequence[str] = (),
        source: str | None = None,
        tier: Tier | None = None,
    ) -> FoundFact:
        """Record a fact; ``found.tier`` and ``found.expires_at`` say where and until when."""
        return self._call(
            self._open().remember(text, kind=kind, tags=tags, source=source, tier=tier)
        )

    def recall(
        self, query: str, *, tiers: Sequence[Tier] | None = None, limit: int = 10
    ) -> builtins.list[Recalled]:
        """Rank live facts for ``query`` (``hit.text``, ``hit.score``, ``hit.reason``)."""
        return self._call(self._open().recall(query, tiers=tiers, limit=limit))

    def inject(self, prompt: str) -> InjectionPlan:
        """The memory block a session's turn with ``prompt`` would get."""
        return self._call(self._open().inject(prompt))

    def list(self, tier: Tier | None = None) -> builtins.list[FoundFact]:
        """Live facts of one tier (or every tier of the scope), newest first."""
        return self._call(self._open().list(tier))

    def read(self, fact_id: str) -> FoundFact:
        """The whole fact by id; a promoted id raises NotFound naming its successor."""
        return self._call(self._open().read(fact_id))

    def forget(self, fact_id: str) -> FoundFact:
        """Delete a fact by id; returns the removed row."""
        return self._call(self._open().forget(fact_id))

    def promote(self, fact_id: str, *, to: Tier = "project") -> FoundFact:
        """Move an STM fact to a long-term tier; returns the new row."""
        return self._call(self._open().promote(fact_id, to=to))

    def supersede(
        self,
        fact_id: str,
        text: str,
        *,
        kind: Kind | None = None,
        tags: Sequence[str] | None = None,
    ) -> FoundFact:
        """Replace a fact with new text; the old row keeps ``superseded_by``."""
        return self._call(self._open().supersede(fact_id, text, kind=kind, tags=tags))

    def history(self, fact_id: str) -> builtins.list[FoundFact]:
        """The supersession chain through ``fact_id``, oldest first."""
        return self._call(self._open().history(fact_id))

    def export(self, tiers: Iterable[Tier] | None = None) -> builtins.list[str]:
        """Every live fact of the scope as JSON Lines."""
        return self._call(self._open().export(tiers))

    def import_lines(
        self,
        lines: Iterable[str],
        *,
        skip_refused: bool = False,
        default_tier: Tier | None = None,
    ) -> ImportOutcome:
        """Import JSON Lines (see :meth:`Memory.import_lines`)."""
        return self._call(
            self._open().import_lines(lines, skip_refused=skip_refused, default_tier=default_tier)
        )
