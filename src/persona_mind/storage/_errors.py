"""Typed storage errors: each says what went wrong and what the operator should do.

All derive from :class:`persona_mind.errors.StorageError` so callers can catch one root.
The errno of an underlying ``OSError`` is kept on the exception (``errno``) and the
``OSError`` itself in ``__cause__``.
"""

from __future__ import annotations

from pathlib import Path

from persona_mind.errors import StorageError

__all__ = (
    "CasConflict",
    "CorruptStore",
    "HistoryBlocked",
    "HistoryFull",
    "LockOrderError",
    "LockTimeout",
    "OutcomeUncertain",
    "StoreIOError",
    "UnsafePath",
    "UnsupportedVersion",
    "WriteFailed",
)


class LockTimeout(StorageError):
    """A lock file stayed held by another holder past the bounded wait.

    Raised by lock acquisition; the lock is never stolen. ``holder`` is the owner record
    the holder wrote (pid, host, since, purpose) or a note that it was unreadable.
    """

    def __init__(self, path: Path, timeout: float, holder: str) -> None:
        self.path = path
        self.timeout = timeout
        self.holder = holder
        super().__init__(
            f"lock {path} still held after {timeout:g}s by {holder}; wait for that process "
            "to finish, or stop it if it is hung (a lock dies with its process - never "
            "delete the lock file)"
        )


class LockOrderError(StorageError, RuntimeError):
    """A programming error: locks were acquired out of the order memory -> history -> store,
    or two locks of one domain were nested, or an independent lock (backlog) was nested.

    Fix the calling code; this is never a runtime condition to retry.
    """


class UnsafePath(StorageError, ValueError):
    """A path or name would escape its root (``..``, absolute, symlink) or is not portable."""


class CorruptStore(StorageError):
    """A store file is empty, truncated, not UTF-8, not valid JSON, of the wrong shape,
    of an unknown version or larger than the cap.

    It is never read as an empty store. ``quarantined`` is where the bytes were moved
    (``None`` on a read path, which never writes: the next mutation or
    ``persona-mind store check --repair`` quarantines it).
    """

    def __init__(
        self,
        path: Path,
        reason: str,
        detail: str,
        *,
        quarantined: Path | None = None,
        backup: Path | None = None,
    ) -> None:
        self.path = path
        self.reason = reason
        self.detail = detail
        self.quarantined = quarantined
        self.backup = backup
        where = (
            f"its bytes were moved to {quarantined} with a .diagnostic.json beside them"
            if quarantined
            else "it was left untouched (read paths never write); the next write or "
            "`persona-mind store check --repair` quarantines it"
        )
        hint = f"; the previous version is in {backup}" if backup else ""
        super().__init__(f"store {path} is corrupt ({reason}: {detail}); {where}{hint}")


class UnsupportedVersion(CorruptStore):
    """A store was written by a newer schema version; it is refused, not rewritten.

    A copy is quarantined with a diagnostic but the original stays in place so the newer
    runtime still finds it. Upgrade persona-mind to read it.
    """


class CasConflict(StorageError):
    """A compare-and-swap found a different fingerprint than the caller read; nothing was written.

    Re-read the store and recompute the change.
    """

    def __init__(self, path: Path, expected: str, actual: str | None) -> None:
        self.path = path
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"store {path} changed since it was read (expected fingerprint {expected[:12]}, "
            f"found {actual[:12] if actual else 'no file'}); re-read it and retry the change"
        )


class WriteFailed(StorageError):
    """A durable write failed; ``replaced`` says whether the rename had already happened.

    ``replaced=False``: the store still holds the old bytes; retrying rewrites from memory.
    ``replaced=True``: the rename happened but the directory fsync failed, so the new
    version is visible but its durability is unknown.
    """

    def __init__(
        self,
        path: Path,
        step: str,
        error: OSError,
        *,
        replaced: bool,
        hint: str = "free disk space or fix permissions, then retry",
    ) -> None:
        self.path = path
        self.step = step
        self.errno = error.errno
        self.replaced = replaced
        state = (
            "the new version is visible but may not survive a power loss"
            if replaced
            else "the store still holds its previous version"
        )
        super().__init__(
            f"writing {path} failed at {step} ({error.strerror or error}); {state}; {hint}"
        )


class OutcomeUncertain(StorageError):
    """An optimizer replacement failed after the memory rename: its receipt stays prepared.

    It is never presumed applied or discarded; resolve it with
    ``persona-mind store history resolve`` once the store has been inspected.
    """


class HistoryBlocked(StorageError):
    """A replacement was refused because a prepared receipt for the target is unresolved."""


class HistoryFull(StorageError):
    """A replacement was refused: the new receipt would exceed 32 receipts / 2 MiB even after
    evicting every settled receipt."""


class StoreIOError(StorageError):
    """A file-system call failed outside the write protocol (reading, listing, locking,
    quarantining). Nothing was acknowledged; ``errno`` names the cause (kept in
    ``__cause__``). Fix the disk or permissions and retry."""

    def __init__(self, path: Path, action: str, error: OSError) -> None:
        self.path = path
        self.action = action
        self.errno = error.errno
        super().__init__(
            f"{action} {path} failed ({error.strerror or error}); nothing was changed by this "
            "call unless a quarantine is reported; fix the disk or permissions and retry"
        )
