"""WordLlama's token table read straight from its ``.safetensors`` file, in slices.

Why not ``safetensors.safe_open``: it is one more import chain on the loading thread, and
the whole read plus the float16 → float32 cast of 32,000 × 256 values would be a few long
calls; here the file is read ~1 MiB at a time (``readinto`` releases the GIL) and cast a
block of rows at a time, so the event loop waits at most one short step.  The format is the
documented one: an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range, then the raw little-endian data.  The cast is exact (every
float16 is a float32), so the table is bit for bit what wordllama builds
(``np.ascontiguousarray(embedding.astype(np.float32))[:, :dim]``).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from persona_mind.embedding._encoder import Matrix
from persona_mind.embedding._errors import UnsupportedModelFile

__all__ = ("map_f16_table", "read_f16_table")

_SLICE = 1 << 20
_ROWS = 2048
_HEADER_MAX = 1 << 20

F16Table = npt.NDArray[Any]
"""A float16 table (a read-only view of the mapped file)."""


def _tensor(f: BinaryIO, path: Path, key: str, dim: int, rows: int | None) -> tuple[int, int, int]:
    """``(rows, columns, byte offset)`` of the float16 matrix ``key``, checked."""
    head = f.read(8)
    if len(head) != 8:
        raise UnsupportedModelFile(f"{path} is too short for a safetensors header")
    (length,) = struct.unpack("<Q", head)
    if length > _HEADER_MAX:
        raise UnsupportedModelFile(f"{path} declares a {length}-byte header")
    try:
        header = json.loads(f.read(length))
        spec = header[key]
        shape, dtype = spec["shape"], spec["dtype"]
        begin, end = spec["data_offsets"]
    except (ValueError, KeyError, TypeError) as exc:
        raise UnsupportedModelFile(f"{path} has no readable tensor {key!r}") from exc
    if (
        dtype != "F16"
        or len(shape) != 2
        or shape[1] < dim
        or (rows is not None and shape[0] != rows)
        or end - begin != shape[0] * shape[1] * 2
    ):
        raise UnsupportedModelFile(
            f"tensor {key!r} in {path} is {dtype} {shape}, not F16 [n, >={dim}]"
        )
    return shape[0], shape[1], 8 + length + begin


def map_f16_table(path: Path, key: str, dim: int, *, rows: int | None = None) -> F16Table:
    """The float16 matrix ``key`` (all its columns, at least ``dim``), mapped from the file.

    For a load that is waited for (a one-shot command): nothing is read or cast up front —
    the pages a lookup touches are read then — so the load costs the header's parse, not
    16 MB read and 8 M values cast.  The whole rows are kept, contiguous: a gather from a
    column slice would copy the table first.  The encoder takes the rows it needs, then
    their first ``dim`` columns, cast to float32 (exact), so its vectors are those of
    :func:`read_f16_table`'s table bit for bit.  A plain array over the map (not
    ``np.memmap``, whose per-call wrapping costs more than a gather).
    """
    with path.open("rb") as f:
        n, columns, offset = _tensor(f, path, key, dim, rows)
        if f.seek(0, 2) < offset + n * columns * 2:
            raise UnsupportedModelFile(f"{path} ends inside tensor {key!r}")
    table = np.memmap(path, dtype="<f2", mode="r", offset=offset, shape=(n, columns))
    return table.view(np.ndarray)


def read_f16_table(
    path: Path,
    key: str,
    dim: int,
    *,
    rows: int | None = None,
    pause: Callable[[], object] = lambda: None,
) -> Matrix:
    """The first ``dim`` columns of the float16 matrix ``key`` as contiguous float32."""
    with path.open("rb") as f:
        n, columns, offset = _tensor(f, path, key, dim, rows)
        shape = (n, columns)
        raw = np.empty(shape[0] * shape[1], dtype="<f2")
        view = raw.data.cast("B")
        f.seek(offset)
        done = 0
        while done < len(view):
            got = f.readinto(view[done : done + _SLICE])
            if not got:
                raise UnsupportedModelFile(f"{path} ends inside tensor {key!r}")
            done += got
            pause()
    table = raw.reshape(shape[0], shape[1])
    out = np.empty((shape[0], dim), dtype=np.float32)
    for start in range(0, shape[0], _ROWS):
        out[start : start + _ROWS] = table[start : start + _ROWS, :dim]
        pause()
    return out
