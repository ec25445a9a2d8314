"""Issue 10: re-encoding a store reuses the encoding of unchanged entries, byte-identically."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.storage import Snapshot
from persona_mind.storage._codec import (
    encode_reusing,
    encode_snapshot,
    fingerprint,
    fingerprint_pieces,
)
from tests.storage.conftest import Fact

facts = st.builds(Fact, id=st.text(max_size=12), text=st.text(max_size=40))


def _snap(entries: tuple[object, ...], seq: int = 1) -> Snapshot[object]:
    return Snapshot(version=1, sequence=seq, updatedAt="2026-12-01T00:00:00.000Z", entries=entries)


@settings(max_examples=200, deadline=None, database=None)
@given(
    old=st.lists(facts, max_size=12),
    added=st.lists(facts, max_size=4),
    keep=st.lists(st.booleans(), max_size=12),
)
def test_reused_encoding_is_byte_identical(
    old: list[Fact], added: list[Fact], keep: list[bool]
) -> None:
    first, pieces = encode_reusing(_snap(tuple(old)), None)
    assert first == encode_snapshot(_snap(tuple(old)))
    kept = [f for f, k in zip(old, keep + [True] * len(old), strict=False) if k]
    new = tuple(kept[::-1] + added)  # reordered, some dropped, some new
    data, new_pieces = encode_reusing(_snap(new, 2), pieces)
    assert data == encode_snapshot(_snap(new, 2))
    assert fingerprint_pieces(new_pieces) == fingerprint(data)


def test_raw_entries_and_unchanged_objects_reuse_their_bytes() -> None:
    raw = (msgspec.Raw(b'{"id":"a"}'), msgspec.Raw(b'{"id":"b","x":[1,2]}'))
    data, pieces = encode_reusing(_snap(raw), None)
    assert data == encode_snapshot(_snap(raw))
    again, again_pieces = encode_reusing(_snap(raw[1:], 2), pieces)
    assert again == encode_snapshot(_snap(raw[1:], 2))
    assert again_pieces[1][0] is pieces[1][1]  # the very bytes object, not a re-encode
