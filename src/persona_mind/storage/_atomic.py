"""The write protocol, temp sweeping and quarantine — every step through the FileSystem seam.

``write_atomic`` (ARCHITECTURE "Storage"; notes/reliability.md §7)::

    fd = open_new(dir/".<name>.<token>.tmp")      O_CREAT|O_EXCL|O_NOFOLLOW, same directory
    write all bytes (short writes continue)        whole-file rewrite, never append or patch
    fsync(fd)                                      an error abandons this temp: unlink, raise,
    close(fd)                                        never fsync again (fsyncgate)
    [backup] link(<file>, tmp2); replace(tmp2, "<file>.bak")   previous version, no data copy
    replace(tmp, <file>)                           the commit point: readers see old or new
    fsync_dir(dir)                                 only now is the write ACKNOWLEDGED

A failure before ``replace`` leaves the old bytes (``WriteFailed.replaced is False``); a
failure of the directory fsync leaves the new version visible but not proven durable
(``replaced is True``). A retry always rewrites from memory into a fresh temp.
"""

from __future__ import annotations

import contextlib
import errno as _errno
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from persona_mind.storage._errors import WriteFailed
from persona_mind.storage._fs import FileSystem

__all__ = (
    "backup_path",
    "ensure_dir",
    "quarantine",
    "sweep_temps",
    "temp_owner",
    "temp_path",
    "write_atomic",
)


def temp_path(path: Path, suffix: str = "tmp") -> Path:
    """A fresh temp name beside ``path``: ``.<name>.<random>.<suffix>``."""
    return path.with_name(f".{path.name}.{secrets.token_hex(6)}.{suffix}")


def temp_owner(temp: Path) -> Path | None:
    """The state file an (orphan) temp belongs to, or ``None`` if it is not our temp."""
    name = temp.name
    if not (name.startswith(".") and name.endswith(".tmp")):
        return None
    base, _, token = name[1:-4].removesuffix(".bak").rpartition(".")
    if len(token) != 12 or not base:
        return None
    return temp.with_name(base)


def backup_path(path: Path) -> Path:
    """The standard backup of ``path``: its previous acknowledged version."""
    return path.with_name(path.name + ".bak")


def _discard(fs: FileSystem, tmp: Path) -> None:
    with contextlib.suppress(OSError):  # an orphan temp is swept by the next mutation
        fs.unlink(tmp)


def write_atomic(fs: FileSystem, path: Path, data: bytes, *, backup: bool = False) -> None:
    """Durably replace ``path`` with ``data`` (see the module doc for the exact steps)."""
    tmp = temp_path(path)
    try:
        fd = fs.open_new(tmp)
    except OSError as exc:
        _discard(fs, tmp)
        raise WriteFailed(path, "open temp", exc, replaced=False) from exc
    step = "write"
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[fs.write(fd, view) :]
            step = "fsync"
            fs.fsync(fd)  # never retried: after an fsync error this temp is abandoned
        except OSError:
            with contextlib.suppress(OSError):
                fs.close(fd)
            raise
        step = "close"
        fs.close(fd)
        live = fs.lstat(path) if backup else None
        if live is not None:
            step = "backup"
            bak = fs.lstat(backup_path(path))
            if bak is not None and not stat.S_ISREG(bak.st_mode):  # issue 15 item 3
                _discard(fs, tmp)
                raise WriteFailed(
                    path,
                    step,
                    IsADirectoryError(_errno.EISDIR, "the backup is not a regular file"),
                    replaced=False,
                    hint=f"run `persona-mind store check --repair {path}` to move it aside",
                )
            # after a failed rename the backup may already be this very inode: rename(2)
            # between two links of one file is a no-op that would strand the temp link
            if bak is None or (bak.st_ino, bak.st_dev) != (live.st_ino, live.st_dev):
                bak_tmp = temp_path(path, "bak.tmp")
                try:
                    fs.link(path, bak_tmp)
                    fs.replace(bak_tmp, backup_path(path))
                except BaseException:  # after a successful rename there is nothing to clean
                    with contextlib.suppress(OSError):
                        if fs.lstat(bak_tmp) is not None:
                            fs.unlink(bak_tmp)
                    raise
        step = "rename"
        fs.replace(tmp, path)
    except OSError as exc:
        _discard(fs, tmp)
        raise WriteFailed(path, step, exc, replaced=False) from exc
    try:
        fs.fsync_dir(path.parent)
    except OSError as exc:
        raise WriteFailed(path, "directory fsync", exc, replaced=True) from exc


def ensure_dir(fs: FileSystem, path: Path) -> None:
    """Create ``path`` and missing parents, fsyncing each parent so the entry is durable."""
    missing: list[Path] = []
    current = path
    while fs.lstat(current) is None:
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        try:
            fs.mkdir(directory)
        except FileExistsError:
            continue
        fs.fsync_dir(directory.parent)


def sweep_temps(fs: FileSystem, path: Path) -> list[Path]:
    """Unlink orphan temps of ``path`` (a temp is never the truth). Call under its lock only:
    other files' temps in the same directory may belong to a live writer."""
    prefix = f".{path.name}."
    swept: list[Path] = []
    for name in fs.listdir(path.parent):
        if name.startswith(prefix) and name.endswith(".tmp"):
            orphan = path.parent / name
            try:
                fs.unlink(orphan)
            except FileNotFoundError:
                continue
            swept.append(orphan)
    return swept


class Diagnostic(msgspec.Struct, kw_only=True):
    """What a quarantine leaves beside the quarantined bytes (``*.diagnostic.json``)."""

    original: str
    quarantined: str
    reason: str
    detail: str
    size: int
    sha256: str | None
    action: str
    at: str
    hint: str


def quarantine(
    fs: FileSystem,
    path: Path,
    *,
    reason: str,
    detail: str,
    size: int,
    sha256: str | None,
    keep_original: bytes | None = None,
    wall: Callable[[], float] = time.time,
    before_move: Callable[[Path, str], None] | None = None,
) -> Path:
    """Move (or, with ``keep_original``, copy) a bad store aside with a diagnostic file.

    The quarantine sits beside the original as ``<name>.quarantine-<utc>-<token>-<reason>``
    with ``.diagnostic.json`` next to it. Moving is a rename: the bytes are kept exactly.
    ``before_move(target, stamp)`` runs after the diagnostic is durable and before the move
    (the engine records the unresolved quarantine there, so the store never looks absent).
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(wall()))
    if keep_original is not None and sha256:
        # a refused newer-version file is copied once per distinct content, not per attempt
        target = path.with_name(f"{path.name}.quarantine-{sha256[:16]}-{reason}")
        if fs.lstat(target) is not None:
            return target
    else:
        target = path.with_name(f"{path.name}.quarantine-{stamp}-{secrets.token_hex(3)}-{reason}")
    diag = Diagnostic(
        original=str(path),
        quarantined=str(target),
        reason=reason,
        detail=detail,
        size=size,
        sha256=sha256,
        action="copied" if keep_original is not None else "moved",
        at=stamp,
        hint=(
            "the store stays quarantined (not read as empty, not written, its backup "
            f"{backup_path(path).name} kept) until `persona-mind store check --repair "
            f"{path}` restores the freshest valid copy and names what it could not recover"
        ),
    )
    write_atomic(fs, target.with_name(target.name + ".diagnostic.json"), msgspec.json.encode(diag))
    if keep_original is not None:
        write_atomic(fs, target, keep_original)
    else:
        if before_move is not None:
            before_move(target, stamp)
        fs.replace(path, target)
        fs.fsync_dir(path.parent)
    return target
