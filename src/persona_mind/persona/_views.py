"""Read-only text views: pack list/status, `/persona-list`, team and persona status.

Views derive the ``[G]`` prefix for a pack's lead; stored names and commands never change
(P-PACK-18). They only read, so the tool answers them at once (P-CHAT-PLAN-3).
"""

from __future__ import annotations

from persona_mind.persona._errors import PackInvalid
from persona_mind.persona.binding._session import RESERVED_COMMANDS, SessionState
from persona_mind.persona.packs._lifecycle import roster_line
from persona_mind.persona.packs._model import Pack
from persona_mind.persona.packs._render import code, one_line
from persona_mind.persona.packs._state import draft_dir
from persona_mind.persona.packs._store import PackStore

__all__ = ("pack_list", "pack_status", "persona_list", "persona_status", "team_status")


def pack_list(store: PackStore) -> str:
    """`/persona pack list`: installed and available sections with rosters (P-PACK-25)."""
    state = store.state()
    installed = store.installed()
    lines = ["Installed packs:"]
    if not installed:
        lines.append("  (none — install one from the catalog below)")
    for item in installed:
        marks = []
        if state.default == item.ref:
            marks.append("default")
        if item.edited:
            marks.append("local edits")
        suffix = f" [{', '.join(marks)}]" if marks else ""
        if item.pack is None:
            lines.append(f"  {item.ref} — INVALID{suffix}: {item.error}")
            continue
        lines.append(
            f"  {item.ref} {item.pack.manifest.version}{suffix} — "
            f"{one_line(item.pack.manifest.description)}"
        )
        lines.append(f"    roster: {roster_line(item.pack)}")
    names = {i.ref.split("/", 1)[1] for i in installed if i.ref.startswith("official/")}
    lines.append("Available in the bundled catalog:")
    available = [p for p in store.catalog() if p.name not in names]
    if not available:
        lines.append("  (every catalog pack is installed)")
    for pack in available:
        lines.append(
            f"  {pack.name} {pack.manifest.version} — {one_line(pack.manifest.description)}"
        )
        lines.append(f"    roster: {roster_line(pack)}")
    if state.drafts:
        lines.append("Drafts:")
        lines.extend(
            f"  {draft_dir(store.root, key)} → {rec.target}"
            for key, rec in sorted(state.drafts.items())
        )
    return "\n".join(lines)


def _pack_detail(pack: Pack) -> list[str]:
    lines = [f"{pack.ref} {pack.manifest.version} — {one_line(pack.manifest.description)}"]
    for p in pack.personas:
        lines.append(f"  {p.label} ({p.role}) — {one_line(p.description)}")
    lines.extend(f"  note: {one_line(w)}" for w in pack.warnings)
    return lines


def pack_status(store: PackStore, name: str | None) -> str:
    """`/persona pack status [name]`: one pack in detail, or a summary of the store."""
    state = store.state()
    if not name:
        refs = store.installed_refs()
        return (
            f"Pack store {store.root}: {len(refs)} installed, {len(state.drafts)} draft(s); "
            f"default for new sessions: {state.default or 'none'}"
        )
    ref = store.resolve(name)
    record = state.packs.get(ref)
    try:
        pack = store.load(ref)
    except PackInvalid as exc:
        return f"{ref} is installed but invalid:\n{exc}"
    lines = _pack_detail(pack)
    if record:
        lines.append(f"  source: {record.origin}; recorded version {record.version}")
    if ref.startswith("official/") and record and pack.digest != record.digest:
        lines.append("  local edits: yes (update will refuse without --discard-edits)")
    draft = next((d for d, r in state.drafts.items() if r.target == ref), None)
    if draft:
        lines.append(f"  draft staged: {draft_dir(store.root, draft)}")
    if state.default == ref:
        lines.append("  default for new sessions")
    return "\n".join(lines)


def team_status(state: SessionState) -> str:
    """This session's team binding in one paragraph."""
    scope = state.scope
    if scope.state == "bound" and scope.pack is not None and scope.record is not None:
        return (
            f"Team: {scope.pack.ref} {scope.pack.manifest.version} (retained snapshot "
            f"{scope.record.revision[:12]}; store changes arrive with `/persona team refresh`)."
        )
    texts = {
        "none": "Team: none (chosen for this session).",
        "unbound": "Team: none. Pick one with `/persona team select <pack>`.",
        "missing-bound": "Team: its retained snapshot is missing. `/persona team refresh` or "
        "`/persona team select <pack>`.",
        "migration-required": "Team: none — this workspace has an older setup "
        "(migration-required). Migrate it (`/persona migrate preview`) or pick an installed "
        "team (`/persona team select <pack>`).",
        "legacy": "Team: the workspace's own .pi/agents personas (no team, no default).",
    }
    text = texts.get(scope.state, scope.state)
    return f"{text} {scope.note}".strip()


def persona_status(state: SessionState) -> str:
    """`/persona status`: the active persona (P-ACTIVE-11)."""
    active = state.active
    who = (
        f"Active persona: {active.name} ({active.identity})."
        if active
        else (
            "No active persona. `/persona use <name>` activates one; "
            "`/persona-list` shows the team."
        )
    )
    return f"{who}\n{team_status(state)}"


def persona_list(state: SessionState) -> str:
    """`/persona-list`: read-only discovery of this session's team (P-ACTIVE-10)."""
    pack = state.scope.pack
    if pack is None or not state.scope.runnable:
        return team_status(state)
    lines = [f"Team {pack.ref} {pack.manifest.version} — {one_line(pack.manifest.description)}"]
    for p in pack.personas:
        if p.name in state.aliases:
            how = f"/{p.name}"
        else:
            why = "reserved" if p.name in RESERVED_COMMANDS else "name collides"
            how = f"/persona use {p.name} ({why})"
        active = " ← active" if state.active and state.active.name == p.name else ""
        lines.append(f"{p.label} — {one_line(p.description)}  [{how}]{active}")
        if p.docs:
            lines.append(f"    libraries: {', '.join(code(d) for d in p.docs)}")
        if p.pack_docs:
            lines.append(f"    pack references: {', '.join(code(d) for d in p.pack_docs)}")
        if p.skills:
            lines.append(f"    skills: {one_line(', '.join(p.skills))}")
    return "\n".join(lines)
