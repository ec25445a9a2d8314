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
    "TooLarge",
    "Workspace",
    "too_large",
)

AGENTS_DIR = ".pi/agents"
BASELINE = ".pi/agents/_baseline.md"
INDEX_CAP = 16 * 1024
"""How much of one ``_index.md`` goes into a prompt (the rest is read on demand)."""
_AGENT_CAP = 256 * 1024


class TooLarge(ValueError):
    """A workspace file over its size limit; the message names the file, its size and the
    limit."""


def too_large(path: Path, cap: int, what: str) -> str:
    """ "is too large: <size>, over the <cap>-byte limit of <what>; …" (after a name)."""
    try:
        size = f"{path.stat().st_size} bytes"
    except OSError:
        size = "larger than that"
    return f"is too large: {size}, over the {cap}-byte limit of {what}; shorten it (not read)"


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

    def read_whole(self, rel: str, cap: int, what: str) -> str | None:
        """A confined file's whole text, or ``None`` when absent; a file over ``cap`` bytes
        is refused as too large, naming the limit (issue 24: a 10 MB manifest was read
        truncated and then reported as invalid YAML)."""
        path = self.confine(rel)
        if not path.is_file():
            return None
        try:
            with path.open("rb") as fh:
                data = fh.read(cap + 1)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        if len(data) > cap:
            raise UnsafeWorkspacePath(f"{rel} {too_large(path, cap, what)}")
        return data.decode("utf-8", errors="replace")

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

    def skipped_agent_files(self) -> list[Problem]:
        """``.pi/agents/*.md`` entries :meth:`agent_files` leaves out, each with why (issue
        24: a symlinked member was skipped by migration without a word): a symlink that
        leads outside the workspace or nowhere, and anything that is not a regular file."""
        folder = self.root / AGENTS_DIR
        if not folder.is_dir() or not is_inside(os.path.realpath(folder), self.real):
            return []
        out: list[Problem] = []
        for p in sorted(folder.iterdir()):
            if p.suffix != ".md" or p.name.startswith("_"):
                continue
            rel = f"{AGENTS_DIR}/{p.name}"
            if p.is_symlink() and not p.exists():
                out.append(Problem("symlink", rel, "is a symlink to nothing; skipped"))
            elif p.is_symlink() and not is_inside(os.path.realpath(p), self.real):
                out.append(
                    Problem(
                        "symlink",
                        rel,
                        "is a symlink that leads outside the workspace; skipped (not read, "
                        "not migrated) — copy the file into .pi/agents instead",
                    )
                )
            elif not p.is_file():
                out.append(Problem("not-a-file", rel, "is not a regular file; skipped"))
        return out

    @staticmethod
    def read_capped(path: Path, cap: int = _AGENT_CAP) -> bytes:
        """At most ``cap`` bytes of a regular file (never the whole of a huge one)."""
        with path.open("rb") as fh:
            return fh.read(cap)

    @staticmethod
    def read_agent(path: Path) -> bytes:
        """A persona file's bytes; one over the persona-file limit is refused as too large
        (naming the limit), never read truncated and then misreported as unclosed
        frontmatter."""
        with path.open("rb") as fh:
            data = fh.read(_AGENT_CAP + 1)
        if len(data) > _AGENT_CAP:
            raise TooLarge(too_large(path, _AGENT_CAP, "a persona file"))
        return data

    def local_personas(self) -> tuple[list[PersonaDef], list[Problem]]:
        """The personas of ``.pi/agents/`` (older setups and the legacy fallback roster)."""
        personas: list[PersonaDef] = []
        problems: list[Problem] = []
        warnings: list[str] = []
        for path in self.agent_files():
            rel = f"{AGENTS_DIR}/{path.name}"
            try:
                text = self.read_agent(path).decode("utf-8")
            except TooLarge as exc:
                problems.append(Problem("too-large", rel, str(exc)))
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(Problem("unreadable", rel, f"cannot be read as UTF-8 ({exc})"))
                continue
            persona = parse_agent(rel, text, problems, warnings)
            if persona is not None:
                personas.append(persona)
        problems += self.skipped_agent_files()
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
