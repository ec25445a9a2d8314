"""The merge table's load gives the GIL back between slices (issue 24 item 6), with the
answers and the refusals of one whole-list pass."""

from __future__ import annotations

import pytest

from persona_mind.embedding._bpe_merges import _MERGE_SLICE, Merges
from persona_mind.embedding._errors import UnsupportedModelFile


def _table(n: int) -> tuple[dict[str, int], list[str]]:
    """``n`` merges ``a<i> b<i>`` into ``a<i>b<i>``, one duplicate at the end."""
    vocab: dict[str, int] = {}
    for i in range(n):
        for token in (f"a{i}", f"b{i}", f"a{i}b{i}"):
            vocab[token] = len(vocab)
    return vocab, [f"a{i} b{i}" for i in range(n)] + ["a0 b0"]


def test_the_load_pauses_between_slices_and_answers_as_one_pass() -> None:
    n = 3 * _MERGE_SLICE + 5
    vocab, keys = _table(n)
    pauses: list[int] = []
    table = Merges(vocab, keys, lambda: pauses.append(1))
    # four passes (split, vocabulary, ids, ranks), each in slices of _MERGE_SLICE
    assert len(pauses) >= 4 * (len(keys) // _MERGE_SLICE)
    assert table.get((vocab["a0"], vocab["b0"])) == (n, vocab["a0b0"])  # a later duplicate wins
    last = n - 1
    assert table.get((vocab[f"a{last}"], vocab[f"b{last}"])) == (last, vocab[f"a{last}b{last}"])
    assert table.get((vocab["a1"], vocab["b2"])) is None


def test_the_first_kind_of_bad_merge_is_named_whatever_slice_it_is_in() -> None:
    vocab, keys = _table(2 * _MERGE_SLICE)
    keys[3] = "a3 zz"  # out of the vocabulary, in the first slice
    keys[-1] = "a1b1"  # not two tokens, in the last slice: this check runs first
    with pytest.raises(UnsupportedModelFile, match="is not two tokens"):
        Merges(vocab, keys)
    keys[-1] = "a1 b1"
    with pytest.raises(UnsupportedModelFile, match="'a3' 'zz' is out of the vocabulary"):
        Merges(vocab, keys)
