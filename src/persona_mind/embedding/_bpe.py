"""WordLlama's tokenizer in Python: the Llama-2 BPE read from the wheel's ``tokenizer.json``.

Why not ``tokenizers.Tokenizer.from_file``: it parses the 1.8 MB file and builds its tables
in one Rust call that holds the GIL for 45–70 ms (and ``json.loads`` or ``msgspec`` of the
same file hold it for 20–30 ms), which lands on the event loop as a ping that waits as long
(issue 15 item 9; ``docs/bridge.md``, "The remaining GIL stalls").  Here the file is read in
slices and parsed one element at a time (:func:`_decode_in_steps`), so the loading thread
gives the GIL back at every switch interval; loading also needs neither wordllama's imports
(pydantic, safetensors) nor the tokenizers extension.

What is implemented is exactly the configuration the wheel ships, checked field by field
before use (:func:`_check_config`; anything else raises :class:`UnsupportedModelFile` and the
encoder loads through wordllama and the ``tokenizers`` library instead):

* special tokens that are not normalized (``<unk>``, ``<s>``, ``</s>``) are cut out of the
  raw text first, leftmost-longest, and stand for their own ids;
* every other piece is normalized: ``▁`` prepended to a non-empty piece, each space
  replaced by ``▁``; there is no pre-tokenizer, so the piece is one BPE word;
* BPE as ``tokenizers`` runs it (``models/bpe/word.rs``, ``merge_all``): a min-heap of
  (rank, position) over adjacent pairs, stale entries skipped by the same two checks; a
  character missing from the vocabulary becomes its UTF-8 bytes' ``<0xXX>`` tokens (byte
  fallback), else ``<unk>`` (fused).

One more check makes the encoder fast: no vocabulary token has a ``▁`` right after another
character, so no merge can join the end of one word to the ``▁`` that starts the next, and
a piece can be split before each such ``▁`` and its words encoded (and cached) one by one
with the same result as the whole piece.  ``tests/mind/test_bpe.py`` compares the ids with
the ``tokenizers`` library on every text of the recall datasets and on generated text.
"""

from __future__ import annotations

import codecs
import heapq
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgspec

from persona_mind.embedding._bpe_merges import Merges
from persona_mind.embedding._errors import UnsupportedModelFile

__all__ = ("LlamaBPE", "decode_in_steps", "read_text_in_slices")

_SPACE = "\u2581"  # ▁, SentencePiece's word-boundary mark
_WORDS = re.compile(f"{_SPACE}+[^{_SPACE}]*|[^{_SPACE}]+")
_AFTER_CHAR = re.compile(f"[^{_SPACE}]{_SPACE}")
_WS = re.compile(r"[ \t\n\r]*")
_READ_SLICE = 256 * 1024
_CACHE_WORDS = 65_536
"""Words whose ids are kept (a dict cleared when full): a prompt's words are mostly known,
so a turn's tokenization is a few dictionary lookups."""

_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": _SPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": _SPACE},
    ],
}


def decode_in_steps(text: str, depth: int = 3) -> Any:
    """``json.loads(text)``, but containers nested less than ``depth`` deep are parsed
    element by element, so no single C call holds the GIL for the whole document."""
    decoder = json.JSONDecoder()
    try:
        value, end = _value(decoder, text, _WS.match(text, 0).end(), depth)  # type: ignore[union-attr]
        end = _WS.match(text, end).end()  # type: ignore[union-attr]
    except IndexError as exc:
        raise ValueError("unexpected end of JSON input") from exc
    if end != len(text):
        raise ValueError(f"extra data at character {end}")
    return value


def _value(decoder: json.JSONDecoder, s: str, i: int, depth: int) -> tuple[Any, int]:
    if depth > 0 and s[i] == "{":
        obj: dict[str, Any] = {}
        i = _skip(s, i + 1)
        if s[i] == "}":
            return obj, i + 1
        while True:
            if s[i] != '"':
                raise ValueError(f"expected a key at character {i}")
            key, i = decoder.raw_decode(s, i)
            i = _skip(s, i)
            if s[i] != ":":
                raise ValueError(f"expected ':' at character {i}")
            obj[key], i = _value(decoder, s, _skip(s, i + 1), depth - 1)
            i = _skip(s, i)
            if s[i] == "}":
                return obj, i + 1
            if s[i] != ",":
                raise ValueError(f"expected ',' or '}}' at character {i}")
            i = _skip(s, i + 1)
    if depth > 0 and s[i] == "[":
        arr: list[Any] = []
        i = _skip(s, i + 1)
        if s[i] == "]":
            return arr, i + 1
        while True:
            item, i = _value(decoder, s, i, depth - 1)
            arr.append(item)
            i = _skip(s, i)
            if s[i] == "]":
                return arr, i + 1
            if s[i] != ",":
                raise ValueError(f"expected ',' or ']' at character {i}")
            i = _skip(s, i + 1)
    return decoder.raw_decode(s, i)


def _skip(s: str, i: int) -> int:
    return _WS.match(s, i).end()  # type: ignore[union-attr]


def read_text_in_slices(path: Path, pause: Callable[[], object] = lambda: None) -> str:
    """A UTF-8 file's text, read and decoded ~256 KiB at a time (``pause`` between)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts = []
    with path.open("rb") as f:
        while chunk := f.read(_READ_SLICE):
            parts.append(decoder.decode(chunk))
            pause()
    parts.append(decoder.decode(b"", final=True))
    return "".join(parts)


class LlamaBPE:
    """Text to token ids, as ``Tokenizer.encode(text, add_special_tokens=False).ids``."""

    def __init__(
        self,
        vocab: dict[str, int],
        merges: Iterable[tuple[str, str]] | Merges,
        specials: dict[str, int],
        unk: str,
    ) -> None:
        self.vocab = vocab
        self._merges = merges if isinstance(merges, Merges) else Merges.of_pairs(vocab, merges)
        if unk not in vocab:
            raise UnsupportedModelFile(f"the unknown token {unk!r} is not in the vocabulary")
        self._unk = vocab[unk]
        self._bytes = [vocab.get(f"<0x{b:02X}>") for b in range(256)]
        self._specials = specials
        by_length = sorted(specials, key=len, reverse=True)  # leftmost, then longest
        self._split = re.compile("|".join(map(re.escape, by_length))) if specials else None
        self._cache: dict[str, tuple[int, ...]] = {}

    @classmethod
    def from_file(
        cls, path: Path, pause: Callable[[], object] = lambda: None, *, stepwise: bool = True
    ) -> LlamaBPE:
        """Read a ``tokenizer.json`` in steps; :class:`UnsupportedModelFile` if it is not
        the configuration implemented here, ``OSError``/``ValueError`` if unreadable.

        ``stepwise=False`` parses it in one call (~8× faster, one ~50 ms GIL hold): for a
        load nothing else waits on, a one-shot command's."""
        if stepwise:
            config = decode_in_steps(read_text_in_slices(path, pause))
        else:  # msgspec decodes the bytes: no separate UTF-8 decode of the 1.8 MB text
            config = msgspec.json.decode(path.read_bytes())
        vocab, merges, specials, unk = _check_config(config, pause)
        pause()
        return cls(vocab, merges, specials, unk)

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (no special tokens added)."""
        ids: list[int] = []
        if self._split is None:
            self._piece(text, ids)
            return ids
        start = 0
        for match in self._split.finditer(text):
            self._piece(text[start : match.start()], ids)
            ids.append(self._specials[match.group()])
            start = match.end()
        self._piece(text[start:], ids)
        return ids

    def _piece(self, text: str, ids: list[int]) -> None:
        if not text:
            return
        cache = self._cache
        for word in _WORDS.findall(_SPACE + text.replace(" ", _SPACE)):
            got = cache.get(word)
            if got is None:
                got = self._word(word)
                if len(cache) >= _CACHE_WORDS:
                    cache.clear()
                cache[word] = got
            ids.extend(got)

    def _word(self, word: str) -> tuple[int, ...]:
        """One word's ids: symbols (with byte fallback and fused unknowns), then merges."""
        vocab, syms = self.vocab, []
        pending = False  # an <unk> not yet added: runs of unknown characters fuse into one
        for ch in word:
            sid = vocab.get(ch)
            if sid is not None:
                if pending:
                    syms.append(self._unk)
                    pending = False
                syms.append(sid)
                continue
            fallback = [self._bytes[b] for b in ch.encode("utf-8")]
            if None in fallback:
                pending = True
            else:  # as tokenizers does: a pending <unk> is added after these bytes
                syms.extend(fallback)  # type: ignore[arg-type]
        if pending:
            syms.append(self._unk)
        return tuple(_merge_all(syms, self._merges))


def _merge_all(syms: list[int], merges: Merges) -> list[int]:
    """``Word::merge_all`` of ``tokenizers`` (no dropout), on a doubly linked list."""
    n = len(syms)
    if n < 2:
        return syms
    prev = list(range(-1, n - 1))
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    alive = [True] * n
    queue = []
    for pos in range(n - 1):
        hit = merges.get((syms[pos], syms[pos + 1]))
        if hit is not None:
            queue.append((hit[0], pos, hit[1]))
    heapq.heapify(queue)
    while queue:
        _, pos, new_id = heapq.heappop(queue)
        if not alive[pos] or nxt[pos] == -1:
            continue
        right = nxt[pos]
        hit = merges.get((syms[pos], syms[right]))
        if hit is None or hit[1] != new_id:
            continue  # an expired entry
        syms[pos] = new_id
        alive[right] = False
        nxt[pos] = nxt[right]
        if nxt[pos] != -1:
            prev[nxt[pos]] = pos
        if prev[pos] >= 0:
            hit = merges.get((syms[prev[pos]], new_id))
            if hit is not None:
                heapq.heappush(queue, (hit[0], prev[pos], hit[1]))
        if nxt[pos] != -1:
            hit = merges.get((new_id, syms[nxt[pos]]))
            if hit is not None:
                heapq.heappush(queue, (hit[0], pos, hit[1]))
    return [s for s, live in zip(syms, alive, strict=True) if live]


def _check_config(
    config: Any, pause: Callable[[], object] = lambda: None
) -> tuple[dict[str, int], Merges, dict[str, int], str]:
    """The vocabulary, merges, special tokens and unknown token of a supported file
    (``pause`` between the slices of the merge table's checks, see :class:`Merges`)."""
    if not isinstance(config, dict):
        raise UnsupportedModelFile("the tokenizer file is not a JSON object")
    model = config.get("model")
    expected_model = {
        "type": "BPE",
        "dropout": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": True,
        "byte_fallback": True,
        "ignore_merges": False,
    }
    if not isinstance(model, dict) or any(
        model.get(k, None if k != "ignore_merges" else False) != v
        for k, v in expected_model.items()
    ):
        raise UnsupportedModelFile(
            "the tokenizer model is not the byte-fallback BPE implemented here"
        )
    if config.get("normalizer") != _NORMALIZER or config.get("pre_tokenizer") is not None:
        raise UnsupportedModelFile("the tokenizer's normalizer or pre-tokenizer differs")
    vocab, unk = model.get("vocab"), model.get("unk_token")
    if not isinstance(vocab, dict) or not isinstance(unk, str):
        raise UnsupportedModelFile("the tokenizer has no vocabulary or unknown token")
    if not all(isinstance(v, int) for v in vocab.values()):
        raise UnsupportedModelFile("a vocabulary id is not an integer")
    if any(_AFTER_CHAR.search(token) for token in vocab):
        raise UnsupportedModelFile("a token joins a word to the next one's boundary mark")
    specials: dict[str, int] = {}
    for added in config.get("added_tokens") or ():
        plain = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
        if not isinstance(added, dict) or any(added.get(k) != v for k, v in plain.items()):
            raise UnsupportedModelFile("an added token is not a plain special token")
        content, ident = added.get("content"), added.get("id")
        if not isinstance(content, str) or not content or vocab.get(content) != ident:
            raise UnsupportedModelFile(f"added token {content!r} is not the vocabulary's")
        specials[content] = vocab[content]
    return vocab, Merges.of_config(vocab, model.get("merges"), pause), specials, unk
