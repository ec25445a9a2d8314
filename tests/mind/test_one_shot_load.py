"""A load nothing else waits on reads the model's files in one go, to the same model.

``SemanticEdge.load_now`` (a one-shot command, a library before its first ranking) parses
the tokenizer with one ``json.loads`` instead of the GIL-yielding steps a session's
background load takes (issue 22: ``persona-mind memory recall`` pays for the load in its
wall time).  It is only worth having if the result is the same model: the same tokens and
the same vectors, compared here on the wheel's real files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from persona_mind.embedding import SemanticEdge
from persona_mind.embedding._bpe import LlamaBPE
from persona_mind.embedding._encoder import TOKENIZER_FILE, WordLlamaEncoder

wordllama = pytest.importorskip("wordllama", reason="the semantic extra is not installed")

REAL = Path(wordllama.__file__).parent.joinpath(*TOKENIZER_FILE)
TEXTS = (
    "Deploys go out on Tuesdays after the change freeze",
    "naïve café — 日本語 and emoji 👨\u200d👩\u200d👧 <unk> <s>",
    "",
)


def test_the_one_go_tokenizer_equals_the_stepwise_one() -> None:
    steps, once = LlamaBPE.from_file(REAL), LlamaBPE.from_file(REAL, stepwise=False)
    assert once.vocab == steps.vocab
    for text in TEXTS:
        assert once.encode(text) == steps.encode(text)


def test_the_one_go_encoder_gives_the_same_vectors() -> None:
    steps, once = WordLlamaEncoder.load(), WordLlamaEncoder.load(stepwise=False)
    assert np.array_equal(once.encode(list(TEXTS)), steps.encode(list(TEXTS)))


def test_load_now_reads_at_once_and_a_background_load_in_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []
    real = WordLlamaEncoder.load

    def spy(*args: object, stepwise: bool = True, **kwargs: object) -> WordLlamaEncoder:
        seen.append(stepwise)
        return real(*args, stepwise=stepwise, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(WordLlamaEncoder, "load", spy)
    assert SemanticEdge().load_now().hybrid
    background = SemanticEdge()
    background.turns.settle = 0.0
    background.start()
    assert background.load_now().hybrid  # waits for the background thread's load
    assert seen == [False, True]
