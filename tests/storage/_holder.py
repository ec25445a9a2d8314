"""Holds a lock file for a test: prints ``held``, waits for a stdin line, releases."""

from __future__ import annotations

import sys
from pathlib import Path

from persona_mind.storage import FileLock, OsFileSystem


def main() -> None:
    lock = FileLock(OsFileSystem(), Path(sys.argv[1]), "store", purpose=sys.argv[2])
    lock.acquire()
    print("held", flush=True)
    sys.stdin.readline()
    lock.release()
    print("released", flush=True)


if __name__ == "__main__":
    main()
