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

import numpy as np

from persona_mind.embedding._encoder import Matrix
from persona_mind.embedding._errors import UnsupportedModelFile

__all__ = ("read_f16_table",)

_SLICE = 1 << 20
_ROWS = 2048
_HEADER_MAX = 1 << 20


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
        raw = np.empty(shape[0] * shape[1], dtype="<f2")
        view = raw.data.cast("B")
        f.seek(8 + length + begin)
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
