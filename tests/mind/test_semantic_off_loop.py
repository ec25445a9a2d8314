"""Nothing semantic runs on the event loop (issue 15 item 9, issue 16 scope 2 and 4).

Reproduction: on a 16 MiB store the turn after the first bound all 19,000 fact vectors on
the loop (5.2–7.4 s, every ping waiting as long), and dropping a replaced 19,000-fact index
froze the loop for 290–380 ms.  Now a large bind runs on the edge's worker thread while the
turn is ranked lexically and says so, cached vectors are used when present, and a replaced
index is taken apart on the offload thread.  Checked with gates and thread identities, never
with timing (figures: ``bench/_bridge_limits.py``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
import pytest_asyncio

from persona_mind.actors.store import StoreClient
from persona_mind.embedding import SemanticEdge
from persona_mind.embedding._edge import ENCODE_BATCH, INLINE_CHARS, INLINE_ROWS
from persona_mind.embedding._encoder import Matrix
from persona_mind.embedding._vectors import vectors_path
from persona_mind.mind import Fact, MemoryService, MindScope, MindSettings
from persona_mind.mind._commands import MindCommandContext, handle_mind_command
from persona_mind.mind._scope import find_project
from persona_mind.mind.recall._retrieval import FactIndex, retire
from persona_mind.storage import FileStore, Layout
from persona_mind.testing import ManualClock, real_store
from tests.mind.test_hybrid import BagEncoder

T = TypeVar("T")
N = INLINE_ROWS + 44  # more rows than a bind may do in place
PROMPT = "which weekday can we ship deploys"  # "deploys": lexical has a match too


class GatedEncoder(BagEncoder):
    """Records the thread of every batch; batches of facts wait for ``gate``."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.threads: list[tuple[int, str]] = []

    def encode(self, texts: Sequence[str]) -> Matrix:
        self.threads.append((len(texts), threading.current_thread().name))
        if len(texts) > 1:
            self.entered.set()
            assert self.gate.wait(30), "the test never opened the gate"
        return super().encode(texts)


class Offload:
    """The runtime's offload stand-in: one named worker thread, jobs in order."""

    def __init__(self) -> None:
        self.pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="pm-io")

    async def __call__(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn)

    def submit_io(self, work: Callable[[], T], purpose: str = "io job") -> asyncio.Future[T]:
        """A job the worker owns from submission (as the runtime's Store takes them)."""
        return asyncio.wrap_future(self.pool.submit(work))

    async def drain(self) -> None:
        await self(lambda: None)  # one thread, in order: every earlier job is done


@pytest.fixture
def offload() -> Iterator[Offload]:
    off = Offload()
    yield off
    off.pool.shutdown(wait=True)


def _facts(n: int, offset: int = 0) -> tuple[Fact, ...]:
    texts = ("Deploys go out on Tuesdays after the freeze", "Use ruff with line length 100")
    return tuple(
        Fact(
            id=f"m_{i:08x}",
            kind="convention",
            text=f"{texts[i % 2] if i < 2 else f'parser cache note {i}'} (row {i})",
            recordedAt=1.0 + i,
            lastSeenAt=1.0 + i,
        )
        for i in range(offset, offset + n)
    )


@pytest_asyncio.fixture
async def store(tmp_path: Path) -> AsyncIterator[StoreClient]:
    """The Store actor on the test's agent dir (real files)."""
    async with real_store(tmp_path / "agent") as client:
        yield client


def _service(
    tmp_path: Path, store: StoreClient, offload: Offload | None, rows: tuple[Fact, ...]
) -> MemoryService:
    agent = tmp_path / "agent"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    scope = MindScope(agent, None, find_project(repo, agent / "home"))
    FileStore(Layout(agent)).mutate(scope.fact_target("project"), lambda _old: rows)
    return MemoryService(store, ManualClock(), scope, offload=offload)


def _edge(enc: BagEncoder) -> SemanticEdge:
    edge = SemanticEdge(loader=lambda: enc)
    assert edge.load_now().hybrid
    return edge


async def _warmed(edge: SemanticEdge) -> None:
    for job in edge.pending():
        await asyncio.wrap_future(job)


def _warming(disclosures: Sequence[str]) -> bool:
    return any("ranking: lexical" in d and "warming up" in d for d in disclosures)


@pytest.mark.asyncio
async def test_a_turn_while_vectors_are_computed_is_lexical_and_says_so(
    tmp_path: Path, offload: Offload, store: StoreClient
) -> None:
    svc = _service(tmp_path, store, offload, _facts(N))
    enc = GatedEncoder()
    enc.gate.clear()
    svc.semantic = edge = _edge(enc)
    # answered while the worker is held inside the fact batch: the loop never waited on it
    plan = await svc.injection(PROMPT)
    assert await asyncio.to_thread(enc.entered.wait, 30)
    assert _warming(plan.disclosures), plan.disclosures
    assert plan.text  # the turn still gets its (lexical) block
    again = await svc.injection(PROMPT)  # still computing: still lexical, no second job
    assert _warming(again.disclosures)
    assert len(edge.pending()) == 1
    doctor = await handle_mind_command("doctor", MindCommandContext(svc, MindSettings(), None))
    assert "ranking: lexical" in doctor.text
    assert f"vectors for {N} facts" in doctor.text  # /mind doctor says so too
    enc.gate.set()
    await _warmed(edge)
    warm = await svc.injection(PROMPT)
    assert not any("ranking: lexical" in d for d in warm.disclosures), warm.disclosures
    assert edge.status().hybrid
    batches = [(n, name) for n, name in enc.threads if n > 1]
    # every fact, in batches of at most ENCODE_BATCH (test_encode_batches.py) ...
    assert sum(n for n, _ in batches) == N
    assert max(n for n, _ in batches) == ENCODE_BATCH
    assert {name for _, name in batches} == {batches[0][1]}
    assert batches[0][1].startswith("persona-mind-embedding")  # ... on the edge's worker
    worker = [t for t in threading.enumerate() if t.name == batches[0][1]]
    assert worker
    assert worker[0].daemon  # a sidecar asked to stop never waits out a bind
    assert vectors_path(svc.scope.fact_target("project").path, enc.model_id).is_file()


@pytest.mark.asyncio
async def test_cached_vectors_are_used_and_nothing_is_re_embedded(
    tmp_path: Path, offload: Offload, store: StoreClient
) -> None:
    svc = _service(tmp_path, store, offload, _facts(N))
    svc.semantic = first = _edge(GatedEncoder())
    await svc.injection(PROMPT)
    await _warmed(first)
    # a new process: a fresh edge and encoder over the same store and its cache file
    enc = GatedEncoder()
    svc2 = MemoryService(svc.store, ManualClock(), svc.scope, offload=offload)
    svc2.semantic = edge = _edge(enc)
    plan = await svc2.injection(PROMPT)  # the cache file is read off the loop too
    await _warmed(edge)
    warm = await svc2.injection(PROMPT)
    assert _warming(plan.disclosures)
    assert not any("ranking: lexical" in d for d in warm.disclosures)
    assert [n for n, _ in enc.threads] == [1]  # the prompt only: every fact came from the cache


@pytest.mark.asyncio
async def test_a_remember_after_warm_up_stays_hybrid_and_embeds_one_row_in_place(
    tmp_path: Path, offload: Offload, store: StoreClient
) -> None:
    svc = _service(tmp_path, store, offload, _facts(N))
    enc = GatedEncoder()
    svc.semantic = edge = _edge(enc)
    await svc.injection(PROMPT)
    await _warmed(edge)
    enc.threads.clear()
    await svc.remember("convention", "Staging deploys need a green canary", tier="project")
    plan = await svc.injection(PROMPT)
    assert not any("ranking: lexical" in d for d in plan.disclosures), plan.disclosures
    assert not edge.pending()
    assert [n for n, _ in enc.threads] == [1, 1]  # the new fact, then the prompt


@pytest.mark.asyncio
async def test_the_cli_without_offload_binds_in_place_and_ranks_hybrid_at_once(
    tmp_path: Path, store: StoreClient
) -> None:
    svc = _service(tmp_path, store, None, _facts(N))
    enc = GatedEncoder()
    svc.semantic = edge = _edge(enc)
    plan = await svc.injection(PROMPT)
    assert not any("ranking: lexical" in d for d in plan.disclosures)
    assert not edge.pending()
    binds = [(n, name) for n, name in enc.threads if n > 1]  # every fact, in place
    assert sum(n for n, _ in binds) == N
    assert {name for _, name in binds} == {threading.current_thread().name}


@pytest.mark.asyncio
async def test_a_failing_background_bind_leaves_turns_lexical_and_is_retried(
    tmp_path: Path, offload: Offload, store: StoreClient
) -> None:
    svc = _service(tmp_path, store, offload, _facts(N))

    class Flaky(GatedEncoder):
        fail = True

        def encode(self, texts: Sequence[str]) -> Matrix:
            if len(texts) > 1 and self.fail:
                self.fail = False
                raise RuntimeError("model fell over")
            return super().encode(texts)

    svc.semantic = edge = _edge(Flaky())
    assert _warming((await svc.injection(PROMPT)).disclosures)
    for job in edge.pending():
        with pytest.raises(RuntimeError):
            await asyncio.wrap_future(job)
    assert _warming((await svc.injection(PROMPT)).disclosures)  # tried again
    await _warmed(edge)
    plan = await svc.injection(PROMPT)
    assert not any("ranking: lexical" in d for d in plan.disclosures)


# -- releasing old indexes ----------------------------------------------------------------------


def _watch(index: FactIndex) -> threading.Event:
    """Set when ``index`` is freed, with the freeing thread's name recorded on it."""
    died = threading.Event()

    def record() -> None:
        died.thread = threading.current_thread().name  # type: ignore[attr-defined]
        died.set()

    weakref.finalize(index, record)
    return died


@pytest.mark.asyncio
async def test_a_replaced_index_is_freed_on_the_offload_thread(
    tmp_path: Path, offload: Offload, store: StoreClient
) -> None:
    svc = _service(tmp_path, store, offload, _facts(200))
    now = svc.now()
    died = _watch(await svc.index("project", now))
    target = svc.scope.fact_target("project")
    # more than MAX_INCREMENTAL changed rows: a full rebuild replaces the cached index
    FileStore(Layout(tmp_path / "agent")).mutate(target, lambda _old: _facts(200, offset=1000))
    fresh = await svc.index("project", now)
    assert len(fresh) == 200
    # the Store's jobs run in order: this one runs after the retirement, on the same thread
    io_thread = await store.run_io(lambda: threading.current_thread().name, "after it")
    assert died.is_set()
    assert died.thread == io_thread  # type: ignore[attr-defined]
    assert fresh.rank("parser cache", 3)  # the new index is whole


@pytest.mark.asyncio
async def test_a_session_switch_frees_the_old_service_indexes_off_the_loop(
    tmp_path: Path, offload: Offload, store: StoreClient
) -> None:
    svc = _service(tmp_path, store, offload, _facts(200))
    died = _watch(await svc.index("project", svc.now()))
    svc.release()
    # the Store's jobs run in order: this one runs after the retirement, on the same thread
    io_thread = await store.run_io(lambda: threading.current_thread().name, "after it")
    assert died.is_set()
    assert died.thread == io_thread  # type: ignore[attr-defined]
    # a late caller of the released service still gets a (fresh) index
    assert len(await svc.index("project", svc.now())) == 200


def test_retire_leaves_an_index_alone_while_someone_still_uses_it() -> None:
    index = FactIndex.build(list(_facts(50)))
    before = [r.fact.id for r in index.rank("parser cache note", 10)]
    retire(index)()  # the test still holds ``index``: the job only lets go
    assert [r.fact.id for r in index.rank("parser cache note", 10)] == before


def test_retiring_an_old_index_never_touches_what_the_updated_one_shares() -> None:
    rows = list(_facts(80))
    old = FactIndex.build(rows)
    changed = [*rows[:-3], *_facts(3, offset=500)]
    new = old.updated(changed)
    assert new is not None
    job = retire(old)
    del old
    finished = threading.Thread(target=job, name="releaser")
    finished.start()
    finished.join(30)
    fresh = FactIndex.build(changed)
    for query in ("parser cache note 7", "deploys tuesdays", "note 501"):
        assert [(r.fact.id, r.score) for r in new.rank(query, 20)] == [
            (r.fact.id, r.score) for r in fresh.rank(query, 20)
        ]


def test_retire_empties_the_token_caches_it_is_given() -> None:
    cache: dict[str, tuple[str, tuple[str, ...], tuple[tuple[str, int], ...]]] = {}
    FactIndex.build(list(_facts(1200)), None, cache)
    assert len(cache) == 1200
    retire(None, cache)()
    assert cache == {}


@pytest.mark.asyncio
async def test_few_but_long_facts_are_embedded_off_the_loop_too(
    tmp_path: Path, offload: Offload, store: StoreClient
) -> None:
    """The in-place limit is on text as well as rows: 20 facts of 1,500 characters (more
    than INLINE_CHARS) would cost the loop ~18 ms of tokenizer for words not yet seen."""
    long = tuple(
        Fact(
            id=f"m_{i:08x}",
            kind="convention",
            recordedAt=1.0 + i,
            lastSeenAt=1.0 + i,
            text=f"deploy checklist {i} " + "step " * 300,
        )
        for i in range(20)
    )
    assert sum(len(f.text) for f in long) > INLINE_CHARS
    svc = _service(tmp_path, store, offload, long)
    enc = GatedEncoder()
    svc.semantic = edge = _edge(enc)
    assert _warming((await svc.injection("deploy checklist")).disclosures)
    await _warmed(edge)
    assert [name for n, name in enc.threads if n > 1] == ["persona-mind-embedding"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("rows", "where"), [(12, "loop"), (None, "pm-io")])
async def test_a_large_store_is_planned_off_the_loop(
    tmp_path: Path,
    store: StoreClient,
    offload: Offload,
    monkeypatch: pytest.MonkeyPatch,
    rows: int | None,
    where: str,
) -> None:
    """A turn's injection plan over ``PLAN_OFFLOAD_FACTS`` facts or more runs on the offload
    thread (tens of milliseconds of ranking stalled the sidecar's pings); a small store is
    planned on the loop, where the hop would cost more than the plan."""
    import persona_mind.mind._service as service_module  # noqa: PLC0415

    threads: list[str] = []
    real = service_module.plan_injection  # type: ignore[attr-defined]

    def recording(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(service_module, "plan_injection", recording)
    count = service_module.PLAN_OFFLOAD_FACTS if rows is None else rows
    svc = _service(tmp_path, store, offload, _facts(count))
    plan = await svc.injection(PROMPT)
    assert plan.items, plan.text  # memory was really planned and injected
    assert len(threads) == 1
    on_loop = threads[0] == threading.current_thread().name
    assert (where == "loop") == on_loop, threads
    if where != "loop":
        assert threads[0].startswith("pm-io"), threads
