"""The JSON answers of ``persona-mind … --json``, as msgspec Structs (the one definition).

``docs/cli-schema.json`` is generated from :data:`COMMANDS` (``python -m
persona_mind.cli._schema > docs/cli-schema.json``); a test keeps the two equal and
validates every command's real output against the file. Times are ISO 8601 UTC strings;
field names are camelCase like the stores'.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from persona_mind.cli._link import LinkAnswer
from persona_mind.cli._output import ErrorOut, Message
from persona_mind.mind import Explanation
from persona_mind.trace import TraceEvent, TraceSummary

__all__ = ("COMMANDS", "FactOut", "schema_document")

# ruff: noqa: N815 - camelCase JSON field names


class FactOut(msgspec.Struct, kw_only=True):
    """One memory fact and where it lives."""

    id: str
    tier: str
    kind: str
    text: str
    tags: list[str]
    status: str
    recordedAt: str | None
    expiresAt: str | None
    source: str | None = None
    persona: str | None = None
    supersededBy: str | None = None
    origin: str = "unknown"
    """Who wrote the words (docs/mind.md, "Origin"); ``unknown`` for rows from before."""
    confirmed: bool = False


class RecallHit(FactOut, kw_only=True):
    """A fact that matched a recall, with its ranking score and the reason it ranked."""

    score: float
    reason: str


class BacklogOut(msgspec.Struct, kw_only=True):
    id: str
    text: str
    status: str
    tags: list[str]
    createdAt: str | None
    expiresAt: str | None
    remindAt: str | None = None
    closedAt: str | None = None


class Remembered(msgspec.Struct, kw_only=True):
    created: bool
    fact: FactOut
    mayUpdate: list[str] = []
    """Ids of stored facts this one likely updates (named with a supersede offer)."""


class Recalled(msgspec.Struct, kw_only=True):
    query: str
    hits: list[RecallHit]


class FactDoc(msgspec.Struct, kw_only=True):
    fact: FactOut


class Superseded(msgspec.Struct, kw_only=True):
    retired: str
    fact: FactOut


class Listed(msgspec.Struct, kw_only=True):
    facts: list[FactOut]
    backlog: list[BacklogOut] | None


class Injection(msgspec.Struct, kw_only=True, omit_defaults=True):
    text: str
    tokens: int
    ids: list[str]
    disclosures: list[str]
    explanation: Explanation | None = None
    """With ``--explain``: every candidate, its score parts and the rule that decided."""


class Imported(msgspec.Struct, kw_only=True):
    filesScanned: int
    entriesAdded: int
    conflicts: int
    invalid: int
    unsafe: int
    warnings: list[str]
    summary: str


class ExportLine(msgspec.Struct, kw_only=True):
    """One line of ``memory export`` (JSON Lines; the import format)."""

    v: int
    tier: str
    kind: str
    text: str
    tags: list[str]
    source: str | None
    persona: str | None
    recordedAt: float


class ExportedFact(msgspec.Struct, kw_only=True):
    """A fact of ``memory export --json``: an export line, ``recordedAt`` in ISO like ``list``."""

    v: int
    tier: str
    kind: str
    text: str
    tags: list[str]
    source: str | None
    persona: str | None
    recordedAt: str


class ExportDocument(msgspec.Struct, kw_only=True):
    """``memory export --json``: one document (JSON Lines stay the form without ``--json``)."""

    facts: list[ExportedFact]
    exported: int


class ExportedTo(msgspec.Struct, kw_only=True):
    """``memory export --out FILE``: the lines went to the file."""

    exported: int
    out: str


class RefusedLine(msgspec.Struct, kw_only=True):
    line: int
    reason: str


class LinesImported(msgspec.Struct, kw_only=True):
    """``memory import FILE``."""

    imported: int
    duplicates: int
    written: bool
    refused: list[RefusedLine]


class PackExported(msgspec.Struct, kw_only=True):
    """``pack export``: agent files written, already identical, and notes on what was dropped."""

    written: list[str]
    unchanged: list[str]
    notes: list[str]


class OptimizeAnswer(msgspec.Struct, kw_only=True):
    """``memory optimize …``: the card as text, and its structured data (page, plan,
    receipt or history; the keys are the card's, see docs/mind.md "Consolidation")."""

    title: str
    compact: str
    full: str
    data: dict[str, Any]


class BacklogDoc(msgspec.Struct, kw_only=True):
    item: BacklogOut
    outcome: str


class BacklogList(msgspec.Struct, kw_only=True):
    items: list[BacklogOut]


class PersonaOut(msgspec.Struct, kw_only=True):
    name: str
    label: str
    description: str
    libraries: list[str]
    packReferences: list[str]
    skills: list[str]


class PackOut(msgspec.Struct, kw_only=True):
    ref: str
    version: str | None
    description: str | None
    personas: list[str]
    default: bool = False
    edited: bool = False
    error: str | None = None


class PackList(msgspec.Struct, kw_only=True):
    installed: list[PackOut]
    available: list[PackOut]
    drafts: dict[str, str]


class PackRoster(msgspec.Struct, kw_only=True):
    pack: str
    version: str
    description: str
    personas: list[PersonaOut]


class Resolved(msgspec.Struct, kw_only=True):
    pack: str
    persona: str
    systemPrompt: str


class Finding(msgspec.Struct, kw_only=True):
    level: str
    message: str


class Doctor(msgspec.Struct, kw_only=True):
    findings: list[Finding]
    report: str


class DefaultTeam(msgspec.Struct, kw_only=True):
    default: str | None
    changed: bool


class RoundtableOut(msgspec.Struct, kw_only=True):
    query: str
    team: str
    model: str
    synthesis: str


class StoreCheck(msgspec.Struct, kw_only=True):
    path: str
    ok: bool
    message: str
    version: int | None = None
    sequence: int | None = None
    entries: int | None = None
    bytes: int | None = None
    sha256: str | None = None


class StoreTree(msgspec.Struct, kw_only=True):
    path: str
    ok: int
    corrupt: list[str]
    orphanTemps: int
    repaired: bool
    anomalies: list[str] = []
    """Unexpected things at state paths (with ``--repair``: the ones it could not fix)."""
    invalid: list[str] = []
    """Files that read but break a rule of their kind (duplicate ids, a document that does
    not match its schema); ``--repair`` never decides these for the user."""
    leftAlone: list[str] = []
    """What was not checked, each with the reason (pack trees, Pi's own files, …)."""


class Receipt(msgspec.Struct, kw_only=True):
    id: str
    state: str
    outcome: str
    createdAt: str
    owner: str | None
    note: str


class History(msgspec.Struct, kw_only=True):
    receipts: list[Receipt]
    lines: list[str]


class Holder(msgspec.Struct, kw_only=True):
    lock: str
    holder: str


class ExtensionPath(msgspec.Struct, kw_only=True):
    path: str


class ExtensionInstall(msgspec.Struct, kw_only=True):
    path: str
    python: str
    config: str


class Demo(msgspec.Struct, kw_only=True):
    agentDir: str
    kept: bool
    exitCode: int
    output: list[str]


class Failure(msgspec.Struct, kw_only=True):
    error: ErrorOut


_OPTIMIZE_VERBS = ("inspect", "stage", "apply", "undo", "history")

_PACK_VERBS = (
    "list", "status", "install", "update", "uninstall", "fork", "create", "edit", "preview",
    "apply", "cancel", "delete",
)  # fmt: skip

# Command path (as typed after ``persona-mind``) -> the Struct of its JSON answer.
COMMANDS: dict[str, type[msgspec.Struct]] = {
    "demo": Demo,
    "memory remember": Remembered,
    "memory recall": Recalled,
    "memory read": FactDoc,
    "memory forget": FactDoc,
    "memory promote": FactDoc,
    "memory supersede": Superseded,
    "memory list": Listed,
    "memory inject": Injection,
    "memory import": Imported,
    "memory import (file)": LinesImported,
    "memory export": ExportDocument,
    "memory export --out": ExportedTo,
    "memory link": LinkAnswer,
    **{f"memory optimize {verb}": OptimizeAnswer for verb in _OPTIMIZE_VERBS},
    "memory backlog add": BacklogDoc,
    "memory backlog list": BacklogList,
    "memory backlog take": BacklogDoc,
    "memory backlog done": BacklogDoc,
    "memory backlog drop": BacklogDoc,
    "memory pending": Listed,
    "memory pending approve": Remembered,
    "memory pending drop": Message,
    "pack list": PackList,
    "pack export": PackExported,
    **{f"pack {verb}": Message for verb in _PACK_VERBS if verb != "list"},
    "persona list": PackRoster,
    "persona resolve": Resolved,
    "persona doctor": Doctor,
    "persona default": DefaultTeam,
    "persona migrate": Message,
    "persona onboard": Message,
    "roundtable": RoundtableOut,
    "store check": StoreCheck,
    "store check (directory)": StoreTree,
    "store history": History,
    "store holder": Holder,
    "pi-extension path": ExtensionPath,
    "pi-extension install": ExtensionInstall,
    "trace": TraceEvent,  # JSON Lines: one event per line
    "trace --summary": TraceSummary,
    "(error)": Failure,
}


def schema_document() -> dict[str, Any]:
    """The JSON Schema document written to ``docs/cli-schema.json``."""
    types = list(dict.fromkeys(COMMANDS.values()))
    schemas, components = msgspec.json.schema_components(types, ref_template="#/$defs/{name}")
    by_type = dict(zip(types, schemas, strict=True))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "persona-mind --json answers",
        "description": (
            "One JSON document per command on stdout (trace: JSON Lines, one event a line). "
            "A failed command prints the '(error)' document and exits non-zero."
        ),
        "commands": {name: by_type[t] for name, t in COMMANDS.items()},
        "$defs": components,
    }


if __name__ == "__main__":  # pragma: no cover - regenerates the docs file
    print(json.dumps(schema_document(), indent=2, sort_keys=True))
