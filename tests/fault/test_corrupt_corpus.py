"""F6: the corrupt corpus — each bad file is refused on read (no write) and quarantined by
the next mutation, byte for byte, with a diagnostic; never read as an empty store (M-STORE-11).
"""

from __future__ import annotations

import collections
import os
import random
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.storage import (
    MAX_STORE_BYTES,
    CorruptStore,
    FileStore,
    StoreQuarantined,
    UnsupportedVersion,
    decode_snapshot,
    fingerprint,
)
from tests.fault._model import Item, appender, target_in

REASONS = {
    "empty",
    "truncated",
    "nul-bytes",
    "not-utf8",
    "invalid-json",
    "wrong-schema",
    "unknown-version",
    "newer-version",
}

VALID = (
    b'{"version":1,"sequence":3,"updatedAt":"2026-01-01T00:00:00.000Z",'
    b'"entries":[{"id":"a","pad":"p"}]}'
)

CORPUS: dict[str, tuple[bytes, str]] = {
    "empty": (b"", "empty"),
    "whitespace": (b"  \n", "empty"),
    "truncated": (VALID[:-7], "truncated"),
    "nul-bytes": (b"\x00" * 4096, "nul-bytes"),
    "nul-tail": (VALID[:40] + b"\x00" * 64, "nul-bytes"),
    "non-utf8-ff": (b'{"version":1,"sequence":1,"updatedAt":"\xff","entries":[]}', "not-utf8"),
    "overlong": (b'{"version":1,"sequence":1,"updatedAt":"\xc0\xaf","entries":[]}', "not-utf8"),
    "cesu": (b'{"version":1,"sequence":1,"updatedAt":"\xed\xa0\x80","entries":[]}', "not-utf8"),
    "utf16": ('{"version":1}'.encode("utf-16"), "nul-bytes"),
    "wrong-types": (
        b'{"version":1,"sequence":"3","updatedAt":"x","entries":[{"id":1}]}',
        "wrong-schema",
    ),
    "entries-null": (b'{"version":1,"sequence":3,"updatedAt":"x","entries":null}', "wrong-schema"),
    "unknown-field": (
        b'{"version":1,"sequence":3,"updatedAt":"x","entries":[],"extra":true}',
        "wrong-schema",
    ),
    "missing-field": (b'{"version":1,"sequence":3,"entries":[]}', "wrong-schema"),
    "negative-seq": (b'{"version":1,"sequence":-1,"updatedAt":"x","entries":[]}', "wrong-schema"),
    "unknown-version": (
        b'{"version":0,"sequence":3,"updatedAt":"x","entries":[]}',
        "unknown-version",
    ),
    "array": (b"[]", "wrong-schema"),
    "nan": (b'{"version":NaN,"sequence":3,"updatedAt":"x","entries":[]}', "invalid-json"),
    "trailing-garbage": (VALID + b"}garbage", "invalid-json"),
    "bom": (b"\xef\xbb\xbf" + VALID, "invalid-json"),
    "deep-nesting": (
        b'{"version":1,"sequence":1,"updatedAt":"x","entries":' + b"[" * 100_000 + b"]" * 100_000,
        "wrong-schema",
    ),
    "huge-int": (b'{"version":1' + b"0" * 10_000 + b',"sequence":1}', "wrong-schema"),
}


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.mark.parametrize("case", sorted(CORPUS))
def test_f6_corpus_refused_on_read_and_quarantined_on_write(tmp_path: Path, case: str) -> None:
    data, reason = CORPUS[case]
    target = target_in(tmp_path)
    _write(target.path, data)
    store = FileStore()
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(CorruptStore) as read_error:
        store.read(target)
    assert read_error.value.reason == reason
    assert sorted(os.listdir(tmp_path)) == before  # the read path wrote nothing
    with pytest.raises(CorruptStore) as write_error:
        store.mutate(target, appender("new"))
    moved = write_error.value.quarantined
    assert moved is not None
    assert moved.read_bytes() == data  # byte for byte
    diag = msgspec.json.decode(Path(f"{moved}.diagnostic.json").read_bytes())
    assert diag["reason"] == reason
    assert diag["sha256"] == fingerprint(data)
    assert not target.path.exists()  # the bad file is gone, not rewritten as empty
    quarantines = [n for n in os.listdir(tmp_path) if ".quarantine-" in n]
    assert len(quarantines) == 2  # the bytes and their diagnostic, exactly once
    # unresolved: neither read as empty nor written (issue 15 item 2)
    with pytest.raises(StoreQuarantined):
        store.read(target)
    with pytest.raises(StoreQuarantined):
        store.mutate(target, appender("fresh"))
    # the repair finds no valid copy, names the damaged one, and lets a fresh store start;
    # the old bytes stay in quarantine
    report = store.recover(target)
    assert report.restored_from is None
    assert [lost.copy for lost in report.lost] == [moved]
    assert moved.read_bytes() == data
    assert store.mutate(target, appender("fresh")).sequence == 1


def test_f6_every_truncation_offset_is_refused(tmp_path: Path) -> None:
    target = target_in(tmp_path)
    valid = FileStore().mutate(target, appender("a", pad=300))
    raw = target.path.read_bytes()
    store = FileStore()
    for offset in range(len(raw)):
        target.path.write_bytes(raw[:offset])
        with pytest.raises(CorruptStore):
            store.read(target)
    target.path.write_bytes(raw)
    assert store.read(target) == valid


def test_f6_oversized_17_mib_refused_by_fstat_and_quarantined(tmp_path: Path) -> None:
    target = target_in(tmp_path)
    with open(target.path, "wb") as fh:  # sparse: 17 MiB without writing them
        fh.truncate(17 * 1024 * 1024)
    assert os.path.getsize(target.path) > MAX_STORE_BYTES
    with pytest.raises(CorruptStore) as info:
        FileStore().read(target)
    assert info.value.reason == "oversized"
    with pytest.raises(CorruptStore) as info:
        FileStore().mutate(target, appender("x"))
    assert info.value.quarantined is not None
    assert os.path.getsize(info.value.quarantined) == 17 * 1024 * 1024
    assert Path(f"{info.value.quarantined}.diagnostic.json").exists()


def test_f6_cap_boundary(tmp_path: Path) -> None:
    """n-1, n, n+1 around a small cap: at the cap is read, above it refused."""
    target = target_in(tmp_path)
    data = FileStore().mutate_stored(target, appender("a")).size
    for cap, ok in ((data - 1, False), (data, True), (data + 1, True)):
        store = FileStore(max_bytes=cap)
        if ok:
            assert store.read(target) is not None
        else:
            with pytest.raises(CorruptStore, match="oversized"):
                store.read(target)


def test_f6_newer_version_is_refused_and_copied_not_moved(tmp_path: Path) -> None:
    target = target_in(tmp_path)
    newer = b'{"version":2,"sequence":9,"updatedAt":"x","entries":[],"future":1}'
    _write(target.path, newer)
    with pytest.raises(UnsupportedVersion):
        FileStore().read(target)
    for _ in range(2):
        with pytest.raises(UnsupportedVersion) as info:
            FileStore().mutate(target, appender("x"))
    assert target.path.read_bytes() == newer  # left for the newer runtime
    assert info.value.quarantined is not None
    assert info.value.quarantined.read_bytes() == newer
    assert len([n for n in os.listdir(tmp_path) if ".quarantine-" in n]) == 2  # copied once


@settings(max_examples=300, deadline=None, database=None)
@given(st.binary(max_size=512))
def test_f6_fuzz_any_bytes_decode_or_corrupt(data: bytes) -> None:
    """Arbitrary bytes never crash the codec: a valid snapshot or CorruptStore, nothing else."""
    reason = "decoded"
    try:
        decode_snapshot(Path("fuzz.json"), data, Item, 1)
    except CorruptStore as exc:
        reason = exc.reason
    assert reason in REASONS | {"decoded"}


def test_f6_seeded_bit_flips(tmp_path: Path) -> None:
    """1,000 single-bit flips of a valid file: each decodes (to a valid snapshot) or is
    classified CorruptStore."""
    target = target_in(tmp_path)
    FileStore().mutate(target, appender("a", pad=200))
    raw = target.path.read_bytes()
    rng = random.Random(6)
    classified: collections.Counter[str] = collections.Counter()
    for _ in range(1000):
        flipped = bytearray(raw)
        bit = rng.randrange(len(raw) * 8)
        flipped[bit // 8] ^= 1 << (bit % 8)
        try:
            decode_snapshot(target.path, bytes(flipped), Item, 1)
        except CorruptStore as exc:
            classified[exc.reason] += 1
        else:
            classified["decoded"] += 1
    assert sum(classified.values()) == 1000
    assert set(classified) <= REASONS | {"decoded"}


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()
    (path / "inside.json").write_bytes(VALID)


def _symlink_valid(path: Path) -> None:
    outside = path.with_name("outside-target")
    outside.write_bytes(VALID)
    path.symlink_to(outside)


def _symlink_dangling(path: Path) -> None:
    path.symlink_to(path.with_name("nowhere"))


NON_REGULAR = {
    "fifo": _fifo,
    "directory": _directory,
    "symlink-to-valid": _symlink_valid,
    "symlink-dangling": _symlink_dangling,
}


@pytest.mark.parametrize("case", sorted(NON_REGULAR))
def test_f6_non_regular_corpus_refused_without_blocking_and_moved_aside(
    tmp_path: Path, case: str
) -> None:
    """Issue 15 items 1 and 3: a FIFO, directory or symlink at a store path is refused as
    not-a-file by ``fstat`` on a non-blocking descriptor (a FIFO never hangs the read), and
    the next mutation moves the entry itself aside — never following it, never deleting it —
    and leaves the store quarantined until a repair."""
    target = target_in(tmp_path)
    NON_REGULAR[case](target.path)
    outside = {
        p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file() and not p.is_symlink()
    }
    store = FileStore()
    with pytest.raises(CorruptStore) as read_error:
        store.read(target)
    assert read_error.value.reason == "not-a-file"
    with pytest.raises(CorruptStore) as write_error:
        store.mutate(target, appender("new"))
    moved = write_error.value.quarantined
    assert moved is not None
    assert os.path.lexists(moved)
    assert not os.path.lexists(target.path)
    if case == "directory":
        assert (moved / "inside.json").read_bytes() == VALID
    for name, data in outside.items():  # a symlink's target is untouched
        assert (tmp_path / name).read_bytes() == data
    with pytest.raises(StoreQuarantined):
        store.read(target)
    report = store.recover(target)
    assert [lost.copy for lost in report.lost] == [moved]
    assert store.mutate(target, appender("fresh")).sequence == 1
