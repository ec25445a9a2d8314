"""The catalog of the agent directory's layout: where each kind of file lives.

The engine owns the layout (``storage/_paths.Layout``) and its own files — optimizer
receipts, settle markers, locks, backups, quarantines; the domain owns the schemas of the
rest. :func:`layout_catalog` puts the two together: the caller passes the domain's kinds
(``cli/_storage.py`` builds them from Mind's and Persona's public types) and gets the rules
``store check`` walks by. See ``docs/storage.md`` ("What `store check` knows").
"""

from __future__ import annotations

from persona_mind.storage._history import Receipt
from persona_mind.storage._kinds import Catalog, FileKind

__all__ = ("RECEIPTS", "layout_catalog")

RECEIPTS = FileKind("optimizer receipts", entry_type=Receipt, unique="id")
"""``<store>.optimize-history.json``: a store of :class:`Receipt` (M-OPTIMIZE-HISTORY-1)."""

_PACK_TREES = (
    "pack trees (pack.yaml, personas, references) are not state files; "
    "`persona-mind persona doctor` checks them"
)
_FOREIGN = FileKind(
    "Pi's own", skip="not persona-mind's (Pi's own files and folders are never touched)"
)


def layout_catalog(
    *,
    memory: FileKind,
    backlog: FileKind,
    legacy_import: FileKind,
    pack_index: FileKind,
    migration_receipt: FileKind,
    persona_settings: FileKind,
    projects: FileKind | None = None,
) -> Catalog:
    """Every file kind under ``<agentDir>`` (docs/storage.md "On-disk layout"), given the
    domain's kinds: memory tiers, backlog, the legacy-import stamps, the pack store's index,
    migration receipts, Persona's settings and the project registry (``repositories.json``)."""
    skip = {
        "marker": FileKind(
            "settle marker",
            skip="an optimizer receipt's settle marker; the next apply or "
            "`persona-mind store history reconcile` folds it into the receipts",
        ),
        "packs": FileKind("pack trees", skip=_PACK_TREES),
        "drafts": FileKind(
            "drafts",
            skip="drafts are pack trees being edited; `persona-mind pack preview <pack>` "
            "shows one, `pack cancel` discards it; their records are in persona/store.json",
        ),
        "sessions": FileKind(
            "session snapshots",
            skip="per-session team snapshots; `/persona team select` rewrites a damaged one",
        ),
        "persona": FileKind(
            "persona store file", skip="not a state file of the pack store that is checked here"
        ),
        "legacy": FileKind(
            "older layout",
            skip="the older pi-persona-mind layout: read by `persona-mind memory import`, "
            "never written",
        ),
    }
    rules: list[tuple[str, FileKind]] = [
        ("persona-mind/**/*.optimize-history.json", RECEIPTS),
        ("persona-mind/**/*.optimize-history.json.settled-*", skip["marker"]),
        ("persona-mind/memory/ltm/*.json", memory),
        ("persona-mind/memory/project/*.json", memory),
        ("persona-mind/memory/stm/*.json", memory),
        ("persona-mind/memory/.legacy-import.json", legacy_import),
        *([("persona-mind/memory/repositories.json", projects)] if projects else []),
        ("persona-mind/backlog/*.json", backlog),
        ("persona/store.json", pack_index),
        ("persona/settings.json", persona_settings),
        ("persona/.migrations/*.json", migration_receipt),
        ("persona/official", skip["packs"]),
        ("persona/custom", skip["packs"]),
        ("persona/drafts", skip["drafts"]),
        ("persona/.runtime-sessions", skip["sessions"]),
        ("persona/.migrations", FileKind("migration receipts", walk=True)),
        ("persona/**/*.json", skip["persona"]),
        ("pi-persona-mind", skip["legacy"]),
    ]
    return Catalog(rules, foreign=_FOREIGN)
