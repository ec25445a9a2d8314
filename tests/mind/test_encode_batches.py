"""A background bind embeds in small batches and yields between them (issue 15 item 9).

The cold bind of a 16 MiB store embeds 19,000 facts on the edge's worker thread; in one
encoder call that is seconds of tokenizer work competing with the event loop for the GIL.
The edge now calls the encoder :data:`ENCODE_BATCH` texts at a time with its ``pause``
hook (``time.sleep(0)`` in production) between two calls.  Checked by recording the order of
encoder calls and pauses, never by timing (figures: ``bench/_bridge_limits.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from persona_mind.embedding import SemanticEdge
from persona_mind.embedding._edge import ENCODE_BATCH
from persona_mind.embedding._encoder import Matrix
from persona_mind.mind import Fact
from persona_mind.mind.recall._retrieval import FactIndex
from tests.mind.test_hybrid import BagEncoder


class LoggingEncoder(BagEncoder):
    """Appends ``("encode", n)`` to a shared log for every call."""

    def __init__(self, log: list[tuple[str, int]]) -> None:
        super().__init__()
        self.log = log

    def encode(self, texts: Sequence[str]) -> Matrix:
        self.log.append(("encode", len(texts)))
        return super().encode(texts)


def _index(n: int) -> FactIndex:
    return FactIndex.build(
        tuple(
            Fact(
                id=f"m_{i:08x}",
                kind="convention",
                text=f"parser cache note {i} about deploy weekday {i % 7}",
                recordedAt=1.0 + i,
                lastSeenAt=1.0 + i,
            )
            for i in range(n)
        )
    )


def _edge(log: list[tuple[str, int]]) -> tuple[SemanticEdge, LoggingEncoder]:
    enc = LoggingEncoder(log)
    edge = SemanticEdge(loader=lambda: enc, pause=lambda: log.append(("pause", 0)))
    assert edge.load_now().hybrid
    log.clear()
    return edge, enc


@pytest.mark.parametrize("n", [ENCODE_BATCH * 3 + 5, ENCODE_BATCH * 2])
def test_a_large_bind_encodes_in_batches_with_a_pause_between_each(n: int) -> None:
    log: list[tuple[str, int]] = []
    edge, _ = _edge(log)
    index = _index(n)
    assert edge.bind(index, None)
    encodes = [size for kind, size in log if kind == "encode"]
    assert sum(encodes) == n
    assert max(encodes) == ENCODE_BATCH
    # encode, pause, encode, pause, ..., encode: a pause between every two calls, none after
    assert [kind for kind, _ in log] == ["encode", "pause"] * (len(encodes) - 1) + ["encode"]


def test_batched_vectors_equal_one_call_vectors() -> None:
    log: list[tuple[str, int]] = []
    edge, _ = _edge(log)
    index = _index(ENCODE_BATCH * 2 + 9)
    got = edge.vectors(index).matrix
    texts = [f.text for f in index.facts]
    assert np.array_equal(got, BagEncoder().encode(texts))


def test_a_small_bind_is_one_call_and_never_pauses() -> None:
    log: list[tuple[str, int]] = []
    edge, _ = _edge(log)
    assert edge.bind(_index(ENCODE_BATCH), None)
    assert log == [("encode", ENCODE_BATCH)]


def test_the_real_encoders_batches_equal_its_one_by_one_vectors() -> None:
    """The production encoder tokenizes batches with ``encode_batch`` (the GIL released,
    the wheel's padding turned off): the same vectors as one text at a time."""
    pytest.importorskip("wordllama", reason="the semantic extra is not installed")
    from persona_mind.embedding._encoder import WordLlamaEncoder  # noqa: PLC0415

    enc = WordLlamaEncoder.load()
    texts = ["Deploys go out on Tuesdays", "db", "a much longer text " * 40, "", "ship it"]
    batch = enc.encode(texts)
    one_by_one = np.stack([enc.encode([t])[0] for t in texts])
    assert np.array_equal(batch, one_by_one)
