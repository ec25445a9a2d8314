"""The one builder of a scope's memory: which ranker and model every face's service gets.

A Pi session (the Mind feature), :class:`~persona_mind.Memory` — and so every
``persona-mind memory …`` command — and the MCP server (its headless session runs the Mind
feature) all recall and plan injections with a :class:`~persona_mind.mind.MemoryService`
over the Store actor.  The service's ranking and its injection planner are domain code, the
same everywhere; what a face decides is which semantic model the service is handed.  That
decision lives here, once:

* :func:`semantic_source` — the process-wide model edge (hybrid ranking, BM25 fused with
  the static embedding model of the ``semantic`` extra), or ``None`` for lexical ranking: a
  delegated leg never ranks semantically (M-LEG), and ``PERSONA_MIND_RANKER=lexical`` opts
  out.  Without the extra the edge reports itself unavailable and ranking is lexical, with
  that reason in the plan's disclosures.
* :func:`memory_service` — the service for one scope, built with that source.
* :func:`load_model` — wait, off the event loop, until the model has loaded (or failed to).
* :func:`start_store` — the actor system and Store actor a facade runs (the one a session
  runs: every write under the store lock and the generation check, on the IO thread).

Two policies differ only in *when* the model may be waited for, never in what ranks.  A
session with an offload (the sidecar, the headless session) never blocks a turn: its edge
loads in the background and a turn before it is in ranks lexically and says so.  A service
without one (a one-shot command, a library program) waits for the model before its first
ranking, so the same store and prompt give the same facts in the same order as a session
whose model is in.  The facades wait through :func:`load_model` on the Store's IO thread;
a caller that reaches the service directly gets the same answer, the load then running
where it is asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from persona_mind.actors import ActorSystem
    from persona_mind.actors.store import StoreClient
    from persona_mind.clock import Clock
    from persona_mind.embedding import SemanticEdge
    from persona_mind.mind import FactIndex, MemoryService, MindScope
    from persona_mind.mind.recall._ranker import RankerStatus, Semantic, SemanticSource
    from persona_mind.storage.port import StorePort

__all__ = ("load_model", "memory_service", "semantic_source", "start_store", "wants_semantic")

RANKER_ENV = "PERSONA_MIND_RANKER"
"""``lexical`` turns the semantic model off for the process (tests, benchmarks, users)."""


def wants_semantic(env: Mapping[str, str]) -> bool:
    """Whether this process ranks with the semantic model (not a leg, not opted out)."""
    from persona_mind.mind import is_leg  # noqa: PLC0415 - the service needs Mind anyway

    return not is_leg(env) and env.get(RANKER_ENV, "").strip().lower() != "lexical"


def semantic_source(env: Mapping[str, str], *, background: bool = True) -> SemanticSource | None:
    """The model edge a service ranks with, or ``None`` (lexical); see the module doc.

    ``background``: start loading now in the edge's own thread (a session: the load's
    one-off work falls while a person types the first prompt); otherwise the model loads
    before the first ranking that needs it (a one-shot command: a ``remember`` never pays
    for it).
    """
    if not wants_semantic(env):
        return None
    from persona_mind.embedding import shared_edge  # noqa: PLC0415 - numpy stays unloaded

    edge = shared_edge()
    if background:
        edge.start()
        return edge
    return _LoadedFirst(edge)


def memory_service(
    store: StorePort,
    clock: Clock,
    scope: MindScope,
    *,
    env: Mapping[str, str],
    generation: int | None = None,
    offload: Callable[[Callable[[], Any]], Awaitable[Any]] | None = None,
) -> MemoryService:
    """The :class:`MemoryService` of ``scope``, ranking with :func:`semantic_source`.

    ``offload`` (a session's executor) builds indexes off the loop and never waits for the
    model; without it (a one-shot command, a library) the model is in before the first
    ranking.
    """
    from persona_mind.mind import MemoryService  # noqa: PLC0415

    service = MemoryService(store, clock, scope, generation=generation, offload=offload)
    service.semantic = semantic_source(env, background=offload is not None)
    return service


async def load_model(
    env: Mapping[str, str], run_blocking: Callable[[Callable[[], Any]], Awaitable[Any]]
) -> None:
    """Return once the process's model has loaded or failed to (nothing to do if lexical).

    ``run_blocking`` runs the load off the event loop (the Store's IO thread); a load that
    is already under way in the edge's own thread is waited for there.
    """
    if not wants_semantic(env):
        return
    from persona_mind.embedding import shared_edge  # noqa: PLC0415

    edge = shared_edge()
    if not edge.settled.is_set():
        await run_blocking(edge.load_now)


async def start_store(
    agent_dir: Path, clock: Clock, *, fresh_reads: bool = True
) -> tuple[ActorSystem, StoreClient]:
    """A started actor system with the Store actor on ``agent_dir``.

    Nothing is created until something is written (a read of a missing agent dir finds no
    stores).  The caller stops the system (``await system.stop()``, or its ``__aexit__``).
    ``fresh_reads=False`` for a one-shot process (see :func:`~persona_mind.actors.store.
    spawn_store`).
    """
    from persona_mind.actors import ActorSystem  # noqa: PLC0415 - light top-level import
    from persona_mind.actors.store import spawn_store  # noqa: PLC0415

    system = ActorSystem(clock=clock)
    await system.__aenter__()
    try:
        store = spawn_store(system, agent_dir, fresh_reads=fresh_reads)
    except BaseException:
        await system.stop()
        raise
    return system, store


class _LoadedFirst:
    """The shared edge for a service that may wait: the model is loaded before it ranks.

    A :class:`~persona_mind.mind.recall._ranker.SemanticSource`; ``load_now`` returns at once once
    the model has settled (loaded or unavailable), so only a service's first ranking pays.
    """

    def __init__(self, edge: SemanticEdge) -> None:
        self.edge = edge

    def bind(self, index: FactIndex, store: Path | None, *, wait: bool = True) -> bool:
        self.edge.load_now()
        return self.edge.bind(index, store, wait=wait)

    def for_prompt(self, prompt: str) -> tuple[Semantic | None, RankerStatus]:
        self.edge.load_now()
        return self.edge.for_prompt(prompt)

    def status(self) -> RankerStatus:
        return self.edge.status()
