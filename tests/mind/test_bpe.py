"""persona-mind's own WordLlama tokenizer (issue 15 item 9): the same ids as ``tokenizers``.

The reader exists so the model's load never holds the GIL in one long call; it is only
worth having if it is exact.  Every test here compares with the ``tokenizers`` library (the
oracle, installed with the semantic extra) on the wheel's real file and on small files that
reach the paths the real vocabulary never takes (unknown characters, merges that make the
same token two ways).
"""

from __future__ import annotations

import copy
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.embedding._bpe import LlamaBPE, decode_in_steps, read_text_in_slices
from persona_mind.embedding._encoder import TOKENIZER_FILE, WEIGHTS_FILE, WordLlamaEncoder
from persona_mind.embedding._errors import UnsupportedModelFile
from persona_mind.embedding._weights import read_f16_table

tokenizers = pytest.importorskip("tokenizers", reason="the semantic extra is not installed")
wordllama = pytest.importorskip("wordllama", reason="the semantic extra is not installed")

ROOT = Path(wordllama.__file__).parent
REAL = ROOT.joinpath(*TOKENIZER_FILE)
DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
SP = "\u2581"


@pytest.fixture(scope="module")
def real() -> tuple[LlamaBPE, Any]:
    return LlamaBPE.from_file(REAL), tokenizers.Tokenizer.from_file(str(REAL))


def oracle_ids(tok: Any, text: str) -> list[int]:
    return list(tok.encode(text, add_special_tokens=False).ids)


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_every_text_of_the_recall_datasets_gets_the_libraries_ids(
    real: tuple[LlamaBPE, Any],
) -> None:
    bpe, tok = real
    texts = [s for f in sorted(DATA.glob("*.json")) for s in strings(json.loads(f.read_text()))]
    assert len(texts) > 500
    for text in texts:
        assert bpe.encode(text) == oracle_ids(tok, text), text


EDGES = [
    "",
    " ",
    "   ",
    "a  b",
    "  lead",
    "trail  ",
    "x<s>y</s>z<unk>",
    "<s>",
    " <s> ",
    "<s><s>",
    "</s",
    "<unk",
    f"{SP}already{SP}marked {SP}{SP} {SP}",
    "tab\there\nnew\r\nline",
    "日本語 emoji 🎉 façade Ünïcode",
    "\x00\x01\x7f",
    "don't stop—it's “quoted”",
    "a" * 300,
    " " * 40,
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_texts_get_the_libraries_ids(real: tuple[LlamaBPE, Any], text: str) -> None:
    bpe, tok = real
    assert bpe.encode(text) == oracle_ids(tok, text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ▁<s/>unk\n\té日🎉\u00a0xyz.,'Q")), max_size=40))
def test_generated_texts_get_the_libraries_ids(text: str) -> None:
    bpe, tok = _shared_real()
    assert bpe.encode(text) == oracle_ids(tok, text)


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_any_unicode_text_gets_the_libraries_ids(text: str) -> None:
    bpe, tok = _shared_real()
    assert bpe.encode(text) == oracle_ids(tok, text)


_REAL: tuple[LlamaBPE, Any] | None = None


def _shared_real() -> tuple[LlamaBPE, Any]:
    global _REAL  # noqa: PLW0603 - hypothesis tests cannot take a module fixture
    if _REAL is None:
        _REAL = LlamaBPE.from_file(REAL), tokenizers.Tokenizer.from_file(str(REAL))
    return _REAL


def test_the_word_cache_is_bounded_and_changes_no_result(
    real: tuple[LlamaBPE, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    bpe, tok = real
    monkeypatch.setattr("persona_mind.embedding._bpe._CACHE_WORDS", 8)
    bpe._cache.clear()
    text = " ".join(f"word{i}" for i in range(50))
    assert bpe.encode(text) == oracle_ids(tok, text)
    assert len(bpe._cache) <= 8
    assert bpe.encode(text) == oracle_ids(tok, text)


# -- small files: unknown characters, partial byte fallback, one token made two ways ----------


def small_config(byte_tokens: str = "A") -> dict[str, Any]:
    tokens = ["<unk>", "<s>", "</s>", SP, "a", "b", "c", f"{SP}a", "ab", f"{SP}ab", "bc", "abc"]
    tokens += [f"<0x{ord(ch):02X}>" for ch in byte_tokens]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": t,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for i, t in enumerate(["<unk>", "<s>", "</s>"])
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": SP},
                {"type": "Replace", "pattern": {"String": " "}, "content": SP},
            ],
        },
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens)},
            # "▁ab" is made two ways, "abc" too: expired heap entries must be skipped as
            # tokenizers skips them
            "merges": [f"{SP} a", "b c", "a b", f"{SP}a b", f"{SP} ab", "ab c", "a bc"],
        },
    }


def _write(tmp_path: Path, config: dict[str, Any]) -> Path:
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abc ▁AxéZ<s/>unk")), max_size=30))
def test_a_small_vocabulary_gets_the_libraries_ids(text: str) -> None:
    """Unknown characters fuse into one ``<unk>``; ``A`` falls back to its byte token; ``é``
    has no byte tokens, so it is unknown too."""
    bpe, tok = _small()
    assert bpe.encode(text) == oracle_ids(tok, text)


_SMALL: tuple[LlamaBPE, Any] | None = None


def _small() -> tuple[LlamaBPE, Any]:
    global _SMALL  # noqa: PLW0603 - hypothesis tests cannot take a function fixture
    if _SMALL is None:
        text = json.dumps(small_config(), ensure_ascii=False)
        vocab, merges, specials, unk = _parts(small_config())
        _SMALL = LlamaBPE(vocab, merges, specials, unk), tokenizers.Tokenizer.from_str(text)
    return _SMALL


def _parts(config: dict[str, Any]) -> Any:
    from persona_mind.embedding._bpe import _check_config  # noqa: PLC0415

    return _check_config(config)


def test_a_small_file_reads_like_the_library(tmp_path: Path) -> None:
    path = _write(tmp_path, small_config())
    bpe, tok = LlamaBPE.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    for text in ["abc", " ab c", "xxAxx", "<s>abc</s>", "aé b"]:
        assert bpe.encode(text) == oracle_ids(tok, text)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda c: c.update(pre_tokenizer={"type": "Whitespace"}), "pre-tokenizer"),
        (lambda c: c["model"].update(byte_fallback=False), "byte-fallback"),
        (lambda c: c["model"].update(dropout=0.1), "byte-fallback"),
        (lambda c: c["normalizer"]["normalizers"].pop(), "normalizer"),
        (lambda c: c["model"]["vocab"].update({f"a{SP}": 99}), "boundary mark"),
        (lambda c: c["model"]["merges"].append("c c"), "out of the vocabulary"),
        (lambda c: c["model"]["merges"].append("a b c"), "not two tokens"),
        (lambda c: c["added_tokens"][0].update(lstrip=True), "plain special token"),
        (lambda c: c["added_tokens"][0].update(id=7), "not the vocabulary's"),
    ],
)
def test_a_file_in_another_shape_is_refused_by_name(tmp_path: Path, change: Any, why: str) -> None:
    config = copy.deepcopy(small_config())
    change(config)
    with pytest.raises(UnsupportedModelFile, match=why):
        LlamaBPE.from_file(_write(tmp_path, config))


# -- the stepwise JSON decode ---------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from([None, 0, 2]), st.integers(0, 4))
def test_decode_in_steps_equals_json_loads(value: Any, indent: int | None, depth: int) -> None:
    text = json.dumps(value, indent=indent)
    got = decode_in_steps(text, depth)
    assert got == value or (isinstance(value, float) and math.isclose(got, value))


@pytest.mark.parametrize(
    "text", ['{"a": 1', '{"a" 1}', "[1, 2", "[1 2]", '{"a": 1} x', "{1: 2}", "", '{"a": [1,]}']
)
def test_decode_in_steps_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        decode_in_steps(text)


def test_reading_in_slices_keeps_characters_split_across_slices(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    text = "é日🎉" * 200_000  # multi-byte characters straddle every 256 KiB slice boundary
    path.write_text(text, encoding="utf-8")
    assert read_text_in_slices(path) == text
    path.write_bytes(b"ok\xff")
    with pytest.raises(UnicodeDecodeError):
        read_text_in_slices(path)


# -- the weights and the encoder --------------------------------------------------------------


def test_the_table_is_wordllamas_bit_for_bit() -> None:
    ours = read_f16_table(ROOT.joinpath(*WEIGHTS_FILE), "embedding.weight", 128, rows=32000)
    model = wordllama.WordLlama.load(
        config="l2_supercat", dim=256, disable_download=True, cache_dir=ROOT
    )
    theirs = np.ascontiguousarray(model.embedding[:, :128], dtype=np.float32)
    assert ours.dtype == np.float32
    assert ours.flags.c_contiguous
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("damage", ["truncate", "dtype", "rows", "key"])
def test_a_weights_file_in_another_shape_is_refused(tmp_path: Path, damage: str) -> None:
    src = ROOT.joinpath(*WEIGHTS_FILE).read_bytes()
    n = int.from_bytes(src[:8], "little")
    header = json.loads(src[8 : 8 + n])
    rows, key = 32000, "embedding.weight"
    if damage == "truncate":
        data = src[: len(src) // 2]
    else:
        if damage == "dtype":
            header[key]["dtype"] = "F32"
        elif damage == "rows":
            rows = 31999
        else:
            key = "missing"
        raw = json.dumps(header).encode()
        data = len(raw).to_bytes(8, "little") + raw + src[8 + n :]
    path = tmp_path / "w.safetensors"
    path.write_bytes(data)
    with pytest.raises(UnsupportedModelFile):
        read_f16_table(path, key, 128, rows=rows)


def test_the_encoder_loaded_by_our_readers_equals_wordllamas() -> None:
    ours = WordLlamaEncoder.load()
    theirs = WordLlamaEncoder._load_with_wordllama(lambda: None)
    assert (ours.via, theirs.via) == ("persona-mind readers", "wordllama")
    texts = [s for f in sorted(DATA.glob("*.json")) for s in strings(json.loads(f.read_text()))]
    texts += EDGES
    assert np.array_equal(ours.encode(texts), theirs.encode(texts))
    for text in texts[:40]:  # the prompt path, one text at a time
        assert np.array_equal(ours.encode([text]), theirs.encode([text]))


def test_a_wheel_in_another_shape_loads_through_wordllama(tmp_path: Path) -> None:
    (tmp_path / "tokenizers").mkdir()
    config = json.loads(REAL.read_text(encoding="utf-8"))
    config["pre_tokenizer"] = {"type": "Whitespace"}
    tmp_path.joinpath(*TOKENIZER_FILE).write_text(json.dumps(config), encoding="utf-8")
    encoder = WordLlamaEncoder.load(root=tmp_path)
    assert encoder.via == "wordllama"
    assert np.array_equal(
        encoder.encode(["fallback path"]), WordLlamaEncoder.load().encode(["fallback path"])
    )


def test_a_missing_wheel_file_is_a_clear_unavailable(tmp_path: Path) -> None:
    from persona_mind.embedding import EmbeddingUnavailable  # noqa: PLC0415

    with pytest.raises(EmbeddingUnavailable, match="reinstall"):
        WordLlamaEncoder.load(root=tmp_path)


def test_loading_gives_the_gil_back_between_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The readers call their pause between slices: many short steps, not one long one."""
    pauses: list[float] = []
    monkeypatch.setattr(
        "persona_mind.embedding._encoder._yield_gil", lambda: pauses.append(time.perf_counter())
    )
    WordLlamaEncoder.load()
    assert len(pauses) >= 8 + 16  # 1.8 MB of tokenizer in 256 KiB slices, 16 MB of weights
