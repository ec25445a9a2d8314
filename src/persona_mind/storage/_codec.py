"""Strict typed snapshot decoding, canonical encoding and the raw-byte fingerprint.

Why strict: a store that decodes "mostly" is the start of silent data loss. Every file is
decoded into ``Snapshot[E]`` with unknown fields forbidden; anything else is classified
(empty, truncated, NUL bytes, non-UTF-8, invalid JSON, wrong schema, unknown version,
oversized) and raised as :class:`CorruptStore` — never returned as an empty store.

Why large files decode in slices (issue 15, item 9): msgspec decodes without releasing the
GIL, so one call on a 16 MiB store (~40 ms, more when a full garbage collection fires inside
it) stops every other thread — the sidecar's event loop included — for that long.
:func:`decode_snapshot` therefore decodes a canonical file above :data:`SLICE_MIN_BYTES` as
its header plus slices of about :data:`SLICE_BYTES` of entries, letting other threads run
between slices, with full collections held off (:mod:`persona_mind._quietgc`). The result is
the one-shot decode's, and so is every error: a slice that does not decode (a cut inside a
string or a nested value, or real corruption) sends the whole file to the one-shot decode,
which classifies it exactly as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from pathlib import Path
from typing import Any, TypeVar, cast

import msgspec

from persona_mind._quietgc import freeze_survivors, no_full_collections
from persona_mind.storage._errors import CorruptStore, UnsupportedVersion
from persona_mind.storage.port import Snapshot

__all__ = (
    "ABSENT_FINGERPRINT",
    "MAX_STORE_BYTES",
    "SLICE_BYTES",
    "SLICE_MIN_BYTES",
    "decode_snapshot",
    "encode_reusing",
    "encode_snapshot",
    "fingerprint",
    "fingerprint_of",
    "fingerprint_pieces",
)

E = TypeVar("E")

MAX_STORE_BYTES = 16 * 1024 * 1024
"""The size cap of one state file (16 MiB); larger files are refused by ``fstat``."""

ABSENT_FINGERPRINT = hashlib.sha256(b"").hexdigest()
"""The fingerprint of "no file": an empty file is always corrupt, so it never collides."""

SLICE_MIN_BYTES = 1024 * 1024
"""Files at least this large decode in slices (smaller ones take under ~3 ms in one call)."""

SLICE_BYTES = 256 * 1024
"""About 0.5–1 ms of msgspec decoding: the longest other threads wait on one slice."""

FREEZE_MIN_BYTES = 4 * 1024 * 1024
"""A sliced decode at least this large freezes what survives it (see ``_quietgc``)."""

_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}
_list_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}
_encoder = msgspec.json.Encoder()


class _Header(msgspec.Struct):
    version: int


def fingerprint(data: bytes) -> str:
    """SHA-256 of a file's raw bytes, hex (DEC-6)."""
    return hashlib.sha256(data).hexdigest()


def encode_snapshot(snapshot: Snapshot[Any]) -> bytes:
    """The canonical compact encoding every store file is written in."""
    return _encoder.encode(snapshot)


Pieces = tuple[tuple[Any, ...], list[bytes], bytes]
"""An entries tuple, the encoding of each entry (kept alive together: ids stay valid) and the
snapshot's header up to the entries' ``[``."""


def fingerprint_pieces(pieces: Pieces) -> str:
    """:func:`fingerprint` of the bytes :func:`encode_reusing` joined from ``pieces``,
    without keeping them joined (so a written store need not keep its bytes twice)."""
    _entries, parts, prefix = pieces
    # one transient join and one C-level hash beat an update() per entry by ~3x (issue 11:
    # the apply's CAS hashes the cached store); the joined bytes are dropped at once
    digest = hashlib.sha256(prefix)
    digest.update(b",".join(parts))
    digest.update(b"]}")
    return digest.hexdigest()


def encode_reusing(snapshot: Snapshot[Any], previous: Pieces | None) -> tuple[bytes, Pieces]:
    """:func:`encode_snapshot`'s exact bytes, reusing the encoding of every entry that is the
    very same object as one in ``previous`` (issue 10: a mutation that rotates one fact of a
    2 MiB store re-encodes one fact, not 2 MiB).

    Byte-identical by construction: msgspec encodes a value the same wherever it appears,
    and a snapshot is its header, the entries joined by commas, and ``]}``
    (``tests/storage/test_codec_reuse.py`` checks it against the one-shot encoding).
    """
    encode = _encoder.encode
    entries = snapshot.entries
    pieces: list[bytes | None]
    if previous is None:
        pieces = list(map(encode, entries))
    else:  # C-level passes: ~60 us for 2,000 entries, then one encode per new entry
        known = dict(zip(map(id, previous[0]), previous[1], strict=True))
        pieces = list(map(known.get, map(id, entries)))
        start = 0
        with contextlib.suppress(ValueError):
            while True:
                start = pieces.index(None, start)
                pieces[start] = encode(entries[start])
                start += 1
    done = cast("list[bytes]", pieces)
    head = _encoder.encode(
        Snapshot(
            version=snapshot.version,
            sequence=snapshot.sequence,
            updatedAt=snapshot.updatedAt,
            entries=(),
        )
    )
    prefix = head[:-2]
    if not done:
        return head, (entries, done, prefix)
    # one join, one copy of the body: the header and tail ride on the first and last piece
    parts = list(done)
    parts[0] = prefix + parts[0]
    parts[-1] = parts[-1] + b"]}"
    return b",".join(parts), (entries, done, prefix)


def fingerprint_of(snapshot: Snapshot[Any] | None) -> str:
    """The fingerprint of a snapshot as this engine writes it (``ABSENT_FINGERPRINT`` for None).

    Equal to the file's fingerprint for files written by persona-mind; a file written by
    hand in another formatting has a different fingerprint, so CAS refuses it (as it must:
    any external replacement invalidates a plan).
    """
    return ABSENT_FINGERPRINT if snapshot is None else fingerprint(encode_snapshot(snapshot))


def _decoder(entry_type: type[E]) -> msgspec.json.Decoder[Snapshot[E]]:
    dec = _decoders.get(entry_type)
    if dec is None:
        dec = _decoders[entry_type] = msgspec.json.Decoder(Snapshot[entry_type])  # type: ignore[valid-type]
    return dec


def _classify(data: bytes, error: Exception) -> tuple[str, str]:
    if not data.strip():
        return ("empty", f"{len(data)} bytes, no JSON value")
    if b"\x00" in data:
        offset = data.index(b"\x00")
        return ("nul-bytes", f"NUL byte at offset {offset} (a torn or unsynced write)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ("not-utf8", f"invalid UTF-8 at offset {exc.start}")
    message = str(error)
    if isinstance(error, msgspec.ValidationError):
        return ("wrong-schema", message)
    if "truncated" in message.lower():
        return ("truncated", message)
    return ("invalid-json", message)


def _list_decoder(entry_type: type[E]) -> msgspec.json.Decoder[list[E]]:
    dec = _list_decoders.get(entry_type)
    if dec is None:
        dec = _list_decoders[entry_type] = msgspec.json.Decoder(list[entry_type])  # type: ignore[valid-type]
    return dec


_ENTRIES_KEY = b'"entries":['


def _decode_sliced(data: bytes, entry_type: type[E], version: int) -> Snapshot[E] | None:
    """The one-shot decode's snapshot, built slice by slice; ``None`` when it cannot be.

    Exactness: the file must be the canonical header (re-encoded and compared byte for
    byte, so no duplicate key, escape or whitespace can hide in it), the entries, and
    ``]}``. The entries are cut only at ``},{`` and each slice must decode on its own as a
    JSON array of entries. A cut inside a string leaves that string unterminated and a cut
    inside a nested value leaves a bracket unclosed, so when every slice decodes, every cut
    was between two entries and the slices' concatenation is exactly the one-shot decode's
    entries. Anything else returns ``None`` (the caller decodes in one call).
    """
    start = data.find(_ENTRIES_KEY)
    if start < 0 or not data.endswith(b"]}"):
        return None
    body_start = start + len(_ENTRIES_KEY)
    body_end = len(data) - 2
    prefix = data[:body_start]
    try:
        header = _decoder(entry_type).decode(prefix + b"]}")
    except (msgspec.MsgspecError, RecursionError):
        return None
    if header.version != version or encode_snapshot(header)[:-2] != prefix:
        return None
    decode = _list_decoder(entry_type).decode
    view = memoryview(data)
    join = b"".join
    entries: list[E] = []
    at = body_start
    while at < body_end:
        cut = data.find(b"},{", at + SLICE_BYTES, body_end)
        stop = body_end if cut < 0 else cut + 1
        try:
            entries += decode(join((b"[", view[at:stop], b"]")))  # one copy per slice
        except (msgspec.MsgspecError, RecursionError):
            return None
        at = stop + 1  # past the comma
        time.sleep(0)  # let a thread waiting for the GIL (the event loop) take it now
    return Snapshot(
        version=header.version,
        sequence=header.sequence,
        updatedAt=header.updatedAt,
        entries=tuple(entries),
    )


def decode_snapshot(path: Path, data: bytes, entry_type: type[E], version: int) -> Snapshot[E]:
    """Decode one store file strictly or raise :class:`CorruptStore`/:class:`UnsupportedVersion`.

    A large canonical file decodes in slices (see the module doc); any other file, and any
    file a slice of which does not decode, in one call.
    """
    if len(data) >= SLICE_MIN_BYTES:
        with no_full_collections():
            sliced = _decode_sliced(data, entry_type, version)
            if sliced is not None and len(data) >= FREEZE_MIN_BYTES:
                freeze_survivors()  # the snapshot is long-lived: later collections skip it
        if sliced is not None:
            return _checked(path, sliced, version)
    try:
        snapshot = _decoder(entry_type).decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        if isinstance(exc, msgspec.ValidationError):
            try:
                header = msgspec.json.decode(data, type=_Header)
            except (msgspec.MsgspecError, RecursionError):
                header = None
            if header is not None and header.version > version:
                raise UnsupportedVersion(
                    path, "newer-version", f"schema version {header.version} > {version}"
                ) from exc
        reason, detail = _classify(data, exc)
        raise CorruptStore(path, reason, detail) from exc
    except RecursionError as exc:
        raise CorruptStore(path, "invalid-json", "nesting too deep to decode") from exc
    return _checked(path, snapshot, version)


def _checked(path: Path, snapshot: Snapshot[E], version: int) -> Snapshot[E]:
    if snapshot.version > version:
        raise UnsupportedVersion(
            path, "newer-version", f"schema version {snapshot.version} > {version}"
        )
    if snapshot.version != version:
        raise CorruptStore(
            path, "unknown-version", f"schema version {snapshot.version}, expected {version}"
        )
    if snapshot.sequence < 0:
        raise CorruptStore(path, "wrong-schema", f"negative sequence {snapshot.sequence}")
    return snapshot
