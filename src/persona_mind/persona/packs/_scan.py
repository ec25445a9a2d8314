"""Walk a pack tree once, refusing only real trust and data boundaries.

Refused: unsafe or non-portable names, case/Unicode-normalisation collisions, symlinks
whose target leaves the root, hard links to a file that also lives outside the root,
devices/FIFOs/sockets, files or trees over the size caps.
Accepted: any ordinary layout, including symlinks that stay inside the root (copied as
the files they point to) and files the pack layout does not use (reported as warnings).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from persona_mind.persona._errors import Problem
from persona_mind.persona.packs._names import check_segment, nfc_casefold

__all__ = ("Limits", "TreeScan", "is_inside", "scan_tree")

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True, slots=True)
class Limits:
    """Size and shape caps; each one stops a real resource problem, not a style choice."""

    manifest_bytes: int = 64 * KIB
    agent_bytes: int = 256 * KIB
    file_bytes: int = 8 * MIB
    total_bytes: int = 64 * MIB
    max_files: int = 4096
    max_depth: int = 16
    # What a child can run (issue 15 item 6): every persona's prompt carries the roster
    # (each teammate's description) and its own lists, so these bound the prompt a child
    # gets; docs/persona.md shows the arithmetic against the 4 MiB child limit.
    description_chars: int = 1024
    max_personas: int = 64
    max_list_entries: int = 32


@dataclass(slots=True)
class TreeScan:
    """What one walk found: regular files (pack-relative, sorted) with sizes, and findings."""

    files: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    total: int = 0
    links: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    """Regular files with more than one hard link: (dev, inode) → [nlink, rel, …]."""


def is_inside(path: str, root: str) -> bool:
    """True when the real ``path`` is ``root`` or below it (both already ``realpath``-ed)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _cap_for(rel: str, limits: Limits) -> int:
    if rel == "pack.yaml":
        return limits.manifest_bytes
    if rel.startswith("agents/") and rel.endswith(".md"):
        return limits.agent_bytes
    return limits.file_bytes


def scan_tree(root: Path, limits: Limits) -> TreeScan:
    """Walk ``root`` (not following links out of it) and classify every entry."""
    scan = TreeScan()
    real_root = os.path.realpath(root)
    _walk(Path(root), "", real_root, limits, scan, {real_root}, 0)
    _check_hard_links(scan)
    return scan


def _check_hard_links(scan: TreeScan) -> None:
    """Refuse a file whose inode has more names than the pack holds (issue 15 item 6).

    A hard link is indistinguishable from the file it shares an inode with, so ``ln
    ~/.ssh/id_ed25519 references/key`` would be validated as an ordinary pack file and
    copied into the store, a snapshot or a fork. Links that all stay inside the pack are
    harmless (the copy just duplicates the bytes) and accepted.
    """
    for names in scan.links.values():
        nlink, rels = int(names[0]), names[1:]
        if nlink > len(rels):
            scan.problems.append(
                Problem(
                    "hardlink-escape",
                    rels[0],
                    f"is a hard link to a file with {nlink - len(rels)} more name(s) outside "
                    "the pack; copy the file in instead of linking it",
                )
            )


def _walk(
    directory: Path,
    prefix: str,
    real_root: str,
    limits: Limits,
    scan: TreeScan,
    seen_dirs: set[str],
    depth: int,
) -> None:
    if depth > limits.max_depth:
        scan.problems.append(
            Problem("too-deep", prefix, f"nests deeper than {limits.max_depth} folders")
        )
        return
    keys: dict[str, str] = {}
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        scan.problems.append(Problem("unreadable", prefix, f"cannot be listed ({exc.strerror})"))
        return
    for entry in entries:
        rel = f"{prefix}{entry.name}"
        why = check_segment(entry.name)
        if why is not None:
            scan.problems.append(Problem("unsafe-name", rel, f"name {why}"))
            continue
        key = nfc_casefold(entry.name)
        if key in keys:
            scan.problems.append(
                Problem(
                    "name-collision",
                    rel,
                    f"collides with {prefix}{keys[key]} on case-insensitive or normalising "
                    "file systems; rename one of them",
                )
            )
            continue
        keys[key] = entry.name
        _classify(entry, rel, real_root, limits, scan, seen_dirs, depth)


def _classify(
    entry: os.DirEntry[str],
    rel: str,
    real_root: str,
    limits: Limits,
    scan: TreeScan,
    seen_dirs: set[str],
    depth: int,
) -> None:
    try:
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            target = os.path.realpath(entry.path)
            if not is_inside(target, real_root):
                scan.problems.append(
                    Problem(
                        "symlink-escape",
                        rel,
                        "is a symlink that points outside the pack; copy the file in instead",
                    )
                )
                return
            info = os.stat(entry.path)
            if stat.S_ISDIR(info.st_mode) and target in seen_dirs:
                scan.warnings.append(f"{rel}: symlinked folder already included; skipped")
                return
    except OSError as exc:
        scan.problems.append(Problem("unreadable", rel, f"cannot be read ({exc.strerror})"))
        return
    if stat.S_ISDIR(info.st_mode):
        seen_dirs.add(os.path.realpath(entry.path))
        _walk(Path(entry.path), f"{rel}/", real_root, limits, scan, seen_dirs, depth + 1)
    elif stat.S_ISREG(info.st_mode):
        if info.st_nlink > 1 and not entry.is_symlink():
            # Only a directly listed name counts as one inside the pack; a symlink inside
            # to it adds no hard link (and its target is walked under its own name).
            key = (info.st_dev, info.st_ino)
            scan.links.setdefault(key, [str(info.st_nlink)]).append(rel)
        _add_file(rel, info.st_size, limits, scan)
    else:
        scan.problems.append(
            Problem("special-file", rel, "is a device, FIFO or socket; packs hold regular files")
        )


def _add_file(rel: str, size: int, limits: Limits, scan: TreeScan) -> None:
    cap = _cap_for(rel, limits)
    if size > cap:
        scan.problems.append(
            Problem("file-too-large", rel, f"is {size} bytes; the limit for this file is {cap}")
        )
        return
    if len(scan.files) >= limits.max_files:
        if len(scan.files) == limits.max_files:
            scan.problems.append(
                Problem("too-many-files", rel, f"the pack has more than {limits.max_files} files")
            )
            scan.files[rel] = size  # mark once so the problem is not repeated
        return
    scan.total += size
    if scan.total > limits.total_bytes and scan.total - size <= limits.total_bytes:
        scan.problems.append(
            Problem("pack-too-large", rel, f"the pack exceeds {limits.total_bytes} bytes in total")
        )
    scan.files[rel] = size
