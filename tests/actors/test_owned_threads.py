"""Threads besides the Store's IO thread are owned and joined (docs/actors.md, "Threads").

The model edge keeps one thread of its own (it must not hold the Store's IO thread for the
seconds a load or a cold bind takes): the load and the binds share it, and closing the edge
stops its job at the next step and joins it.
"""

from __future__ import annotations

import threading

from persona_mind.embedding import SemanticEdge
from persona_mind.mind import Fact
from persona_mind.mind.recall._retrieval import FactIndex
from tests.mind.test_hybrid import BagEncoder

WAIT = 10.0  # seconds: a bound on a hang, never a sleep


def _edge_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("persona-mind-embedding")]


def test_the_edge_loads_and_binds_on_one_thread_and_close_joins_it(tmp_path: object) -> None:
    before = set(_edge_threads())
    loaded_on: list[str] = []
    entered, release = threading.Event(), threading.Event()

    class Slow(BagEncoder):
        def encode(self, texts):  # type: ignore[no-untyped-def]
            if len(texts) > 1:
                entered.set()
                assert release.wait(WAIT)
            return super().encode(texts)

    def loader() -> Slow:
        loaded_on.append(threading.current_thread().name)
        return Slow()

    edge = SemanticEdge(loader=loader, pause=lambda: None)
    edge.turns.settle = 0.0
    edge.start()
    assert edge.settled.wait(WAIT)
    rows = tuple(
        Fact(
            id=f"m_{i:08x}",
            kind="note",
            text=f"fact {i} " + "word " * 20,
            recordedAt=1.0,
            lastSeenAt=1.0,
        )
        for i in range(600)
    )
    index = FactIndex.build(rows, 2.0, {})
    assert not edge.bind(index, tmp_path / "store.json", wait=False)  # type: ignore[operator]
    assert entered.wait(WAIT)  # the bind runs on the edge's thread, after the load
    threads = [t for t in _edge_threads() if t not in before]
    assert [t.name for t in threads] == ["persona-mind-embedding"]
    assert loaded_on == ["persona-mind-embedding"]
    release.set()
    assert edge.close(WAIT)  # the bind stops at its next batch; the thread is joined
    assert not threads[0].is_alive()
    assert not edge.bind(index, tmp_path / "store.json", wait=False)  # type: ignore[operator]
    assert [t for t in _edge_threads() if t not in before] == []
