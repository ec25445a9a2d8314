"""The first ``BeforeAgentStart`` on a large store keeps the loop free (issue 15, item 9).

Reproduction: on a 16 MiB store (19,000 facts) the first turn answered after 2.12 s with
the event loop blocked (a ping waited as long), past the 750 ms fail-open. The index build
now runs on the runtime's IO thread (``MemoryService(offload=...)``, wired by the Mind
feature), as a job of the Store's (``StoreClient.submit_io``): the deadline fails the turn
open while the build goes on, and the next turn uses its result. Timing figures are in
``bench/bridge.py``; these tests check the behaviour with gates and the manual clock.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import pytest_asyncio

from persona_mind.actors.store import StoreClient
from persona_mind.messages.host import BeforeAgentStart, PromptInjection, SessionStart
from persona_mind.mind import Fact, MemoryService, MindScope, with_deadline
from persona_mind.mind._scope import find_project
from persona_mind.runtime import Runtime
from persona_mind.storage import FileStore, Layout
from persona_mind.testing import ManualClock, real_store
from tests.bridge._null_host import NullHost

T = TypeVar("T")


class GatedOffload:
    """Runs work on a thread; index builds wait until the test opens ``gate`` (counted).

    Other work (the persona feature's pack IO shares the runtime's offload) passes through.
    """

    def __init__(self, inner: Callable[[Callable[[], Any]], Any] | None = None) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()
        self.calls = 0
        self.inner = inner

    def gated(self, fn: Callable[[], T]) -> Callable[[], T]:
        """``fn``, waiting for the gate first when it is an index build (counted)."""
        is_build = "IndexCache._build" in getattr(fn, "__qualname__", "")
        self.calls += is_build

        def run() -> T:
            if is_build:
                self.started.set()
                assert self.gate.wait(30), "the test never opened the gate"
            return fn()

        return run

    async def __call__(self, fn: Callable[[], T]) -> T:
        run = self.gated(fn)
        if self.inner is not None:
            result: T = await self.inner(run)
            return result
        return await asyncio.to_thread(run)


@pytest_asyncio.fixture
async def store(tmp_path: Path) -> AsyncIterator[StoreClient]:
    """The Store actor on the test's agent dir (real files)."""
    async with real_store(tmp_path / "agent") as client:
        yield client


class JobStore(StoreClient):
    """The Store actor's client whose jobs (``submit_io``: the index builds) run through the
    test's offload on a thread, settling their future whether or not the submitter still
    waits (the test stands in for the Store's job queue)."""

    def __init__(self, store: StoreClient, offload: Callable[[Callable[[], Any]], Any]) -> None:
        super().__init__(store.ref)
        self.offload = offload

    def submit_io(self, work: Callable[[], T], purpose: str = "io job") -> asyncio.Future[T]:
        job: asyncio.Future[T] = asyncio.ensure_future(self.offload(work))
        return job


def _write_project_facts(agent: Path, repo: Path, n: int = 300) -> MindScope:
    scope = MindScope(agent, None, find_project(repo, agent / "home"))
    rows = tuple(
        Fact(
            id=f"m_{i:08x}",
            kind="note",
            text=f"parser cache note {i} about retry schema token {i % 17}",
            recordedAt=1.0 + i,
            lastSeenAt=1.0 + i,
        )
        for i in range(n)
    )
    FileStore(Layout(agent)).mutate(scope.fact_target("project"), lambda _old: rows)
    return scope


@pytest.mark.asyncio
async def test_a_build_cut_off_by_the_deadline_goes_on_and_the_next_call_uses_it(
    tmp_path: Path, store: StoreClient
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    scope = _write_project_facts(tmp_path / "agent", repo)
    clock = ManualClock()
    offload = GatedOffload()
    service = MemoryService(JobStore(store, offload), clock, scope, offload=offload)
    now = clock.wall()
    first = asyncio.ensure_future(with_deadline(lambda: service.index("project", now), clock, 0.75))
    assert await asyncio.to_thread(offload.started.wait, 30)  # the build runs on its thread
    clock.advance(0.75)
    assert await first is None  # failed open while the build is still running
    offload.gate.set()
    index = await service.index("project", now)  # waits for that build: no second one
    assert len(index) == 300
    assert offload.calls == 1
    assert await service.index("project", now) is index  # and it is cached
    assert offload.calls == 1


@pytest.mark.asyncio
async def test_concurrent_callers_share_one_build(tmp_path: Path, store: StoreClient) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    scope = _write_project_facts(tmp_path / "agent", repo)
    offload = GatedOffload()
    service = MemoryService(JobStore(store, offload), ManualClock(), scope, offload=offload)
    now = service.now()
    a = asyncio.ensure_future(service.index("project", now))
    b = asyncio.ensure_future(service.index("project", now))
    assert await asyncio.to_thread(offload.started.wait, 30)
    offload.gate.set()
    assert await a is await b
    assert offload.calls == 1


@pytest.mark.asyncio
async def test_the_runtime_answers_while_the_first_index_builds_and_fails_open_on_time(
    tmp_path: Path,
) -> None:
    """The product Runtime: the Mind feature hands index builds to its ports' offload (the
    Store's IO thread)."""
    agent, repo = tmp_path / "agent", tmp_path / "repo"
    repo.mkdir()
    _write_project_facts(agent, repo)
    clock = ManualClock()
    async with Runtime(NullHost(), agent_dir=agent, clock=clock) as rt:
        store: Any = rt.store  # index builds are the Store's jobs: gate them there
        offload = GatedOffload()
        submit = store.submit_io
        store.submit_io = lambda work, purpose="io job": submit(offload.gated(work), purpose)
        await rt.event(SessionStart(reason="startup", session_id="s1", cwd=str(repo)))
        hook = asyncio.ensure_future(rt.event(BeforeAgentStart(prompt="parser cache retry")))
        assert await asyncio.to_thread(offload.started.wait, 30)  # a build is running
        assert (await rt.owner()).session_id == "s1"  # the loop and the actors still answer
        clock.advance(0.75)
        first = await hook
        assert isinstance(first, PromptInjection)
        assert first.sections == ()
        assert any("750 ms" in d for d in first.disclosures)  # the fail-open is disclosed
        offload.gate.set()
        second = await rt.event(BeforeAgentStart(prompt="parser cache retry"))
        assert second is not None
        assert any("<persona-mind-memory>" in s for s in second.sections)
        assert offload.calls >= 1


@pytest.mark.asyncio
async def test_a_build_that_failed_after_its_caller_left_is_retried_by_the_next_call(
    tmp_path: Path, store: StoreClient
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    scope = _write_project_facts(tmp_path / "agent", repo)
    clock = ManualClock()
    gate, started = threading.Event(), threading.Event()
    calls: list[str] = []

    async def flaky(fn: Callable[[], T]) -> T:
        calls.append("build")

        def run() -> T:
            if len(calls) == 1:
                started.set()
                gate.wait(30)
                raise OSError("the IO thread's build failed")
            return fn()

        return await asyncio.to_thread(run)

    service = MemoryService(JobStore(store, flaky), clock, scope, offload=flaky)
    now = clock.wall()
    first = asyncio.ensure_future(with_deadline(lambda: service.index("project", now), clock, 0.75))
    assert await asyncio.to_thread(started.wait, 30)
    clock.advance(0.75)
    assert await first is None
    gate.set()
    index = await service.index("project", now)  # the failed build is not cached
    assert len(index) == 300
    assert calls == ["build", "build"]
