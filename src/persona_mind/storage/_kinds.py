"""Which kind of file sits where under the agent directory, and how ``store check`` treats it.

Why (issue 24, H1/H2): ``store check`` once decoded every ``*.json`` it met as a memory store
with raw entries. It passed a store whose entries the reader refuses (an invalid UTF-8 pair,
a wrong type, an unknown field), and it reported the pack store's index
``persona/store.json`` — a different schema — as corrupt, after which ``--repair`` moved it
aside and the default team and the draft records were gone. Now every file is checked by
its own kind:

* a **store** (``Snapshot[E]``: memory tiers, backlog, optimizer receipts, the legacy-import
  stamps) is decoded strictly with its real entry type, exactly as the reader decodes it,
  and only a store is ever quarantined or restored;
* a **document** (the pack store's index, migration receipts, Persona's settings) is checked
  by its own schema and never rewritten by ``store check`` — a problem is reported with
  what to do;
* anything else is **left alone**, and the report says so and why (pack trees, session
  snapshots, Pi's own files).

A :class:`Catalog` maps paths relative to the agent directory to kinds by glob rules, first
match wins. The storage engine knows the layout; the entry types and document checks belong
to the domain, so the caller builds the catalog (``storage.layout_catalog``) and hands it in.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_mind.storage._codec import MAX_STORE_BYTES

__all__ = ("ENVELOPE", "OWNED_ROOTS", "Catalog", "FileKind", "anchor_of")

OWNED_ROOTS = ("persona-mind", "persona")
"""The agent directory's entries persona-mind owns; everything else there is Pi's."""


@dataclass(frozen=True, slots=True)
class FileKind:
    """What one file is and how ``store check`` treats it (exactly one of the three roles).

    ``entry_type`` makes it a *store*: ``Snapshot[entry_type]`` of schema ``version``, decoded
    strictly like the reader does, repairable; ``unique`` names an entry field whose values
    must not repeat (duplicate ids). ``document`` makes it a *document* of its own schema:
    the check returns the problem (with what to do) or ``None``; it is never rewritten.
    ``skip`` makes it *left alone*, and says why. ``walk`` marks a directory to walk
    even though its name starts with a dot (``persona/.migrations``).
    """

    name: str
    entry_type: Any = None
    version: int = 1
    unique: str | None = None
    document: Callable[[bytes], str | None] | None = None
    skip: str | None = None
    cap: int = MAX_STORE_BYTES
    walk: bool = False

    @property
    def is_store(self) -> bool:
        return self.entry_type is not None


ENVELOPE = FileKind("a store of a kind persona-mind does not know", entry_type=object)
"""A ``*.json`` no rule names: checked as a store of untyped entries (valid UTF-8 and JSON,
the envelope strict), and the report says its entries' schema was not checked."""


def _match(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match(rest, parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], head) and _match(rest, parts[1:])


def anchor_of(root: Path, configured: Path | None = None) -> Path | None:
    """The agent directory ``root`` belongs to, or ``None`` when it is not recognisably one.

    The ``configured`` agent directory (``$PI_CODING_AGENT_DIR`` or Pi's default) when
    ``root`` is it or lies inside it; else ``root`` itself when it holds ``persona-mind/``
    or ``persona/``; else the parent of the nearest of ``root`` and its ancestors named like
    one of them (``store check <agentDir>/persona-mind/memory`` still knows its files).
    """
    root = Path(root)
    if configured is not None and (root == configured or configured in root.parents):
        return configured
    if any((root / name).is_dir() for name in OWNED_ROOTS):
        return root
    for candidate in (root, *root.parents):
        if candidate.name in OWNED_ROOTS:
            return candidate.parent
    return None


class Catalog:
    """Glob rules on paths relative to the agent directory → :class:`FileKind`.

    ``**`` matches any number of components, other components are ``fnmatch`` patterns
    (case-sensitive); the first rule that matches wins. Outside ``persona-mind/`` and
    ``persona/`` everything is Pi's own and left alone (``foreign``).
    """

    def __init__(self, rules: Sequence[tuple[str, FileKind]], *, foreign: FileKind) -> None:
        self.rules = tuple((tuple(glob.split("/")), kind) for glob, kind in rules)
        self.foreign = foreign

    def kind_of(self, path: Path, agent: Path | None) -> FileKind | None:
        """The kind of ``path``, or ``None`` when no rule names it (or there is no anchor)."""
        if agent is None:
            return None
        try:
            parts = Path(path).relative_to(agent).parts
        except ValueError:
            return None
        if not parts:
            return None
        for pattern, kind in self.rules:
            if _match(pattern, parts):
                return kind
        return self.foreign if parts[0] not in OWNED_ROOTS else None
