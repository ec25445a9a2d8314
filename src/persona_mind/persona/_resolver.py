"""The resolver: the one place that assembles a persona's awareness (P-RESOLVER-1..8, -20).

Inputs (P-RESOLVER-3): the optional workspace baseline ``.pi/agents/_baseline.md``, the
persona file from the session's retained snapshot, its workspace ``docs``, its
pack-relative ``packDocs`` (against the snapshot's ``references/``), skills, and the team
roster. Output: a prompt that carries the actual ``_index.md`` contents of the shared and
personal libraries (other documents are named, to be read when relevant) and says how to
route work. A ``[G]`` lead sees the roster but never another persona's personal library
(P-RESOLVER-6): only the resolved persona's own ``docs`` are ever read.

Cost: a snapshot never changes, so the pack half of a prompt is cached by snapshot
revision; the workspace half is revalidated on each call with a handful of ``stat``s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from persona_mind.persona._errors import PersonaNotFound, UnsafeWorkspacePath
from persona_mind.persona.packs._model import Pack, PersonaDef
from persona_mind.persona.packs._render import QUOTED_NOTE, code, described
from persona_mind.persona.packs._scan import Limits
from persona_mind.persona.workspace._files import BASELINE, INDEX_CAP, Workspace

__all__ = ("MAX_LISTED", "ResolvedPersona", "Resolver", "identity_of")

MAX_LISTED = 50
"""Files named per ``packDocs`` folder; the rest is summarised as a count."""
MAX_CACHED = 1024
"""Cached prompts kept before the cache starts over (old snapshots are never hit again)."""


def identity_of(pack: Pack, persona: str) -> str:
    """The pack-qualified identity Mind keys memory by: ``<source>/<pack>/<persona>``."""
    return f"{pack.source}/{pack.name}/{persona}"


@dataclass(frozen=True, slots=True)
class ResolvedPersona:
    """A persona's awareness package: what the host or a child runner needs to run it."""

    identity: str
    name: str
    role: str
    description: str
    pack_ref: str
    system_prompt: str
    skills: tuple[str, ...]
    tools: tuple[str, ...]
    model: str | None
    warnings: tuple[str, ...] = ()


def _index_of(text: str | None, label: str) -> str:
    if text is None:
        return f"{label} (no _index.md yet)"
    return f"{label} — index:\n{text.strip()}"


def _pack_docs(pack: Pack, persona: PersonaDef) -> list[str]:
    refs = pack.references
    lines: list[str] = []
    for entry in persona.pack_docs:
        path = refs / entry
        if path.is_dir():
            files = sorted(str(p.relative_to(refs)) for p in path.rglob("*") if p.is_file())
            index = path / "_index.md"
            if index.is_file():
                text = index.read_bytes()[:INDEX_CAP].decode("utf-8", errors="replace")
                lines.append(f"- {code(entry)} — index:\n{text.strip()}")
            else:
                lines.append(f"- {code(entry)} ({len(files)} files)")
            lines.extend(f"  - {code(f)}" for f in files[:MAX_LISTED])
            if len(files) > MAX_LISTED:
                lines.append(f"  - … {len(files) - MAX_LISTED} more")
        else:
            lines.append(f"- {code(entry)}")
    return lines


def _roster(pack: Pack, me: PersonaDef) -> list[str]:
    out = [f"Team: {pack.ref} {pack.manifest.version} — {described(pack.manifest.description)}"]
    for p in pack.personas:
        you = " (you)" if p.name == me.name else ""
        desc = f" — {described(p.description)}" if p.description else ""
        out.append(f"- {p.label}{you}{desc}")
    out.append(QUOTED_NOTE)
    return out


def _routing(me: PersonaDef, pack: Pack) -> str:
    if me.is_lead:
        return (
            "You are this team's [G] lead. Answer directly when the shared context is enough. "
            "When a specialist's expertise would change the answer, ask them with the "
            "`persona_consult` tool (several independent consults may run in parallel), then "
            "write the synthesis yourself. You see the roster and the shared foundations, "
            "not your teammates' personal libraries."
        )
    lead = pack.lead
    to = f" the lead {lead.name}" if lead else " a teammate"
    return (
        "You are a specialist. Answer from your declared specialty; when a question is "
        f"outside it, say so and suggest{to}. Use `persona_consult` when a peer's expertise "
        "is genuinely needed; you remain responsible for your answer."
    )


class Resolver:
    """Resolves personas of a (snapshot) pack for a workspace, with a stat-validated cache."""

    def __init__(self) -> None:
        self._cache: dict[
            tuple[Path, str, str, str],
            tuple[tuple[str, ...], tuple[tuple[int, int] | None, ...], ResolvedPersona],
        ] = {}
        self._pack_half: dict[tuple[Path, str, str], tuple[str, ...]] = {}

    def resolve(self, pack: Pack, name: str, workspace: Workspace) -> ResolvedPersona:
        """The awareness package of ``name`` in ``pack`` (raises :class:`PersonaNotFound`)."""
        key = (pack.root, pack.digest, name, workspace.real)
        hit = self._cache.get(key)
        if hit is not None and pack.digest:
            rels, sig, resolved = hit
            if workspace.signature(rels) == sig:
                return resolved
        persona = pack.persona(name)
        if persona is None:
            raise PersonaNotFound(
                f"{pack.ref} has no persona {name!r} (it has "
                f"{', '.join(p.name for p in pack.personas) or 'none'}); `/persona-list` or "
                f"`persona-mind persona list {pack.ref}` shows the roster"
            )
        rels, resolved = self._assemble(pack, persona, workspace)
        if len(self._cache) >= MAX_CACHED:
            self.clear()
        self._cache[key] = (rels, workspace.signature(rels), resolved)
        return resolved

    def _pack_lines(self, pack: Pack, persona: PersonaDef) -> tuple[str, ...]:
        key = (pack.root, pack.digest, persona.name)
        lines = self._pack_half.get(key) if pack.digest else None
        if lines is None:
            lines = tuple(_pack_docs(pack, persona))
            self._pack_half[key] = lines
        return lines

    def _assemble(
        self, pack: Pack, persona: PersonaDef, ws: Workspace
    ) -> tuple[tuple[str, ...], ResolvedPersona]:
        warnings: list[str] = []
        watched: list[str] = [BASELINE]
        baseline = None
        try:
            baseline = ws.baseline()
        except UnsafeWorkspacePath as exc:
            warnings.append(str(exc))
        sections = [persona.body.strip()]
        if baseline is not None and baseline.body:
            sections.append(f"## Project baseline\n{baseline.body}")
        libs: list[str] = []
        shared = list(baseline.docs if baseline else ())
        cap = Limits().max_list_entries  # the pack limit, applied to the workspace's list
        if len(shared) > cap:
            warnings.append(
                f"{BASELINE} lists {len(shared)} docs; only the first {cap} are used so a "
                "child can still run this persona"
            )
            shared = shared[:cap]
        shared += [d for d in persona.docs if d.startswith("library/shared")]
        personal = [d for d in persona.docs if not d.startswith("library/shared")]
        for kind, entries in (("Shared library", shared), ("Personal library", personal)):
            for rel in dict.fromkeys(entries):
                libs.append(self._library(ws, kind, rel, watched, warnings))
        if libs:
            sections.append(
                "## Libraries\n" + "\n".join(libs) + "\nRead other documents in these folders "
                "when they are relevant; the index tells you what exists."
            )
        pack_lines = self._pack_lines(pack, persona)
        if pack_lines:
            sections.append(
                f"## Pack references\nRead these from the pack's references at "
                f"{pack.references}:\n" + "\n".join(pack_lines)
            )
        skills = tuple(dict.fromkeys((*(baseline.skills if baseline else ()), *persona.skills)))
        if skills:
            shown = ", ".join(described(s) for s in skills)
            sections.append("## Skills\nUse these skills when relevant: " + shown)
        sections.append(
            "## Team\n" + "\n".join(_roster(pack, persona)) + "\n\n" + _routing(persona, pack)
        )
        kind = "[G] lead" if persona.is_lead else "specialist"
        header = f"# Persona: {persona.name} — {kind} of {pack.ref}"
        resolved = ResolvedPersona(
            identity=identity_of(pack, persona.name),
            name=persona.name,
            role=persona.role,
            description=persona.description,
            pack_ref=pack.ref,
            system_prompt="\n\n".join([header, *sections]),
            skills=skills,
            tools=persona.tools,
            model=persona.model,
            warnings=tuple(warnings),
        )
        return tuple(watched), resolved

    @staticmethod
    def _library(
        ws: Workspace, kind: str, rel: str, watched: list[str], warnings: list[str]
    ) -> str:
        label = f"{kind} {code(rel)}"
        try:
            path = ws.confine(rel)
        except UnsafeWorkspacePath as exc:
            warnings.append(str(exc))
            return f"{label} (refused: outside the workspace)"
        watched.append(rel)
        if path.is_dir():
            index = f"{rel.rstrip('/')}/_index.md"
            watched.append(index)
            try:
                text = ws.read_text(index)
            except UnsafeWorkspacePath as exc:
                # One escaping symlink skips that one document, never the whole persona
                # (issue 15 item 6); the warning reaches doctor and the activation reply.
                warnings.append(f"{exc}; skipped")
                return f"{label} (its _index.md was skipped: it leads outside the workspace)"
            return _index_of(text, label)
        if path.is_file():
            return f"{label} (a file; read it when relevant)"
        return f"{label} (not present yet)"

    def clear(self) -> None:
        """Drop every cached prompt (tests, or after a workspace move)."""
        self._cache.clear()
        self._pack_half.clear()
