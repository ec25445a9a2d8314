"""The files of pi-persona-mind's earlier layout: their names, bounds and bounded reads.

Split out of :mod:`~persona_mind.mind.migrate._legacy` (the resumable import itself): which
legacy files belong to a scope — the persona file stem and project slug rules of
pi-persona-mind ≤ 0.8, this project's files in each directory by a bounded scan — how one is
read (a regular file ≤ 4 MiB, never a symlink), and how its timestamps are parsed.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from persona_mind.mind._model import Tier

__all__ = (
    "MAX_IMPORT_FILES",
    "MAX_SOURCE_BYTES",
    "PROJECT_DIRS",
    "Job",
    "JobKind",
    "legacy_persona_file",
    "legacy_project_slug",
    "project_files",
    "read_bounded",
    "time_of",
)

MAX_IMPORT_FILES = 256
MAX_SOURCE_BYTES = 4 * 1024 * 1024
_WIN_DEVICE = re.compile(r"^(?:con|prn|aux|nul|com[1-9]|lpt[1-9])$", re.IGNORECASE)
JobKind = Literal["ltm", "stm", "backlog"]


def legacy_persona_file(name: str) -> str:
    """The legacy persona file stem (pi-persona-mind ≤ 0.8 scope rule)."""
    seg = re.sub(r"[^a-zA-Z0-9._-]+", "-", name).strip("-.")[:64]
    if not seg:
        return "persona-" + hashlib.sha256(name.encode()).hexdigest()[:12]
    low = seg.lower()
    return f"persona-{seg}" if low in ("_shared", "_default") or _WIN_DEVICE.match(seg) else seg


def legacy_project_slug(root: str) -> str:
    """The legacy project file stem: basename slug + 24 hex of SHA-256 of the root path."""
    digest = hashlib.sha256(root.encode()).hexdigest()[:24]
    base = re.sub(r"[^a-zA-Z0-9._-]+", "-", os.path.basename(root)).strip("-")[:48]
    return f"{base or 'project'}-{digest}"


def time_of(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) / 1000.0 if value > 1e11 else float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def read_bounded(path: Path) -> tuple[bytes, int, int] | None:
    """Bytes, size and mtime of a regular file ≤ 4 MiB (None if absent or not a file)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    if not path.is_file() or path.is_symlink():
        return None
    if st.st_size > MAX_SOURCE_BYTES:
        raise ValueError(f"{path} is {st.st_size} bytes (> {MAX_SOURCE_BYTES}); not imported")
    with path.open("rb") as fh:
        return fh.read(MAX_SOURCE_BYTES + 1), st.st_size, st.st_mtime_ns


@dataclass(frozen=True, slots=True)
class Job:
    path: Path
    kind: JobKind
    tier: Tier | None
    claim: bool = False


PROJECT_DIRS: tuple[tuple[str, JobKind, Tier | None], ...] = (
    ("memory/stm", "stm", "stm"),
    ("memory/project", "ltm", "project"),
    ("backlog", "backlog", None),
)


def project_files(folder: Path, slug: str) -> list[Path]:
    """This project's files in ``folder``: the exact ``<slug>.json`` and any other file whose
    name ends in the same root digest (older builds slugged the basename differently), from a
    bounded scan of the whole directory."""
    digest = slug.rsplit("-", 1)[-1]
    found = [folder / f"{slug}.json"] if (folder / f"{slug}.json").is_file() else []
    try:
        names = sorted(os.listdir(folder))[: MAX_IMPORT_FILES * 4]
    except (FileNotFoundError, NotADirectoryError):
        return found
    for name in names:
        if name == f"{slug}.json" or not name.endswith(".json"):
            continue
        if name == f"{digest}.json" or name.endswith(f"-{digest}.json"):
            found.append(folder / name)
    return found
