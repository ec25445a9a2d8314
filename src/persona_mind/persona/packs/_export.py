"""A pack's personas as Claude Code agent files (``.claude/agents/<name>.md``).

Claude Code reads a subagent from Markdown with YAML frontmatter: ``name`` (lowercase
letters and hyphens), ``description`` (when to delegate to it), optional ``tools`` (a
comma-separated list of its tool names; absent = every tool) and optional ``model``
(``sonnet``, ``opus``, ``haiku`` or ``inherit``); the body is the system prompt.  The body
here is the persona's own prompt (its agent file body) — not the resolved awareness package,
which names Pi paths and tools a Claude Code session does not have.

Mapping, with a note for every loss: Pi tool names map to their Claude Code equivalents
(``read``→``Read``, ``find``→``Glob``…) and unknown ones are dropped; a model id maps to a
Claude Code alias when it names one (``…sonnet…``→``sonnet``), else the field is left out
so the agent inherits the session's model.  The frontmatter is written by
``yaml.safe_dump``, so a description with a colon or a newline stays valid YAML.  Every
file's content is computed and every conflict checked before the first write; a file that
exists with other content is refused unless ``force``.  Each write is atomic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from persona_mind.persona._errors import DraftConflict
from persona_mind.persona.packs._fsio import PackFiles
from persona_mind.persona.packs._model import Pack, PersonaDef

__all__ = ("ExportReport", "claude_code_agent", "export_claude_code")

_TOOLS = {
    "read": "Read",
    "write": "Write",
    "edit": "Edit",
    "bash": "Bash",
    "grep": "Grep",
    "find": "Glob",
    "ls": "LS",
}
_MODELS = ("opus", "sonnet", "haiku")


@dataclass
class ExportReport:
    """Files written, files already identical, and what the mapping could not carry."""

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _agent_name(persona: PersonaDef) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", persona.name.lower()).strip("-") or "persona"


def claude_code_agent(pack: Pack, persona: PersonaDef, notes: list[str]) -> tuple[str, str]:
    """(file name, file text) of one persona's Claude Code agent file."""
    name = _agent_name(persona)
    if name != persona.name:
        notes.append(f"{persona.name}: named {name!r} (Claude Code names use a-z, 0-9 and -)")
    lead = " Leads the team." if persona.is_lead else ""
    front: dict[str, str] = {
        "name": name,
        "description": f"{persona.description}{lead} ({pack.manifest.name} pack)".strip(),
    }
    if persona.tools:
        mapped = [_TOOLS[t] for t in persona.tools if t in _TOOLS]
        dropped = [t for t in persona.tools if t not in _TOOLS]
        if dropped:
            notes.append(f"{persona.name}: tools without a Claude Code equivalent dropped: "
                         f"{', '.join(dropped)}")  # fmt: skip
        if mapped:
            front["tools"] = ", ".join(dict.fromkeys(mapped))
    if persona.model:
        alias = next((m for m in _MODELS if m in persona.model.lower()), None)
        if alias is None:
            notes.append(f"{persona.name}: model {persona.model!r} has no Claude Code alias; "
                         "the agent inherits the session's model")  # fmt: skip
        else:
            front["model"] = alias
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000)
    body = persona.body.strip()
    return f"{name}.md", f"---\n{head}---\n\n{body}\n"


def export_claude_code(
    files: PackFiles, pack: Pack, out_dir: Path, *, force: bool = False
) -> ExportReport:
    """Write every persona of ``pack`` under ``out_dir`` (see the module doc)."""
    report = ExportReport()
    planned: dict[Path, str] = {}
    for persona in pack.personas:
        file_name, text = claude_code_agent(pack, persona, report.notes)
        path = out_dir / file_name
        if path in planned:
            raise DraftConflict(
                f"two personas of {pack.ref} map to {file_name}; rename one in the pack"
            )
        planned[path] = text
    conflicts = []
    for path, text in planned.items():
        if path.exists():
            if path.read_text(encoding="utf-8", errors="replace") == text:
                report.unchanged.append(path)
            elif not force:
                conflicts.append(path)
    if conflicts:
        names = ", ".join(str(p) for p in conflicts)
        raise DraftConflict(
            f"{names} already exist with other content; nothing was written. Pass --force to "
            "overwrite them, or --out another directory"
        )
    for path, text in planned.items():
        if path not in report.unchanged:
            files.atomic_write(path, text.encode("utf-8"))
            report.written.append(path)
    return report
