"""The on-disk layout under ``<agentDir>``, collision-safe file names, project identity and
confinement.

Names: a scope or project name is used verbatim only when it is *plain* — lowercase ASCII
letters, digits, ``-`` and ``_``, starting with a letter or digit, at most 64 characters,
not reserved (``shared``, ``default``) and not a Windows device name. Every other name becomes
``<slug>~<sha256(name)[:20]>``. Plain names cannot contain ``~``, so the two forms never meet,
and distinct non-plain names differ in their hash: case folding, lossy Unicode slugs and
device names (``CON``, ``NUL``, ``COM1``, ``COM¹``) can never merge two scopes.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePath

from persona_mind.storage._errors import UnsafePath

__all__ = (
    "RESERVED_NAMES",
    "Layout",
    "agent_dir",
    "confine",
    "is_windows_reserved",
    "project_identity",
    "project_name",
    "safe_name",
)

RESERVED_NAMES = frozenset({"shared", "default"})
"""Names that mean something else in the layout; a scope called this way gets a hashed name."""

_PLAIN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_WIN_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$", "clock$"}
    | {f"{p}{d}" for p in ("com", "lpt") for d in "0123456789¹²³"}
)
_WIN_FORBIDDEN = re.compile(r'[<>:"|?*\\/\x00-\x1f]')


def is_windows_reserved(name: str) -> bool:
    """True if ``name`` cannot be a portable file name on Windows.

    Covers device names (any case, with any extension, trailing dots or spaces, superscript
    digits ``COM¹``), forbidden characters and names ending in a dot or space.
    """
    if not name or name in {".", ".."} or _WIN_FORBIDDEN.search(name):
        return True
    if name[-1] in ". ":
        return True
    stem = name.split(".", 1)[0].rstrip(" .").lower()
    return stem in _WIN_DEVICES


def _slug(name: str) -> str:
    ascii_ = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9_-]+", "-", ascii_.lower()).strip("-_")
    return slug[:40].rstrip("-_") or "x"


def safe_name(name: str) -> str:
    """A portable, collision-safe file stem for a scope or project name (see module doc)."""
    if _PLAIN.fullmatch(name) and name not in RESERVED_NAMES and not is_windows_reserved(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    return f"{_slug(name)}~{digest}"


def agent_dir(env: dict[str, str] | None = None) -> Path:
    """``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent`` (Pi's own rule)."""
    env = dict(os.environ) if env is None else env
    configured = env.get("PI_CODING_AGENT_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".pi" / "agent"


def project_identity(cwd: Path, *, home: Path | None = None) -> Path:
    """The canonical project root: the nearest ``.git`` ancestor of ``realpath(cwd)``.

    The home directory (and anything above it) is never a project root even if it holds a
    ``.git`` (a dotfiles repository); without a usable ``.git`` the real path itself is the
    project.
    """
    real = Path(os.path.realpath(cwd))
    home_real = Path(os.path.realpath(home if home is not None else Path.home()))
    for candidate in (real, *real.parents):
        if candidate == home_real or candidate in home_real.parents:
            break
        if (candidate / ".git").exists():
            return candidate
    return real


def project_name(root: Path) -> str:
    """The file stem of a project: its basename slug plus a hash of its real path.

    Always hashed, because two checkouts called ``app`` must never share memory.
    """
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:20]
    return f"{_slug(root.name or 'root')}~{digest}"


def confine(root: Path, *parts: str) -> Path:
    """Join ``parts`` under ``root``, refusing anything that could escape it.

    Refuses absolute parts, drive letters, ``..``, NUL bytes, backslashes and any existing
    component (below ``root``) that is a symlink. ``root`` itself may be a symlink; it is
    resolved once.
    """
    base = Path(os.path.realpath(root))
    current = base
    for part in parts:
        pure = PurePath(part)
        if not part or "\x00" in part or "\\" in part or pure.is_absolute() or ":" in part:
            raise UnsafePath(f"refusing path part {part!r} under {base}: use a relative name")
        for piece in part.split("/"):
            if piece in {"..", ".", ""}:
                raise UnsafePath(
                    f"refusing {part!r} under {base}: '..', '.' and empty components "
                    "are not allowed"
                )
            current = current / piece
            if current.is_symlink():
                raise UnsafePath(
                    f"refusing {current}: it is a symlink and could lead outside {base}; "
                    "replace it with a real directory or file"
                )
    return current


@dataclass(frozen=True, slots=True)
class Layout:
    """Every durable path of persona-mind under one ``<agentDir>`` (seed 000 "Durable files")."""

    agent_dir: Path

    @property
    def root(self) -> Path:
        """``<agentDir>/persona-mind`` (M-STORE-1)."""
        return self.agent_dir / "persona-mind"

    def ltm(self, persona: str) -> Path:
        """Persona LTM ``memory/ltm/<persona>.json`` (M-STORE-2)."""
        return self.root / "memory" / "ltm" / f"{safe_name(persona)}.json"

    @property
    def shared_ltm(self) -> Path:
        """Shared LTM ``memory/ltm/_shared.json`` (M-STORE-2)."""
        return self.root / "memory" / "ltm" / "_shared.json"

    @property
    def memory_lock(self) -> Path:
        """The profile-wide memory transaction lock, anchored beside shared LTM (M-STORE-13)."""
        return self.root / "memory" / "ltm" / "_shared.memory-txn.lock"

    def project(self, project: str) -> Path:
        """Project LTM ``memory/project/<project>.json`` (M-STORE-3)."""
        return self.root / "memory" / "project" / f"{safe_name(project)}.json"

    def stm(self, project: str) -> Path:
        """STM ``memory/stm/<project>.json`` (M-STORE-4)."""
        return self.root / "memory" / "stm" / f"{safe_name(project)}.json"

    def backlog(self, project: str) -> Path:
        """Backlog ``backlog/<project>.json`` (M-STORE-5)."""
        return self.root / "backlog" / f"{safe_name(project)}.json"

    @staticmethod
    def history(store: Path) -> Path:
        """Optimizer receipts ``<store>.optimize-history.json`` (M-OPTIMIZE-HISTORY-1)."""
        return store.with_name(store.name.removesuffix(".json") + ".optimize-history.json")

    @property
    def persona_root(self) -> Path:
        """``<agentDir>/persona``: packs under official/custom/drafts."""
        return self.agent_dir / "persona"

    def packs(self, source: str) -> Path:
        """A pack source directory: ``official``, ``custom`` or ``drafts``."""
        if source not in {"official", "custom", "drafts"}:
            raise UnsafePath(f"unknown pack source {source!r}: use official, custom or drafts")
        return self.persona_root / source

    @property
    def packs_lock(self) -> Path:
        """The pack-store lock every pack mutation holds."""
        return self.persona_root / ".packs.lock"

    @property
    def runtime_sessions(self) -> Path:
        """Per-session snapshots ``<agentDir>/persona/.runtime-sessions``."""
        return self.persona_root / ".runtime-sessions"
