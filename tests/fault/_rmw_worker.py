"""One of N concurrent read-modify-write processes (F4).

Each round reads the store *outside* the lock, then commits a blind write computed from
that read with ``expect_fingerprint``: without CAS a concurrent commit would be lost. A
conflict is retried from a fresh read. Prints one JSON summary line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec

from persona_mind.storage import CasConflict, FileStore, StoreTarget


class Item(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    pad: str = ""


def main() -> None:
    directory, worker, rounds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    target = StoreTarget(path=directory / "store.json", entry_type=Item)
    store = FileStore(lock_timeout=30.0)
    conflicts = 0
    for i in range(rounds):
        while True:
            seen = store.read_stored(target)
            base: tuple[Item, ...] = () if seen is None else seen.snapshot.entries
            fp = store.fingerprint(target) if seen is None else seen.fingerprint
            item = Item(id=f"w{worker}-{i}")

            def blind(
                _current: tuple[Item, ...],
                base: tuple[Item, ...] = base,
                item: Item = item,
            ) -> tuple[Item, ...]:
                return (*base, item)  # computed from the (maybe stale) read, not _current

            try:
                store.mutate(target, blind, expect_fingerprint=fp)
            except CasConflict:
                conflicts += 1
                continue
            break
    print(json.dumps({"worker": worker, "ok": rounds, "conflicts": conflicts}), flush=True)


if __name__ == "__main__":
    main()
