"""The BPE merge table of :mod:`persona_mind.embedding._bpe`, checked at load in slices.

Why a module of its own: the table's load is the one part of the tokenizer's that must give
the GIL back between steps (issue 24 item 6: its whole-list checks stalled the event loop
3-30 ms each while the model loaded between two turns), and ``_bpe`` is the encoder.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from persona_mind.embedding._errors import UnsupportedModelFile

__all__ = ("Merges",)

_MERGE_SLICE = 4096
"""Merges checked (and vocabulary ids keyed) per step of the load; see :class:`Merges`."""


class Merges:
    """The merge table, looked up by a pair of ids: ``(rank, merged id)`` or ``None``.

    Why not one dict of id pairs built at load: building it (61,249 merges, three vocabulary
    lookups each) was the largest part of the load a one-shot ``persona-mind memory recall``
    waits for.  Here the load only checks the merges (whole-list operations, in slices) and keys
    their ranks by the file's own ``"a b"`` strings; a pair is resolved on first use and
    kept, so a word's merges cost a few lookups once.  Same answers as the eager table: a
    later duplicate merge wins, and a merge whose parts or result are not in the vocabulary
    is refused at load (``UnsupportedModelFile``), not at use.
    """

    __slots__ = ("_rank", "_seen", "_tokens", "_vocab")

    def __init__(
        self, vocab: dict[str, int], keys: list[str], pause: Callable[[], object] = lambda: None
    ) -> None:
        """``pause`` runs between slices of :data:`_MERGE_SLICE` merges: each whole-list
        operation over the 61,249 merges (split, set, subset, dict) was one C call holding
        the GIL for 3-30 ms, so the loading thread stalled the event loop between turns.
        The checks run in the same order over the whole list (the first failing kind of
        check names the merge, as before)."""
        slices = [keys[at : at + _MERGE_SLICE] for at in range(0, len(keys), _MERGE_SLICE)]
        split: list[list[str]] = []
        for part in slices:
            parts = " ".join(part).split(" ")
            if len(parts) != 2 * len(part) or not all(" " in k for k in part):
                bad = next(k for k in keys if k.count(" ") != 1)
                raise UnsupportedModelFile(f"merge {bad!r} is not two tokens")
            split.append(parts)
            pause()
        known = vocab.keys()
        for part, parts in zip(slices, split, strict=True):
            if not known >= set(parts) or not known >= {k.replace(" ", "") for k in part}:
                bad = next(k for k in keys if not _in_vocab(vocab, k))
                a, b = bad.split(" ")
                raise UnsupportedModelFile(f"merge {a!r} {b!r} is out of the vocabulary")
            pause()
        del split
        tokens: dict[int, str] = {}
        pairs = zip(vocab.values(), vocab, strict=True)
        while chunk := list(itertools.islice(pairs, _MERGE_SLICE)):
            tokens.update(chunk)
            pause()
        if len(tokens) != len(vocab):
            raise UnsupportedModelFile("two vocabulary tokens share an id")
        rank: dict[str, int] = {}
        for at, part in zip(range(0, len(keys), _MERGE_SLICE), slices, strict=True):
            rank.update(zip(part, range(at, at + len(part)), strict=True))  # later ones win
            pause()
        self._rank = rank
        self._vocab = vocab
        self._tokens = tokens
        self._seen: dict[tuple[int, int], tuple[int, int] | None] = {}

    @classmethod
    def of_config(
        cls, vocab: dict[str, int], merges: Any, pause: Callable[[], object] = lambda: None
    ) -> Merges:
        """The file's ``merges``: ``"a b"`` strings or ``[a, b]`` pairs."""
        if not isinstance(merges, list):
            raise UnsupportedModelFile("the tokenizer has no merges list")
        if all(type(m) is str for m in merges):
            return cls(vocab, merges, pause)
        return cls.of_pairs(vocab, map(_pair, merges), pause)

    @classmethod
    def of_pairs(
        cls,
        vocab: dict[str, int],
        pairs: Iterable[tuple[str, str]],
        pause: Callable[[], object] = lambda: None,
    ) -> Merges:
        keys = []
        for a, b in pairs:
            if " " in a or " " in b:  # cannot be keyed "a b" (nor be a normalized token)
                raise UnsupportedModelFile(f"merge {a!r} {b!r} has a space in a token")
            keys.append(f"{a} {b}")
        return cls(vocab, keys, pause)

    def get(self, pair: tuple[int, int]) -> tuple[int, int] | None:
        """``(rank, merged id)`` of the merge joining ``pair``, or ``None``."""
        try:
            return self._seen[pair]
        except KeyError:
            pass
        a, b = self._tokens[pair[0]], self._tokens[pair[1]]
        rank = self._rank.get(f"{a} {b}")
        hit = None if rank is None else (rank, self._vocab[a + b])
        self._seen[pair] = hit
        return hit


def _in_vocab(vocab: dict[str, int], key: str) -> bool:
    a, b = key.split(" ")
    return a in vocab and b in vocab and a + b in vocab


def _pair(m: Any) -> tuple[str, str]:
    if isinstance(m, str) and m.count(" ") == 1:
        a, b = m.split(" ")
        return a, b
    if isinstance(m, Sequence) and len(m) == 2 and all(isinstance(x, str) for x in m):
        return m[0], m[1]
    raise UnsupportedModelFile(f"merge {m!r} is not two tokens")
