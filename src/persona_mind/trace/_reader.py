"""Strict reading of a trace file: every line decoded, the first bad one raises.

A trace is evidence; reading a damaged one as "fewer events" would make the timeline
lie. So each non-blank line must decode to a :class:`TraceEvent` with the right types,
and the error names the file, the 1-based line number and what is wrong. Unknown
*fields* are tolerated so a newer writer does not break an older reader.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import msgspec

from persona_mind.trace._errors import TraceFileError, TraceLineError
from persona_mind.trace._schema import TraceEvent

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

__all__ = ("decode_line", "iter_lines", "iter_trace", "read_trace")

_DECODER = msgspec.json.Decoder(TraceEvent)

STDIN = "-"
"""The path that means "read the trace from standard input"."""


def decode_line(data: bytes, *, path: str = "<trace>", line: int = 1) -> TraceEvent:
    """Decode one JSON line into a :class:`TraceEvent`, or raise :class:`TraceLineError`."""
    try:
        event = _DECODER.decode(data)
    except msgspec.ValidationError as exc:
        raise TraceLineError(path, line, str(exc)) from None
    except msgspec.DecodeError as exc:
        raise TraceLineError(path, line, str(exc)) from None
    if event.v < 1:
        raise TraceLineError(path, line, f"schema version v={event.v} is invalid (must be >= 1)")
    return event


def iter_lines(lines: Iterable[bytes], *, path: str = "<trace>") -> Iterator[TraceEvent]:
    """Decode an iterable of raw lines; blank (whitespace-only) lines are skipped."""
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            yield decode_line(raw, path=path, line=number)


def iter_trace(path: str | Path) -> Iterator[TraceEvent]:
    """Stream the events of the trace at ``path`` (``"-"`` reads standard input).

    Lazily decodes so a large trace is never held as raw text; raises
    :class:`TraceFileError` if the file cannot be read and :class:`TraceLineError`
    at the first malformed line.
    """
    name = str(path)
    if name == STDIN:
        yield from iter_lines(sys.stdin.buffer, path="<stdin>")
        return
    try:
        handle = open(name, "rb")  # noqa: SIM115 - closed by the with below; open errors classified here
    except FileNotFoundError:
        raise TraceFileError(name, "no such file") from None
    except IsADirectoryError:
        raise TraceFileError(name, "it is a directory, not a file") from None
    except PermissionError:
        raise TraceFileError(name, "permission denied") from None
    except OSError as exc:
        raise TraceFileError(name, exc.strerror or str(exc)) from None
    with handle:
        try:
            yield from iter_lines(handle, path=name)
        except OSError as exc:
            raise TraceFileError(name, exc.strerror or str(exc)) from None


def read_trace(path: str | Path) -> list[TraceEvent]:
    """Read every event of the trace at ``path``; all-or-error (see :func:`iter_trace`)."""
    return list(iter_trace(path))
