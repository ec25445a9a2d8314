"""The pack data model: manifest, persona definitions, a validated pack.

Values only; validation (``_validate``) builds them from disk. A :class:`Pack` is
immutable, so a session's retained snapshot can be shared freely between the resolver,
the command surface and the child runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = (
    "PACK_SCHEMA",
    "Pack",
    "PackManifest",
    "PackSource",
    "PersonaDef",
    "Role",
)

PACK_SCHEMA = 2
Role = Literal["generalist", "specialist"]
PackSource = Literal["official", "custom", "draft", "catalog", "workspace"]


@dataclass(frozen=True, slots=True)
class PackManifest:
    """``pack.yaml``: exactly schema, name, version, description (P-PACK-7, P-PACK-8)."""

    schema: int
    name: str
    version: str
    description: str


@dataclass(frozen=True, slots=True)
class PersonaDef:
    """One ``agents/**/*.md`` file: frontmatter fields plus the Markdown body."""

    name: str
    role: Role
    description: str
    body: str
    path: str
    """Pack-relative path of the agent file (``agents/…/x.md``)."""
    docs: tuple[str, ...] = ()
    pack_docs: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    model: str | None = None

    @property
    def is_lead(self) -> bool:
        """The pack's ``[G]`` lead."""
        return self.role == "generalist"

    @property
    def label(self) -> str:
        """Display name: ``[G] name`` for the lead; the stored name is unchanged (P-PACK-18)."""
        return f"[G] {self.name}" if self.is_lead else self.name


@dataclass(frozen=True, slots=True)
class Pack:
    """A validated pack tree; ``digest`` is the SHA-256 over its files (names and bytes)."""

    source: PackSource
    root: Path
    manifest: PackManifest
    personas: tuple[PersonaDef, ...]
    files: tuple[str, ...]
    digest: str
    warnings: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        """The manifest name (equal to the store directory name for store packs)."""
        return self.manifest.name

    @property
    def ref(self) -> str:
        """``<source>/<name>``."""
        return f"{self.source}/{self.name}"

    @property
    def lead(self) -> PersonaDef | None:
        """The single generalist (``None`` only for a legacy workspace roster)."""
        return next((p for p in self.personas if p.is_lead), None)

    @property
    def specialists(self) -> tuple[PersonaDef, ...]:
        """Every specialist, in roster order."""
        return tuple(p for p in self.personas if not p.is_lead)

    def persona(self, name: str) -> PersonaDef | None:
        """The persona called ``name`` (exact stored name), if any."""
        return next((p for p in self.personas if p.name == name), None)

    @property
    def references(self) -> Path:
        """The pack's reference root, against which ``packDocs`` resolve."""
        return self.root / "references"
