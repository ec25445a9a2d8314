"""A line cap on the MCP server's stdin, in front of the SDK's stdio transport.

The SDK's stdio reader buffers each line whole before parsing it, so one 50 MB line took the
server to 400 MB. Here stdin is read in chunks of :data:`_CHUNK` bytes and split into lines
by :class:`BoundedLines`; a line longer than :data:`MAX_LINE` is dropped chunk by chunk as
it streams in (never held whole) and answered with a JSON-RPC ``-32600`` error, and the next
line is served as usual. The error carries the request's ``id`` when the line's first bytes
name it as the first member (after ``"jsonrpc"``), as clients and the SDK write requests, so
the caller's pending request ends with that error; otherwise the ``id`` is null.

The SDK still owns stdout and its diversion of fd 1 to stderr; this module does the same for
fd 0 (the wire is read from a private duplicate, fd 0 points at the null device while
serving), so a child process never reads the protocol.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

__all__ = ("MAX_LINE", "BoundedLines", "bounded_stdio", "oversize_error", "request_id")

MAX_LINE = 4 * 1024 * 1024
"""Bytes in one JSON-RPC line at most (4 MiB): 500 times the largest fact the tools take."""
_CHUNK = 256 * 1024
_HEAD = 256  # bytes of a dropped line kept to find its id
_ID = re.compile(
    rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,128}")\s*[,}]'
)


class BoundedLines:
    """The lines of a byte source as text, each at most ``cap`` bytes (newline excluded).

    ``read(n)`` returns up to ``n`` bytes, ``b""`` at end of input. A longer line is never
    yielded: its bytes are counted and dropped as they arrive (its first :data:`_HEAD`
    bytes kept), then ``on_oversize(length, head)`` is awaited once its newline (or the end
    of input) is read. Blank lines are
    skipped. The SDK's stdio reader only iterates its ``stdin`` (``async for line in …``),
    which is all this class offers.
    """

    def __init__(
        self,
        read: Callable[[int], Awaitable[bytes]],
        cap: int,
        on_oversize: Callable[[int, bytes], Awaitable[None]],
    ) -> None:
        self._read = read
        self._cap = cap
        self._on_oversize = on_oversize

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        buf = bytearray()
        head = b""
        dropped = 0  # bytes of the current line dropped so far (0: within the cap)
        while chunk := await self._read(_CHUNK):
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                piece = memoryview(chunk)[start : end if end >= 0 else len(chunk)]
                if dropped:
                    dropped += len(piece)
                elif len(buf) + len(piece) > self._cap:
                    dropped = len(buf) + len(piece)
                    head = (bytes(buf[:_HEAD]) + bytes(piece[:_HEAD]))[:_HEAD]
                    buf.clear()
                else:
                    buf += piece
                if end < 0:
                    break
                start = end + 1
                if dropped:
                    await self._on_oversize(dropped, head)
                    dropped = 0
                    continue
                line = buf.decode("utf-8", errors="replace")
                buf.clear()
                if line.strip():
                    yield line
        if dropped:
            await self._on_oversize(dropped, head)
        elif buf.strip():
            yield buf.decode("utf-8", errors="replace")


def request_id(head: bytes) -> int | str | None:
    """The JSON-RPC ``id`` a line's first bytes name as its first member, else None."""
    found = _ID.match(head)
    if found is None:
        return None
    try:
        value: int | str = json.loads(found.group(1))
    except ValueError:  # an escape JSON does not know: not a usable id
        return None
    return value


def oversize_error(size: int, head: bytes, cap: int = MAX_LINE) -> SessionMessage:
    """The JSON-RPC error answering a dropped line of ``size`` bytes that began ``head``."""
    return SessionMessage(
        types.JSONRPCError(
            jsonrpc="2.0",
            id=request_id(head),
            error=types.ErrorData(
                code=types.INVALID_REQUEST,
                message=f"line of {size} bytes exceeds the {cap}-byte limit; it was discarded",
            ),
        )
    )


def _claim_stdin() -> tuple[int, Callable[[], None]]:
    """A private duplicate of fd 0 (the wire) and how to put fd 0 back."""
    wire = os.dup(0)  # not inheritable: children never get it
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)

    def restore() -> None:
        # the wire stays open: an abandoned reader thread may still block on it
        os.dup2(wire, 0)

    return wire, restore


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` streams, stdin read through :class:`BoundedLines`."""
    wire, restore = _claim_stdin()
    rejects_in, rejects_out = anyio.create_memory_object_stream[tuple[int, bytes]](8)

    async def read(n: int) -> bytes:
        return await anyio.to_thread.run_sync(os.read, wire, n, abandon_on_cancel=True)

    async def reject(size: int, head: bytes) -> None:
        await rejects_in.send((size, head))

    lines = BoundedLines(read, MAX_LINE, reject)
    try:
        async with (
            stdio_server(stdin=cast("anyio.AsyncFile[str]", lines)) as (read_stream, write_stream),
            anyio.create_task_group() as tasks,
        ):

            async def answer_rejects() -> None:
                async for size, head in rejects_out:
                    await write_stream.send(oversize_error(size, head))

            tasks.start_soon(answer_rejects)
            yield read_stream, write_stream
            tasks.cancel_scope.cancel()
    finally:
        restore()
