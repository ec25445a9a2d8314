"""Issue 15, item 9: large stores decode in slices, with exactly the one-shot decode's result.

A slice boundary is only ever a ``},{`` between two entries; a cut inside a string or a
nested value makes that slice undecodable and the file goes to the one-shot decode, so every
corrupt file is classified exactly as before and never read as empty.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.storage import (
    CorruptStore,
    FileStore,
    Snapshot,
    StoreTarget,
    UnsupportedVersion,
    _codec,
)
from persona_mind.storage._codec import decode_snapshot, encode_snapshot

STAMP = "2026-12-01T00:00:00.000Z"


class Part(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    n: int


class Row(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Entries with strings and nested objects: both can hold a ``},{`` that is no cut."""

    id: str
    text: str = ""
    tags: tuple[str, ...] = ()
    parts: tuple[Part, ...] = ()
    score: float = 0.0


NASTY = st.text(alphabet=st.sampled_from(list('ab },{"\\[]:é\u2028\x7f')), max_size=24)
TEXT = st.one_of(NASTY, st.text(max_size=24))
rows = st.builds(
    Row,
    id=TEXT,
    text=TEXT,
    tags=st.lists(TEXT, max_size=3).map(tuple),
    parts=st.lists(st.builds(Part, name=TEXT, n=st.integers()), max_size=3).map(tuple),
    score=st.floats(allow_nan=False, allow_infinity=False),
)
flat_rows = st.builds(
    Row,
    id=st.text(max_size=12),
    text=st.text(max_size=40).filter(lambda t: "},{" not in t),
    tags=st.lists(st.text(max_size=8), max_size=3).map(tuple),
)


def _snap(entries: tuple[Row, ...], *, version: int = 1, seq: int = 3) -> Snapshot[Row]:
    return Snapshot(version=version, sequence=seq, updatedAt=STAMP, entries=entries)


@contextmanager
def slicing(every: int, *, from_bytes: int = 0) -> Iterator[None]:
    """Slice even tiny files (hypothesis examples are bytes, not megabytes)."""
    saved = _codec.SLICE_MIN_BYTES, _codec.SLICE_BYTES
    _codec.SLICE_MIN_BYTES, _codec.SLICE_BYTES = from_bytes, every
    try:
        yield
    finally:
        _codec.SLICE_MIN_BYTES, _codec.SLICE_BYTES = saved


def _one_shot(data: bytes) -> Snapshot[Row]:
    return msgspec.json.decode(data, type=Snapshot[Row])


@settings(max_examples=300, deadline=None, database=None)
@given(entries=st.lists(rows, max_size=30), every=st.integers(1, 300))
def test_sliced_decode_equals_one_shot_decode(entries: list[Row], every: int) -> None:
    snap = _snap(tuple(entries))
    data = encode_snapshot(snap)
    with slicing(every):
        got = decode_snapshot(Path("s.json"), data, Row, 1)
        sliced = _codec._decode_sliced(data, Row, 1)
    assert got == _one_shot(data) == snap
    assert sliced is None or sliced == snap  # a slice result is never a different store


@settings(max_examples=200, deadline=None, database=None)
@given(entries=st.lists(flat_rows, min_size=1, max_size=30), every=st.integers(1, 300))
def test_flat_entries_really_take_the_sliced_path(entries: list[Row], every: int) -> None:
    snap = _snap(tuple(entries))
    with slicing(every):
        assert _codec._decode_sliced(encode_snapshot(snap), Row, 1) == snap


def test_cuts_inside_strings_and_nested_objects_fall_back_to_one_shot() -> None:
    trap = Row(id="a", text='x},{"id":"forged"}', parts=(Part("p", 1), Part("q", 2)))
    snap = _snap((trap, Row(id="b"), trap))
    data = encode_snapshot(snap)
    with slicing(1):
        assert _codec._decode_sliced(data, Row, 1) is None  # no forged or split entry
        assert decode_snapshot(Path("s.json"), data, Row, 1) == snap


def test_non_canonical_files_decode_in_one_call() -> None:
    snap = _snap((Row(id="a"), Row(id="b")))
    pretty = msgspec.json.format(encode_snapshot(snap), indent=2)
    dup_key = b'{"version":1,"entries":[{"id":"x"}],' + encode_snapshot(snap)[1:]
    with slicing(1):
        assert _codec._decode_sliced(pretty, Row, 1) is None
        assert decode_snapshot(Path("s.json"), pretty, Row, 1) == snap
        assert _codec._decode_sliced(dup_key, Row, 1) is None
        assert decode_snapshot(Path("s.json"), dup_key, Row, 1) == _one_shot(dup_key)


def test_slices_let_other_threads_run_between_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each slice ends with a GIL release, and full collections are held off meanwhile."""
    seen: list[tuple[int, int, int]] = []
    pause = SimpleNamespace(sleep=lambda _s: seen.append(gc.get_threshold()))
    monkeypatch.setattr(_codec, "time", pause)
    before = gc.get_threshold()
    snap = _snap(tuple(Row(id=f"r{i}", text="t" * 50) for i in range(40)))
    data = encode_snapshot(snap)
    with slicing(256):
        assert decode_snapshot(Path("s.json"), data, Row, 1) == snap
    assert len(seen) >= len(data) // (2 * 256) > 1  # a slice is 256 bytes plus one entry
    assert all(t[:2] == before[:2] and t[2] > 1_000_000 for t in seen)
    assert gc.get_threshold() == before


# ------------------------------------------------------------------ real files, real size


def _big_rows(n: int = 6_000) -> tuple[Row, ...]:
    return tuple(
        Row(id=f"m_{i:06d}", text=f"fact {i} " + "lorem ipsum " * 16, tags=(f"t{i % 7}",))
        for i in range(n)
    )


@pytest.fixture
def big(tmp_path: Path) -> tuple[FileStore, StoreTarget[Row], bytes]:
    """A store written by the real engine, large enough to be sliced by default."""
    store = FileStore(None, wall=lambda: 1_700_000_000.0, lock_timeout=2.0)
    target = StoreTarget(path=tmp_path / "big.json", entry_type=Row)
    store.mutate(target, lambda _old: _big_rows())
    data = target.path.read_bytes()
    assert len(data) >= _codec.SLICE_MIN_BYTES  # the default path, nothing patched
    return store, target, data


def test_a_large_engine_written_store_reads_sliced_with_its_checksum(
    big: tuple[FileStore, StoreTarget[Row], bytes],
) -> None:
    _store, target, data = big
    assert _codec._decode_sliced(data, Row, 1) is not None
    fresh = FileStore(None, lock_timeout=2.0)  # no cached decode: it reads the file
    stored = fresh.read_stored(target)
    assert stored is not None
    assert stored.snapshot.entries == _big_rows()
    assert stored.fingerprint == hashlib.sha256(data).hexdigest()


def _splice(data: bytes, at: float, old: bytes, new: bytes) -> bytes:
    """Replace the first ``old`` after the fraction ``at`` of the file (a later slice)."""
    i = data.index(old, int(len(data) * at))
    return data[:i] + new + data[i + len(old) :]


CORRUPTIONS: dict[str, Callable[[bytes], bytes]] = {
    "nul-bytes": lambda d: _splice(d, 0.8, b"lorem", b"lo\x00em"),
    "not-utf8": lambda d: _splice(d, 0.8, b"lorem", b"lo\xffem"),
    "truncated": lambda d: d[: int(len(d) * 0.7)],
    "wrong-schema": lambda d: _splice(d, 0.8, b'"tags":["t', b'"tags":[7,"t'),
    "invalid-json": lambda d: _splice(d, 0.8, b"},{", b"},,{"),
    "unknown-field": lambda d: _splice(d, 0.8, b'"text":', b'"texx":'),
}


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_a_corrupt_later_slice_is_corrupt_store_classified_as_one_shot(
    kind: str, big: tuple[FileStore, StoreTarget[Row], bytes]
) -> None:
    _store, target, data = big
    bad = CORRUPTIONS[kind](data)
    target.path.write_bytes(bad)
    with pytest.raises(CorruptStore) as sliced_error:
        FileStore(None, lock_timeout=2.0).read(target)  # never None, never empty
    with slicing(1, from_bytes=1 << 40), pytest.raises(CorruptStore) as one_shot_error:
        decode_snapshot(target.path, bad, Row, 1)  # slicing off: the historical decode
    assert (sliced_error.value.reason, sliced_error.value.detail) == (
        one_shot_error.value.reason,
        one_shot_error.value.detail,
    )
    if kind in {"nul-bytes", "not-utf8", "truncated", "wrong-schema", "invalid-json"}:
        assert sliced_error.value.reason == kind


def test_versions_are_refused_as_in_one_shot(
    big: tuple[FileStore, StoreTarget[Row], bytes],
) -> None:
    _store, target, data = big
    newer = data.replace(b'{"version":1,', b'{"version":2,', 1)
    with pytest.raises(UnsupportedVersion):
        decode_snapshot(target.path, newer, Row, 1)
    older = data.replace(b'{"version":1,', b'{"version":0,', 1)
    with pytest.raises(CorruptStore) as err:
        decode_snapshot(target.path, older, Row, 1)
    assert err.value.reason == "unknown-version"
    negative = data.replace(b'"sequence":1,', b'"sequence":-1,', 1)
    with pytest.raises(CorruptStore) as err:
        decode_snapshot(target.path, negative, Row, 1)
    assert err.value.reason == "wrong-schema"


def _outcome(data: bytes) -> object:
    """What decoding ``data`` gives: the snapshot, or the error's kind, reason and detail."""
    try:
        return decode_snapshot(Path("s.json"), data, Row, 1)
    except (CorruptStore, UnsupportedVersion) as exc:
        return (type(exc).__name__, exc.reason, exc.detail)


EDITS = st.sampled_from([b"", b"},{", b"}", b"{", b",", b'"', b"\\", b"\x00", b"\xff", b"]}", b"1"])


@settings(max_examples=250, deadline=None, database=None)
@given(
    entries=st.lists(rows, min_size=1, max_size=12),
    every=st.integers(1, 120),
    at=st.floats(0.0, 1.0),
    cut=st.integers(0, 4),
    insert=EDITS,
)
def test_any_edit_decodes_or_fails_exactly_as_the_one_shot_decode(
    entries: list[Row], every: int, at: float, cut: int, insert: bytes
) -> None:
    """Differential: a damaged file gives the same snapshot or the same error either way."""
    data = encode_snapshot(_snap(tuple(entries)))
    i = int(at * len(data))
    damaged = data[:i] + insert + data[i + cut :]
    with slicing(every):
        sliced = _outcome(damaged)
    with slicing(1, from_bytes=1 << 40):
        one_shot = _outcome(damaged)
    assert sliced == one_shot
