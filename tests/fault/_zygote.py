"""Kill -9 harness helper: a single-threaded process that forks writer children on demand.

Forking from a process that already imported the engine makes a cycle cost milliseconds
instead of a fresh interpreter. Protocol on stdin/stdout, one line each:
``run <dir> <seed> <mode> <k> <ackfile>`` -> ``<pid>``; ``reap <pid>`` -> ``reaped <status>``.
A child appends ``ACK <sequence> <fingerprint>`` to the ack file after each acknowledged
mutation; in ``point`` mode it SIGKILLs itself at seam call k, writing ``AT <call>`` first.
"""

from __future__ import annotations

import os
import random
import signal
import sys
from pathlib import Path

import msgspec

from persona_mind.storage import FileStore, OsFileSystem, StoreTarget
from persona_mind.testing._faultfs import FaultyFileSystem


class Item(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    pad: str = ""


class SelfKill(FaultyFileSystem):
    """Dies by SIGKILL at the k-th seam call, after naming it in the ack file."""

    def __init__(self, k: int, ack: int) -> None:
        super().__init__()
        self.k = k
        self.n = 0
        self.ack = ack

    def _step(self, name: str) -> None:
        self.n += 1
        if self.n == self.k:
            os.write(self.ack, f"AT {name}\n".encode())
            os.kill(os.getpid(), signal.SIGKILL)


def child(directory: Path, seed: int, mode: str, k: int, ack_path: str) -> None:
    ack = os.open(ack_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    fs = SelfKill(k, ack) if mode == "point" else OsFileSystem()
    store = FileStore(fs=fs, lock_timeout=5.0)
    target = StoreTarget(path=directory / "store.json", entry_type=Item)
    rng = random.Random(seed)
    for i in range(2000):
        pad = "x" * rng.randint(0, 24_000)

        def mutation(entries: tuple[Item, ...], i: int = i, pad: str = pad) -> tuple[Item, ...]:
            return (*entries[-16:], Item(id=f"{seed}-{i}", pad=pad))

        stored = store.mutate_stored(target, mutation)
        os.write(ack, f"ACK {stored.snapshot.sequence} {stored.fingerprint}\n".encode())


def main() -> None:
    for line in sys.stdin:
        cmd = line.split()
        if cmd[0] == "run":
            pid = os.fork()
            if pid == 0:
                try:
                    child(Path(cmd[1]), int(cmd[2]), cmd[3], int(cmd[4]), cmd[5])
                finally:
                    os._exit(0)
            print(pid, flush=True)
        elif cmd[0] == "reap":
            _, status = os.waitpid(int(cmd[1]), 0)
            print(f"reaped {status}", flush=True)
        elif cmd[0] == "quit":
            return


if __name__ == "__main__":
    main()
