"""Portable name and relative-path rules for pack files and declared paths.

Packs are global, user-owned data that may be copied between machines, so a name that
would alias another file or a device on some platform is refused everywhere (a real data
boundary), while any ordinary name is accepted. ``check_segment`` is pure: it never
touches the file system.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata

__all__ = (
    "MAX_NAME_BYTES",
    "PERSONA_NAME_RE",
    "check_relative",
    "check_segment",
    "is_valid_slug",
    "nfc_casefold",
)

MAX_NAME_BYTES = 255
"""The common per-component limit (ext4, APFS, NTFS in UTF-16 units is looser)."""

PERSONA_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
"""Pack and persona names double as slash-command names: lowercase, ≤ 64 characters."""

_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$", "clock$"}
    | {f"com{d}" for d in "0123456789¹²³"}
    | {f"lpt{d}" for d in "0123456789¹²³"}
)
_FORBIDDEN_CHARS = frozenset('<>:"|?*\\')
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_SURROGATE = re.compile("[\udc80-\udcff]")


def is_valid_slug(name: str) -> bool:
    """True for a name usable as a pack or persona name (and hence a command name).

    A pack name is also a folder name, so it must be a portable file name too: Windows
    device names (``con``, ``nul``, ``com1``, ``lpt9``, with any extension, any case) are
    refused here as everywhere else (issue 15 item 6).
    """
    return (
        bool(PERSONA_NAME_RE.fullmatch(name))
        and not name.endswith(".")
        and check_segment(name) is None
    )


def nfc_casefold(name: str) -> str:
    """The key two names collide under on a case-insensitive, normalising file system."""
    return unicodedata.normalize("NFC", name).casefold()


def check_segment(name: str) -> str | None:
    """Why ``name`` cannot be a file name in a pack, or ``None`` when it is fine."""
    reason: str | None = None
    if name in {"", ".", ".."}:
        reason = f"{name!r} is not a file name"
    elif _CONTROL.search(name):
        reason = "contains a control character (NUL, newline, …)"
    elif _SURROGATE.search(name):
        reason = "is not valid UTF-8; rename it with UTF-8 characters"
    elif len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        reason = f"is longer than {MAX_NAME_BYTES} bytes"
    elif forbidden := sorted(set(name) & _FORBIDDEN_CHARS):
        reason = f"contains {''.join(forbidden)!r}, which Windows forbids (and '\\' is a separator)"
    elif name[-1] in " .":
        reason = "ends with a dot or a space, which Windows silently strips"
    elif name.split(".", maxsplit=1)[0].rstrip(" ").casefold() in _WINDOWS_DEVICES:
        reason = "is a Windows reserved device name (CON, NUL, COM1, LPT1, …)"
    return reason


_DRIVE_RE = re.compile(r"^[A-Za-z]:")


def check_relative(path: str) -> str | None:
    """Why a declared relative path (``docs``, ``packDocs``) is unsafe, or ``None``.

    Refuses absolute paths, drive and UNC forms, backslashes, ``..`` that climbs out of
    the root, and unusable segments. ``a/../b`` that stays inside is fine.
    """
    reason: str | None = None
    if not path or not path.strip():
        reason = "is empty"
    elif "\x00" in path:
        reason = "contains NUL"
    elif path.startswith(("/", "\\")) or _DRIVE_RE.match(path):
        reason = "is absolute; declare it relative to its root"
    elif "\\" in path:
        reason = "uses '\\'; use '/' as the separator"
    else:
        normal = posixpath.normpath(path)
        if normal == ".." or normal.startswith("../"):
            reason = "climbs out of its root with '..'"
        else:
            for seg in normal.split("/"):
                if seg == ".":
                    continue
                why = check_segment(seg)
                if why is not None:
                    reason = f"segment {seg!r} {why}"
                    break
    return reason
