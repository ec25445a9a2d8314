"""A one-shot load (``stepwise=False``: a CLI ``recall``, a library's first ranking) maps the
weights and resolves BPE merges on first use; it must give the vectors of the session's
stepwise load bit for bit (cached vectors stay valid), and refuse the same bad files."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from persona_mind.embedding._bpe import LlamaBPE
from persona_mind.embedding._encoder import WEIGHTS_FILE, WordLlamaEncoder
from persona_mind.embedding._errors import UnsupportedModelFile
from persona_mind.embedding._weights import map_f16_table, read_f16_table

HAS_MODEL = importlib.util.find_spec("wordllama") is not None
needs_model = pytest.mark.skipif(not HAS_MODEL, reason="the semantic extra is not installed")

TEXTS = [
    "",
    "fix the failing parser test: retry and cache in tests/x.py",
    "Deploy on Fridays — déjà vu, 日本語 😀 <s> </s>",
    "cache retry timeout for the deploy queue",
]


@needs_model
def test_mapped_table_is_the_read_table() -> None:
    spec = importlib.util.find_spec("wordllama")
    assert spec is not None
    assert spec.submodule_search_locations
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*WEIGHTS_FILE)
    mapped = map_f16_table(path, "embedding.weight", 128, rows=32000)
    assert type(mapped) is np.ndarray  # not np.memmap: its wrapping costs more than a gather
    assert mapped.dtype == np.float16
    assert mapped.shape == (32000, 256)
    assert mapped.flags.c_contiguous
    read = read_f16_table(path, "embedding.weight", 128, rows=32000)
    assert np.array_equal(mapped[:, :128].astype(np.float32), read)


@needs_model
def test_one_shot_load_encodes_as_the_stepwise_load() -> None:
    one_shot = WordLlamaEncoder.load(stepwise=False)
    stepwise = WordLlamaEncoder.load(stepwise=True)
    assert one_shot._table.dtype == np.float16  # mapped, not read and cast up front
    assert one_shot._table.flags.c_contiguous  # a gather from a column slice copies it all
    assert np.array_equal(one_shot.encode(TEXTS), stepwise.encode(TEXTS))
    for text in TEXTS:
        assert np.array_equal(one_shot.encode([text]), stepwise.encode([text]))


def _tokenizer(tmp_path: Path, merges: Sequence[object]) -> Path:
    vocab = {"<unk>": 0, "\u2581": 1, "a": 2, "b": 3, "ab": 4, "\u2581ab": 5}
    doc = {
        "model": {
            "type": "BPE",
            "dropout": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "unk_token": "<unk>",
            "vocab": vocab,
            "merges": merges,
        },
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": "\u2581"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            ],
        },
        "pre_tokenizer": None,
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("stepwise", [True, False])
def test_merges_resolve_the_same_in_both_shapes(tmp_path: Path, stepwise: bool) -> None:
    for merges in (["a b", "\u2581 ab"], [["a", "b"], ["\u2581", "ab"]]):
        bpe = LlamaBPE.from_file(_tokenizer(tmp_path, merges), stepwise=stepwise)
        assert bpe.encode("ab ba") == [5, 1, 3, 2]


@pytest.mark.parametrize("bad", ["a c", "a  b", "ab", "b a"])
def test_a_merge_out_of_the_vocabulary_is_refused_at_load(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UnsupportedModelFile):
        LlamaBPE.from_file(_tokenizer(tmp_path, ["a b", bad]), stepwise=False)
