"""The derived-vector cache: one file beside each fact store, keyed by content identity.

Vectors are derived data.  The store of record is the fact file; this cache only saves
re-embedding, so it is never a reason to refuse a read and never read as truth:

* A record is ``key (16-byte BLAKE2b of the embedded text) + dim float32 + CRC-32`` of the
  two.  A record whose CRC does not match, a truncated tail, a foreign header (another
  model or dimension) or an unreadable file is ignored; the good records are kept and the
  file is rewritten from them (atomically: temporary file, fsync, rename) on the next add.
* New vectors are *appended* under an exclusive lock, without fsync: losing a tail on a
  crash only costs re-embedding it, and the CRC finds a torn record.  A remember therefore
  pays one small buffered append, not a second durable write.
* Rows whose fact left the store stay until the file holds twice the live rows, then the
  file is compacted to the live ones.
* A rewrite (the file's first write, a compaction, a repair) is fsync'd, so a bind on the
  event loop hands it to a writer (the edge's worker thread) with a snapshot of the records
  to write; appends that come while one is queued follow it there, in order.  A rewrite
  writes the records in the order the cache holds them (loaded, then added: deterministic
  for the same history) and in slices, never one GIL hold for the whole file (sorting and
  joining 19,000 records held it for 20-80 ms, a stall of the loop between turns).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import hashlib
import json
import logging
import os
import struct
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import portalocker

from persona_mind.embedding._encoder import Matrix

__all__ = ("MAGIC", "VectorFile", "content_key", "vectors_path")

log = logging.getLogger(__name__)

MAGIC = b"PMVEC1\n"
_CRC = struct.Struct("<I")
_KEY = 16
_SLICE = 256
"""Records a rewrite serialises and writes per call (~33 KiB at 128 dimensions)."""

Writer = Callable[[Callable[[], None]], "concurrent.futures.Future[None]"]
"""Runs a file write elsewhere, in submission order (the edge's worker's ``submit``)."""


def content_key(text: str) -> bytes:
    """Content identity of one embedded text (the key of its vector)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=_KEY).digest()


def vectors_path(store: Path, model_id: str) -> Path:
    """The cache file beside ``store`` (``facts.json`` → ``facts.json.<model>.vec``)."""
    return store.with_name(f"{store.name}.{model_id}.vec")


class VectorFile:
    """One cache file: load what is sound, append new vectors, rewrite when unsound."""

    def __init__(self, path: Path, model_id: str, dim: int) -> None:
        self.path = path
        self.model_id = model_id
        self.dim = dim
        self.vectors: dict[bytes, Matrix] = {}
        self.rewrite = False
        """True when the file on disk is not exactly the sound records (corrupt, foreign)."""
        self.dropped = 0
        """Records ignored at load (bad checksum or torn tail), for ``/mind doctor``."""
        self._queued: concurrent.futures.Future[None] | None = None
        """The last write handed to a ``writer`` (see :meth:`add`)."""
        self._record = _KEY + 4 * dim + _CRC.size
        self._header = MAGIC + json.dumps({"model": model_id, "dim": dim}).encode() + b"\n"

    def load(self) -> None:
        """Read the sound records; anything unsound marks the file for a rewrite."""
        self.vectors = {}
        self.dropped = 0
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            self.rewrite = True
            return
        except OSError as exc:
            log.warning("vector cache %s unreadable (%s); rebuilding it", self.path, exc)
            self.rewrite = True
            return
        if not data.startswith(self._header):
            log.warning("vector cache %s has a foreign or corrupt header; rebuilding", self.path)
            self.rewrite = True
            return
        body = memoryview(data)[len(self._header) :]
        size = self._record
        whole, tail = divmod(len(body), size)
        self.rewrite = bool(tail)
        self.dropped = int(bool(tail))
        for i in range(whole):
            rec = body[i * size : (i + 1) * size]
            payload = rec[: size - _CRC.size]
            (crc,) = _CRC.unpack(rec[size - _CRC.size :])
            if zlib.crc32(payload) != crc:
                self.dropped += 1
                self.rewrite = True
                continue
            vec = np.frombuffer(payload[_KEY:], dtype="<f4").astype(np.float32)
            if not np.all(np.isfinite(vec)):
                self.dropped += 1
                self.rewrite = True
                continue
            self.vectors[bytes(payload[:_KEY])] = vec
        if self.dropped:
            log.warning(
                "vector cache %s: %d unsound record(s) ignored; rebuilding", self.path, self.dropped
            )

    def _records(self, items: Iterable[tuple[bytes, Matrix]]) -> bytes:
        out = bytearray()
        for key, vec in items:
            payload = key + np.asarray(vec, dtype="<f4").tobytes()
            out += payload + _CRC.pack(zlib.crc32(payload))
        return bytes(out)

    def add(
        self,
        new: Mapping[bytes, Matrix],
        live: Iterable[bytes] | None = None,
        *,
        writer: Writer | None = None,
    ) -> None:
        """Keep ``new`` in memory and on disk (append, or rewrite when unsound/oversized).

        ``live`` (the keys the store holds now) lets the file drop rows of forgotten facts
        when it has grown to twice the live rows.  ``writer`` (a bind on the event loop):
        a rewrite, and any append while one is queued, is written there, not here.
        """
        self.vectors.update(new)
        if live is not None:
            keep = set(live)
            if len(self.vectors) > 2 * max(len(keep), 32):
                self.vectors = {k: v for k, v in self.vectors.items() if k in keep}
                self.rewrite = True
        queued = self._queued is not None and not self._queued.done()
        if writer is not None and (self.rewrite or (new and queued)):
            items = list(self.vectors.items())  # this thread's view, whoever writes it
            if self.rewrite:
                self.rewrite = False  # handed over: the writer marks it again if it fails
                job = functools.partial(self._saved, self._rewrite, items)
            else:
                job = functools.partial(self._saved, self._append, list(new.items()), items)
            self._queued = writer(job)
            return
        if self.rewrite:
            self.rewrite = False  # marked again by _saved if the write fails
            self._saved(self._rewrite, list(self.vectors.items()))
        elif new:
            self._saved(self._append, list(new.items()), None)

    def _saved(self, write: Callable[..., None], *args: object) -> None:
        try:
            write(*args)
        except OSError as exc:  # derived data: a failed save costs re-embedding, nothing else
            log.warning("vector cache %s not saved (%s); it will be rebuilt", self.path, exc)
            self.rewrite = True

    def _append(
        self,
        new: Sequence[tuple[bytes, Matrix]],
        items: Sequence[tuple[bytes, Matrix]] | None,
    ) -> None:
        """Append ``new``; a file removed under us restarts from every record (``items``,
        the snapshot of a queued write, else the cache as it is now)."""
        blob = self._records(new)
        with self.path.open("ab") as fh:
            portalocker.lock(fh, portalocker.LOCK_EX)
            try:
                if fh.tell() == 0:  # removed under us: start a fresh, sound file
                    whole = items if items is not None else list(self.vectors.items())
                    fh.write(self._header + self._records(whole))
                else:
                    fh.write(blob)
                fh.flush()
            finally:
                portalocker.unlock(fh)

    def _rewrite(self, items: Sequence[tuple[bytes, Matrix]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with tmp.open("wb") as fh:
                fh.write(self._header)
                for at in range(0, len(items), _SLICE):  # short holds: see the module doc
                    fh.write(self._records(items[at : at + _SLICE]))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    @property
    def queued(self) -> concurrent.futures.Future[None] | None:
        """The write handed to a ``writer`` that has not finished yet, if any."""
        job = self._queued
        return job if job is not None and not job.done() else None
