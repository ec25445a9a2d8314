"""``persona-mind memory export|import`` and ``persona-mind pack export``: moving things out.

Memory goes out and in as JSON Lines through :meth:`~persona_mind.Memory.export` and
:meth:`~persona_mind.Memory.import_lines` (``docs/mcp.md`` has the format and rules);
``memory import`` without a file keeps its earlier meaning, the import of the older
pi-persona-mind layout.  ``pack export --format claude-code`` writes a pack's personas as
Claude Code agent files (``persona_mind.persona.export_claude_code``).  Exit codes: 0 done,
1 refused (every refused line is printed with its number and reason), 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from persona_mind.cli._output import iso

if TYPE_CHECKING:
    from persona_mind import Memory

__all__ = ("add_memory_parsers", "add_pack_export", "run_memory_exchange")

_TIERS = ("persona", "shared", "project", "stm")


def add_memory_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``memory export`` and ``memory import [FILE]``."""
    ex = sub.add_parser("export", help="write live facts as JSON Lines (default: stdout)")
    ex.add_argument("--out", type=Path, default=None, help="file to write (atomically)")
    ex.add_argument("--tier", action="append", choices=_TIERS, help="only this tier (repeat)")
    ex.add_argument(
        "--by-repo",
        action="store_true",
        help="start with this repository's identity, so `import --by-repo` finds its clone",
    )
    im = sub.add_parser(
        "import",
        help="import JSON Lines from FILE ('-' = stdin); without FILE: the older layout",
    )
    im.add_argument(
        "file",
        nargs="?",
        default=None,
        help="JSON Lines from `memory export` ('-' reads stdin; omitted: the older layout)",
    )
    im.add_argument(
        "--skip-refused",
        action="store_true",
        help="import the acceptable lines even when some are refused (default: none)",
    )
    im.add_argument("--tier", choices=_TIERS, default=None, help="tier for lines without one")
    im.add_argument("--legacy-persona", default=None, help="legacy persona file to map")
    im.add_argument(
        "--by-repo",
        action="store_true",
        help="import into the known checkout of the export's repository (any path)",
    )


def add_pack_export(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``pack export <name> --format claude-code [--out DIR]``."""
    v = sub.add_parser("export", help="write a pack's personas for another agent")
    v.add_argument("--agent-dir", type=Path, help="Pi agent directory (default: Pi's rule)")
    v.add_argument("name", help="installed pack name")
    v.add_argument(
        "--format",
        choices=("claude-code",),
        default="claude-code",
        help="claude-code: .claude/agents/<name>.md files (the only format so far)",
    )
    v.add_argument(
        "--out", type=Path, default=Path(".claude/agents"), help="default: ./.claude/agents"
    )
    v.add_argument("--force", action="store_true", help="overwrite agent files that differ")
    v.set_defaults(func=_run_pack_export)


def wants_exchange(args: argparse.Namespace) -> bool:
    """True for ``memory export`` and ``memory import FILE`` (not the legacy import)."""
    return args.memory_cmd == "export" or (args.memory_cmd == "import" and args.file is not None)


async def run_memory_exchange(args: argparse.Namespace, memory: Memory) -> int:
    """Run ``memory export`` or ``memory import FILE`` on ``memory``'s scope."""
    from persona_mind.storage import DurablePackFiles  # noqa: PLC0415

    if args.memory_cmd == "export":
        lines = await memory.export(args.tier, by_repo=args.by_repo)
        text = "".join(f"{line}\n" for line in lines)
        if args.out is None and getattr(args, "json", False):
            sys.stdout.write(json.dumps(_export_document(lines)) + "\n")
        elif args.out is None:
            sys.stdout.write(text)
        else:
            DurablePackFiles().atomic_write(args.out, text.encode("utf-8"))
            if getattr(args, "json", False):
                print(json.dumps({"exported": len(lines), "out": str(args.out)}))
            else:
                print(f"exported {len(lines)} facts to {args.out}", file=sys.stderr)
        return 0
    if args.file == "-":
        raw = sys.stdin.read()
    else:
        try:
            # a one-shot CLI: nothing else runs on this loop while the file is read
            raw = Path(args.file).read_text(encoding="utf-8")  # noqa: ASYNC240
        except (OSError, UnicodeDecodeError) as err:
            print(f"persona-mind memory import: cannot read {args.file}: {err}", file=sys.stderr)
            return 1
    if args.by_repo:
        where, outcome = await memory.import_by_repository(
            raw.splitlines(), default_tier=args.tier, skip_refused=args.skip_refused
        )
        print(f"importing into the project memory of {where}", file=sys.stderr)
    else:
        outcome = await memory.import_lines(
            raw.splitlines(), default_tier=args.tier, skip_refused=args.skip_refused
        )
    failed = bool(outcome.refused) and not outcome.written
    if getattr(args, "json", False):
        print(json.dumps({
            "imported": outcome.imported,
            "duplicates": outcome.duplicates,
            "written": outcome.written,
            "refused": [{"line": r.line, "reason": r.reason} for r in outcome.refused],
        }))  # fmt: skip
        return 1 if failed else 0
    for refused in outcome.refused:
        print(f"line {refused.line}: refused: {refused.reason}", file=sys.stderr)
    print(f"import: {outcome.summary()}")
    if failed:
        print("Fix or remove the refused lines, or pass --skip-refused.", file=sys.stderr)
        return 1
    return 0


def _export_document(lines: list[str]) -> dict[str, object]:
    """``memory export --json``: one document, with ``recordedAt`` in ISO like ``memory list``.

    The JSON Lines form (no ``--json``, or ``--out``) stays the exchange format ``memory
    import`` reads back, epoch seconds included."""
    facts = []
    for line in lines:
        row = json.loads(line)
        if isinstance(row.get("recordedAt"), (int, float)):
            row["recordedAt"] = iso(float(row["recordedAt"]))
        facts.append(row)
    return {"facts": facts, "exported": len(facts)}


def _run_pack_export(args: argparse.Namespace) -> int:
    from persona_mind.clock import MonotonicClock  # noqa: PLC0415
    from persona_mind.errors import PersonaMindError  # noqa: PLC0415
    from persona_mind.persona import (  # noqa: PLC0415
        PackStore,
        default_agent_dir,
        export_claude_code,
    )
    from persona_mind.storage import DurablePackFiles  # noqa: PLC0415

    files = DurablePackFiles()
    store = PackStore(args.agent_dir or default_agent_dir(), files=files, clock=MonotonicClock())
    try:
        pack = store.load(store.resolve(args.name))
        report = export_claude_code(files, pack, args.out, force=args.force)
    except PersonaMindError as exc:
        print(f"persona-mind: {exc}", file=sys.stderr)
        return 1
    if getattr(args, "json", False):
        print(json.dumps({
            "written": [str(p) for p in report.written],
            "unchanged": [str(p) for p in report.unchanged],
            "notes": report.notes,
        }))  # fmt: skip
        return 0
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    for path in report.written:
        print(f"wrote {path}")
    for path in report.unchanged:
        print(f"unchanged {path}")
    return 0
