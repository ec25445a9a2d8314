"""The workspace side: foundation files, declared library paths, older setups.

The workspace is exactly the session's working folder: the foundation never discovers
parent folders or another project's library (P-RESOLVER-19). Every read of a declared
path is confined to the *physical* workspace — a ``..`` or a symlink that leads out is
refused (P-RESOLVER-10) — and nothing here writes.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from persona_mind.persona._errors import Problem, UnsafeWorkspacePath
from persona_mind.persona.packs._frontmatter import YamlProblem, split_frontmatter
from persona_mind.persona.packs._model import PersonaDef
from persona_mind.persona.packs._names import check_relative
from persona_mind.persona.packs._scan import is_inside
from persona_mind.persona.packs._validate import parse_agent

__all__ = (
    "AGENTS_DIR",
    "BASELINE",
    "Baseline",
    "Workspace",
)

AGENTS_DIR = ".pi/agents"
BASELINE = ".pi/agents/_baseline.md"
INDEX_CAP = 16 * 1024
"""How much of one ``_index.md`` goes into a prompt (the rest is read on demand)."""
_AGENT_CAP = 256 * 1024


@dataclass(frozen=True, slots=True)
class Baseline:
    """``.pi/agents/_baseline.md``: shared library paths, skills and shared instructions."""

    docs: tuple[str, ...]
    skills: tuple[str, ...]
    body: str


@dataclass(frozen=True, slots=True)
class Workspace:
    """One working folder, as given (never a parent)."""

    root: Path

    @property
    def real(self) -> str:
        """The physical workspace path every declared path must stay inside."""
        return os.path.realpath(self.root)

    @property
    def key(self) -> str:
        """A stable, file-name-safe key: ``<folder-slug>-<hash of the real path>``."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.root.name.lower()).strip("-")[:32] or "root"
        return f"{slug}-{hashlib.sha256(self.real.encode()).hexdigest()[:10]}"

    def confine(self, rel: str) -> Path:
        """The physical path of a declared relative path, refusing any escape."""
        why = check_relative(rel)
        if why is not None:
            raise UnsafeWorkspacePath(f"workspace path {rel!r} {why}")
        path = self.root / rel
        if not is_inside(os.path.realpath(path), self.real):
            raise UnsafeWorkspacePath(
                f"workspace path {rel!r} leads outside the workspace through a symlink; "
                "point it at a folder inside the project"
            )
        return path

    def read_text(self, rel: str, cap: int = INDEX_CAP) -> str | None:
        """A confined file's text (first ``cap`` bytes), or ``None`` when absent."""
        path = self.confine(rel)
        if not path.is_file():  # absent, a folder, or a FIFO/device that would block a read
            return None
        try:
            with path.open("rb") as fh:
                data = fh.read(cap + 1)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        text = data[:cap].decode("utf-8", errors="replace")
        return text + "\n… (truncated; read the file for the rest)" if len(data) > cap else text

    def signature(self, rels: tuple[str, ...]) -> tuple[tuple[int, int] | None, ...]:
        """Cheap change detection for cached prompts: (mtime_ns, size) per path."""
        out: list[tuple[int, int] | None] = []
        for rel in rels:
            try:
                st = os.stat(self.root / rel)
                out.append((st.st_mtime_ns, st.st_size))
            except OSError:
                out.append(None)
        return tuple(out)

    def baseline(self) -> Baseline | None:
        """The optional shared baseline; malformed frontmatter is reported, not ignored."""
        text = self.read_text(BASELINE, _AGENT_CAP)
        if text is None:
            return None
        try:
            data, body = split_frontmatter(text, BASELINE) if text.startswith("---") else ({}, text)
        except YamlProblem as exc:
            raise UnsafeWorkspacePath(f"{exc}; fix {BASELINE}") from exc

        def strs(key: str) -> tuple[str, ...]:
            value = data.get(key)
            if isinstance(value, str):
                return (value,)
            if isinstance(value, list):
                return tuple(v for v in value if isinstance(v, str))
            return ()

        return Baseline(docs=strs("docs"), skills=strs("skills"), body=body.strip())

    def agent_files(self) -> list[Path]:
        """Top-level ``.pi/agents/*.md`` persona files (``_`` control files excluded)."""
        folder = self.root / AGENTS_DIR
        if not folder.is_dir() or not is_inside(os.path.realpath(folder), self.real):
            return []
        return sorted(
            p
            for p in folder.iterdir()
            if p.suffix == ".md"
            and not p.name.startswith("_")
            and p.is_file()
            and is_inside(os.path.realpath(p), self.real)
        )

    @staticmethod
    def read_capped(path: Path, cap: int = _AGENT_CAP) -> bytes:
        """At most ``cap`` bytes of a regular file (never the whole of a huge one)."""
        with path.open("rb") as fh:
            return fh.read(cap)

    def local_personas(self) -> tuple[list[PersonaDef], list[Problem]]:
        """The personas of ``.pi/agents/`` (older setups and the legacy fallback roster)."""
        personas: list[PersonaDef] = []
        problems: list[Problem] = []
        warnings: list[str] = []
        for path in self.agent_files():
            rel = f"{AGENTS_DIR}/{path.name}"
            try:
                text = self.read_capped(path).decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(Problem("unreadable", rel, f"cannot be read as UTF-8 ({exc})"))
                continue
            persona = parse_agent(rel, text, problems, warnings)
            if persona is not None:
                personas.append(persona)
        return personas, problems

    def is_older_setup(self) -> bool:
        """True when ``.pi/agents/`` has its own top-level generalist (P-MIGRATE-1)."""
        return any(p.is_lead for p in self.local_personas()[0])

    def source_digest(self) -> str:
        """Digest of the older setup's files (migration detects a changed source by it)."""
        h = hashlib.sha256()
        for path in self.agent_files():
            h.update(path.name.encode())
            h.update(self.read_capped(path))
        return h.hexdigest()
