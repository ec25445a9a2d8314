"""F1: kill -9 mid-write, 300 cycles (10,000 with --soak): 0 lost acked writes, 0 unreadable.

A forked writer is SIGKILLed either at a random 0-30 ms point or by itself at a random seam
call (so every step of the protocol gets hit), then the parent reopens the store. A process
crash keeps the page cache, so nothing acknowledged may be lost and nothing may be torn or
quarantined; the lock must be free at once (a kernel lock dies with its process).
"""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.storage import CorruptStore, FileStore, OsFileSystem, StoreTarget, lock_path
from tests.fault._zygote import Item

ZYGOTE = Path(__file__).with_name("_zygote.py")

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="SIGKILL and fork() are POSIX; Windows has neither"
)


def test_f1_kill9_loop(
    tmp_path: Path, soak: bool, record_property: Callable[[str, object], None]
) -> None:
    cycles = 10_000 if soak else 300
    rng = random.Random(9)
    directory = tmp_path / "store"
    directory.mkdir()
    target = StoreTarget(path=directory / "store.json", entry_type=Item)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    zygote = subprocess.Popen(
        [sys.executable, str(ZYGOTE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert zygote.stdin is not None
    assert zygote.stdout is not None
    acked_total = 0
    temps_seen = 0
    points: collections.Counter[str] = collections.Counter()
    fs = OsFileSystem()
    last_seq = 0
    try:
        for cycle in range(cycles):
            ack_file = tmp_path / "acks" / f"{cycle}.txt"
            ack_file.parent.mkdir(exist_ok=True)
            point = cycle % 2 == 1
            k = rng.randint(1, 100)
            mode = "point" if point else "timed"
            zygote.stdin.write(f"run {directory} {cycle} {mode} {k} {ack_file}\n")
            zygote.stdin.flush()
            pid = int(zygote.stdout.readline())
            if not point:
                time.sleep(rng.uniform(0, 0.03))  # a random kill point, 0-30 ms in
                os.kill(pid, signal.SIGKILL)
            zygote.stdin.write(f"reap {pid}\n")
            zygote.stdin.flush()
            status = zygote.stdout.readline().split()[1]
            assert os.WIFSIGNALED(int(status)), f"cycle {cycle}: writer was not killed"
            lines = ack_file.read_text().splitlines() if ack_file.exists() else []
            acks = [line.split() for line in lines if line.startswith("ACK")]
            points.update(line.split()[1] for line in lines if line.startswith("AT"))
            acked_total += len(acks)
            # the lock is free at once: the kernel lock died with the writer
            fd = fs.open_lock(lock_path(target.path))
            try:
                assert fs.try_lock(fd), f"cycle {cycle}: lock still held after kill -9"
                fs.unlock(fd)
            finally:
                fs.close(fd)
            temps_seen += sum(1 for n in os.listdir(directory) if n.endswith(".tmp"))
            try:
                stored = FileStore().read_stored(target)
            except CorruptStore as exc:
                pytest.fail(f"cycle {cycle}: store unreadable after kill -9: {exc}")
            if acks:
                seq, fp = int(acks[-1][1]), acks[-1][2]
                assert stored is not None
                assert stored.snapshot.sequence in {seq, seq + 1}, f"cycle {cycle}: ack lost"
                if stored.snapshot.sequence == seq:
                    assert stored.fingerprint == fp, f"cycle {cycle}: acked bytes differ"
                last_seq = seq
            if stored is not None:
                assert stored.snapshot.sequence >= last_seq
                last_seq = stored.snapshot.sequence
    finally:
        zygote.stdin.write("quit\n")
        zygote.stdin.flush()
        zygote.wait(timeout=10)
        zygote.stdin.close()
        zygote.stdout.close()
    FileStore().mutate(target, lambda e: (*e, Item(id="final")))
    leftovers = [n for n in os.listdir(directory) if n.endswith(".tmp") or "quarantine" in n]
    assert leftovers == []
    record_property("kill9_cycles", cycles)
    record_property("kill9_acked_writes", acked_total)
    record_property("kill9_temps_seen", temps_seen)
    record_property("kill9_points", dict(points))
    print(
        f"\nkill -9: {cycles} cycles, {acked_total} acked writes, 0 lost, 0 unreadable, "
        f"{temps_seen} orphan temps swept, self-kill points {dict(points)}"
    )
    assert acked_total > cycles  # the loop really wrote
    assert len(points) >= 10  # the self-kills covered most protocol steps
