"""Which locks a mutation takes, in which order, and holding them (M-STORE-8, -13..16).

Composed into :class:`~persona_mind.storage.FileStore` (``engine.locks``): the engine asks
for a target's plan and holds it around the locked step; the optimizer's receipts
(``_history``) hold the memory → history → store plan of the same table. Lock directories
are created durably once per planner (an ``lstat`` walk per mutation otherwise), and a
directory removed since is recreated on the ``ENOENT`` of the lock file's open.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from persona_mind.errors import StorageError
from persona_mind.storage._atomic import ensure_dir
from persona_mind.storage._fs import FileSystem
from persona_mind.storage._locks import FileLock
from persona_mind.storage._paths import Layout
from persona_mind.storage.port import LockDomain, StoreTarget

__all__ = ("LockPlanner", "lock_path")


def lock_path(path: Path) -> Path:
    """The sidecar lock file of a state file: ``.<name>.lock`` (never deleted)."""
    return path.with_name(f".{path.name}.lock")


class LockPlanner:
    """The lock table of one engine (its file system, layout and timeout)."""

    def __init__(self, fs: FileSystem, layout: Layout | None, timeout: float) -> None:
        self.fs = fs
        self.layout = layout
        self.timeout = timeout
        self._dirs: set[Path] = set()

    def plan(self, target: StoreTarget[Any]) -> list[tuple[LockDomain, Path]]:
        """The locks a mutation of ``target`` takes, in order (M-STORE-13..16)."""
        path = target.path
        match target.lock:
            case "store" | "backlog":
                return [(target.lock, lock_path(path))]
            case "packs":
                return [("packs", self.need_layout("packs").packs_lock)]
            case "memory":
                memory = self.need_layout("memory").memory_lock
                return [("memory", memory), ("store", lock_path(path))]
            case "history":
                return self.history_plan(path)
        raise StorageError(f"unknown lock domain {target.lock!r}")  # pragma: no cover

    def history_plan(self, store: Path) -> list[tuple[LockDomain, Path]]:
        """memory → the history lock of ``store`` → ``store`` (an optimizer apply)."""
        return [
            ("memory", self.need_layout("history").memory_lock),
            ("history", lock_path(Layout.history(store))),
            ("store", lock_path(store)),
        ]

    def need_layout(self, domain: str) -> Layout:
        if self.layout is None:
            raise StorageError(
                f"a {domain}-domain target needs FileStore(layout=Layout(agent_dir)) "
                "to find the profile-wide lock"
            )
        return self.layout

    @contextmanager
    def hold(self, plan: Sequence[tuple[LockDomain, Path]], purpose: str) -> Iterator[None]:
        """Hold the locks of ``plan`` in order (creating their directories durably)."""
        with ExitStack() as stack:
            for domain, path in plan:
                stack.callback(self._acquire(domain, path, purpose).release)
            yield

    def _acquire(self, domain: LockDomain, path: Path, purpose: str) -> FileLock:
        lock = FileLock(self.fs, path, domain, purpose=purpose, timeout=self.timeout)
        parent = path.parent
        if parent in self._dirs:
            try:
                lock.acquire()
            except FileNotFoundError:
                self._dirs.discard(parent)
            else:
                return lock
        ensure_dir(self.fs, parent)
        self._dirs.add(parent)
        lock.acquire()
        return lock
