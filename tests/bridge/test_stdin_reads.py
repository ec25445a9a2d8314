"""The sidecar reads stdin in pieces of at most READ_SIZE (issue 24, item 6).

asyncio's pipe transport reads 256 KiB at a time; a buffer that size per frame is past
glibc's trim threshold and cost page faults and kernel time on every hook round trip.
"""

from __future__ import annotations

import asyncio
import fcntl
import os

import pytest

from persona_mind.bridge import sidecar


class _Recorder:
    """Stands in for the engine: records the size of every piece fed and the EOF."""

    def __init__(self) -> None:
        self.pieces: list[int] = []
        self.ended = asyncio.get_running_loop().create_future()

    def feed(self, data: bytes) -> None:
        self.pieces.append(len(data))

    def eof(self) -> None:
        if not self.ended.done():
            self.ended.set_result(None)


@pytest.mark.asyncio
async def test_stdin_is_read_at_most_read_size_at_a_time() -> None:
    read_fd, write_fd = os.pipe()
    fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 1024 * 1024)  # room for more than one read
    total = 3 * sidecar.READ_SIZE + 123
    os.write(write_fd, b"x" * total)  # all of it waits in the pipe before the first read
    os.close(write_fd)
    recorder = _Recorder()
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        transport = await sidecar.connect_stdin(recorder, pipe)  # type: ignore[arg-type]
        await asyncio.wait_for(recorder.ended, 5)
        transport.close()
    assert sum(recorder.pieces) == total
    assert max(recorder.pieces) == sidecar.READ_SIZE
    assert sidecar.READ_SIZE <= 128 * 1024 // 2  # well under glibc's 128 KiB thresholds
