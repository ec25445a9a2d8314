"""The encoder's pooling (issue 10, ``before_agent_start``): the per-turn fast path computes
exactly the vectors of the plain formula — mean of the token rows, scaled to unit length —
bit for bit, so cached fact vectors and every similarity the planner rounds stay the same."""

from __future__ import annotations

import importlib.util
import random

import numpy as np
import pytest

from persona_mind.embedding._encoder import Matrix, WordLlamaEncoder, unit_rows

HAS_MODEL = importlib.util.find_spec("wordllama") is not None


def reference(encoder: WordLlamaEncoder, texts: list[str]) -> Matrix:
    """The plain formula, written the obvious way (what the encoder computed before)."""
    table = encoder._table
    out = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    for i, text in enumerate(texts):
        ids = np.asarray(encoder._tokenize(text), dtype=np.intp)
        if ids.size:
            np.clip(ids, 0, table.shape[0] - 1, out=ids)
            out[i] = table[ids].sum(axis=0, dtype=np.float32) / np.float32(ids.size)
    return unit_rows(out)


def _char_ids(text: str) -> list[int]:
    """One id per character (code point modulo 300: some ids fall outside a 256-row table)."""
    return [ord(c) % 300 for c in text]


def texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz     0123456789_./:-()Äéüß日本語😀\n\t"
    out = ["", " ", "a", "fix the failing parser12 test: retry3 and cache7 in tests/x.py"]
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(n)]
    return out


def test_pooling_matches_the_plain_formula_with_a_small_table() -> None:
    """Ids past the table are clipped to its last row, an empty text is a zero row."""
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((256, 256)).astype(np.float32)
    encoder = WordLlamaEncoder(_char_ids, weights)
    batch = texts(1, 300)
    got = encoder.encode(batch)
    assert got.dtype == np.float32
    assert got.shape == (len(batch), encoder.dim)
    assert np.array_equal(got, reference(encoder, batch))
    assert not got[0].any()  # "" has no token: a zero row, not NaN
    for text in batch[:50]:  # one text (the prompt's path) equals its row in a batch
        assert np.array_equal(encoder.encode([text])[0], reference(encoder, [text])[0])
    norms = np.linalg.norm(got[[i for i, t in enumerate(batch) if t]], axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5)


@pytest.mark.skipif(not HAS_MODEL, reason="the semantic extra (wordllama) is not installed")
def test_pooling_matches_the_plain_formula_with_the_bundled_model() -> None:
    encoder = WordLlamaEncoder.load()
    batch = texts(2, 400)
    assert np.array_equal(encoder.encode(batch), reference(encoder, batch))
    prompt = batch[3]
    assert np.array_equal(encoder.encode([prompt]), reference(encoder, [prompt]))
