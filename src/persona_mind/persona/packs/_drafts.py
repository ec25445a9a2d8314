"""Draft-based authoring: create, edit, preview, apply, cancel (P-PACK-9..15, P-PACK-38).

A draft is a plain pack tree under ``<store>/drafts/<source>/<name>`` (keyed by the ref it
targets, so ``official/x`` and ``custom/x`` can be edited at once) that the user (or an
assisting Pi) edits directly. Nothing changes until ``apply``: it validates the draft,
refuses when the active pack moved since the draft was staged (no silent overwrite of
work), and swaps the new content in atomically. A draft never activates anything.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from msgspec.structs import replace as evolve

from persona_mind.persona._errors import (
    AmbiguousPackName,
    DraftConflict,
    PackInvalid,
    PackNotFound,
)
from persona_mind.persona.packs._fsio import copy_tree, stage_path
from persona_mind.persona.packs._lifecycle import install_tree, roster_line
from persona_mind.persona.packs._model import Pack
from persona_mind.persona.packs._names import is_valid_slug
from persona_mind.persona.packs._scan import scan_tree
from persona_mind.persona.packs._state import (
    DraftRecord,
    PackRecord,
    draft_dir,
    draft_key,
    is_store_ref,
)
from persona_mind.persona.packs._store import PackStore, split_ref
from persona_mind.persona.packs._validate import digest_files, load_pack
from persona_mind.persona.plans._change import Change, digest_of

__all__ = (
    "draft_existing",
    "draft_for_target",
    "prepare_apply",
    "prepare_cancel",
    "prepare_create",
    "prepare_edit",
    "preview_draft",
)

MAX_PREVIEW_LINES = 400

_TEMPLATE = {
    "pack.yaml": "schema: 2\nname: {name}\nversion: 0.1.0\ndescription: {name} team — "
    "describe what this team is for.\n",
    "agents/{name}-lead.md": "---\nname: {name}-lead\nrole: generalist\ndescription: Leads "
    "the {name} team and synthesizes its work.\n---\nYou lead the {name} team. Answer directly "
    "when shared context is enough; consult a specialist with persona_consult when their "
    "expertise would change the answer, then write the synthesis yourself.\n",
    "agents/{name}-specialist.md": "---\nname: {name}-specialist\nrole: specialist\n"
    "description: Replace with this specialist's focus.\n---\nYou are the {name} team's "
    "specialist. Answer from your declared specialty and say when a question is outside it.\n",
    "references/README.md": "Put the documents this team's personas should know about here, "
    "then list them in each persona's `packDocs`.\n",
}


def _draft_dir(store: PackStore, key: str) -> Path:
    """The folder of the draft keyed ``key`` (validated: keys from ``store.json`` are
    untrusted, issue 15 item 4)."""
    return draft_dir(store.root, key)


def draft_for_target(store: PackStore, target: str) -> tuple[str, DraftRecord] | None:
    """The staged draft (key, record) that will replace or create ``target``, if any."""
    drafts = store.state().drafts
    for key, rec in drafts.items():
        if rec.target == target:
            return key, rec
    return None


def draft_existing(store: PackStore, name: str) -> tuple[str, DraftRecord] | None:
    """The draft the user means by ``name``: ``official/x``, ``custom/x`` or an unambiguous
    bare ``x`` (both ``official/x`` and ``custom/x`` staged: refused, never guessed)."""
    if "/" in name:
        if not is_store_ref(name):
            raise PackNotFound(
                f"{name!r} is not a valid draft name; use official/<name>, custom/<name> "
                "or a bare name"
            )
        return draft_for_target(store, name)
    if not is_valid_slug(name):
        raise PackNotFound(f"{name!r} is not a valid draft name (lowercase, digits, '.-_')")
    found = [
        (key, rec) for key, rec in store.state().drafts.items() if split_ref(rec.target)[1] == name
    ]
    if len(found) > 1:
        raise AmbiguousPackName(name, tuple(sorted(rec.target for _, rec in found)))
    return found[0] if found else None


def prepare_create(store: PackStore, name: str) -> Change:
    """Stage a blank draft for a new ``custom/<name>``."""
    if not is_valid_slug(name):
        raise PackNotFound(f"{name!r} is not a valid pack name (lowercase, digits, '.-_')")
    target = f"custom/{name}"
    key = draft_key(target)
    if target in store.installed_refs():
        raise DraftConflict(f"{target} already exists; use `/persona pack edit {target}`")
    if (staged := draft_for_target(store, target)) is not None:
        raise DraftConflict(
            f"a draft for {target} is already staged at "
            f"{_draft_dir(store, staged[0])}; preview, apply or cancel it"
        )
    before = digest_of("create", target, target in store.installed_refs(), staged)

    def execute() -> str:
        draft = _draft_dir(store, key)
        with store.mutation(f"create {name}") as state:
            if any(r.target == target for r in state.drafts.values()) or (
                target in store.installed_refs()
            ):
                raise DraftConflict(f"{target} or its draft appeared meanwhile")
            stage = stage_path(draft)
            for rel, text in _TEMPLATE.items():
                store.files.atomic_write(
                    stage / rel.format(name=name), text.format(name=name).encode()
                )
            store.files.swap_in(stage, draft)
            rec = DraftRecord(target=target, base_digest="", createdAt=store.now_iso())
            store.save(evolve(state, drafts={**state.drafts, key: rec}))
        return (
            f"Staged a draft for {target} at {draft}. Edit pack.yaml, agents/*.md and "
            f"references/** there, then `/persona pack preview {target}` and "
            f"`/persona pack apply {target}`."
        )

    return Change(
        action="pack.create",
        summary=f"Stage an inactive draft for a new pack {target} at {_draft_dir(store, key)}.",
        digest=before,
        execute=execute,
        details={"ref": target, "draft": str(_draft_dir(store, key))},
    )


def prepare_edit(store: PackStore, pack_name: str) -> Change:
    """Copy an installed pack into ``drafts/<name>`` for editing."""
    ref = store.resolve(pack_name)
    key = draft_key(ref)
    if (staged := draft_for_target(store, ref)) is not None:
        raise DraftConflict(
            f"a draft for {ref} is already staged at {_draft_dir(store, staged[0])}; "
            "keep editing it, or preview, apply or cancel it"
        )
    pack = store.load(ref)
    before = digest_of("edit", ref, pack.digest, staged)

    def execute() -> str:
        draft = _draft_dir(store, key)
        with store.mutation(f"edit {ref}") as state:
            current = store.load(ref)
            again = next(((k, r) for k, r in state.drafts.items() if r.target == ref), None)
            if digest_of("edit", ref, current.digest, again) != before:
                raise DraftConflict(f"{ref} or its draft changed meanwhile; try again")
            stage = stage_path(draft)
            copy_tree(store.files, current.root, stage, current.files)
            store.files.swap_in(stage, draft)
            rec = DraftRecord(target=ref, base_digest=current.digest, createdAt=store.now_iso())
            store.save(evolve(state, drafts={**state.drafts, key: rec}))
        return (
            f"Staged a draft of {ref} at {draft}. Nothing changes until "
            f"`/persona pack apply {ref}`."
        )

    return Change(
        action="pack.edit",
        summary=f"Copy {ref} into an inactive draft at {_draft_dir(store, key)} for editing.",
        digest=before,
        execute=execute,
        details={"ref": ref, "draft": str(_draft_dir(store, key))},
    )


def _require_draft(store: PackStore, name: str) -> tuple[str, DraftRecord]:
    found = draft_existing(store, name)  # the name is checked before anything else
    if found is None or not _draft_dir(store, found[0]).is_dir():
        raise DraftConflict(
            f"no draft {name!r} is staged; start one with `/persona pack edit {name}` "
            f"or `/persona pack create {name}`"
        )
    return found


def _diff(old: Pack | None, draft_root: Path, draft_files: list[str]) -> list[str]:
    old_files = set(old.files) if old else set()
    lines: list[str] = []
    for rel in sorted(old_files | set(draft_files)):
        a = (old.root / rel).read_bytes() if old and rel in old_files else b""
        b = (draft_root / rel).read_bytes() if rel in draft_files else b""
        if a == b:
            continue
        try:
            ta, tb = a.decode("utf-8"), b.decode("utf-8")
        except UnicodeDecodeError:
            lines.append(
                f"Binary file {rel} {'added' if not a else 'removed' if not b else 'changed'}"
            )
            continue
        lines.extend(
            difflib.unified_diff(
                ta.splitlines(),
                tb.splitlines(),
                f"a/{rel}" if rel in old_files else "/dev/null",
                f"b/{rel}" if rel in draft_files else "/dev/null",
                lineterm="",
            )
        )
    return lines


def file_changes(active: Pack | None, staged: Pack) -> str:
    """``2 added (a, b), 1 changed (c), 0 removed`` — the file-level effect of an apply."""
    old = set(active.files) if active else set()
    new = set(staged.files)
    changed = sorted(
        rel
        for rel in old & new
        if active is not None
        and (active.root / rel).read_bytes() != (staged.root / rel).read_bytes()
    )
    parts = []
    for label, names in (
        ("added", sorted(new - old)),
        ("changed", changed),
        ("removed", sorted(old - new)),
    ):
        shown = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        parts.append(f"{len(names)} {label}" + (f" ({shown})" if names else ""))
    return ", ".join(parts)


def preview_draft(store: PackStore, name: str) -> str:
    """A diff of the draft against the active pack, and what ``apply`` would say (read-only)."""
    key, rec = _require_draft(store, name)
    draft = _draft_dir(store, key)
    active = store.load(rec.target) if rec.target in store.installed_refs() else None
    try:
        staged = load_pack(
            draft,
            "draft",
            expected_name=split_ref(rec.target)[1],
            digest=False,
            limits=store.limits,
        )
        files = list(staged.files)
        verdict = f"Valid: {roster_line(staged)}."
        verdict += "".join(f"\n  note: {w}" for w in staged.warnings)
    except PackInvalid as exc:
        files = sorted(scan_tree(draft, store.limits).files)  # never through an escape
        verdict = f"apply will refuse this draft until fixed:\n{exc}"
    diff = _diff(active, draft, files)
    if len(diff) > MAX_PREVIEW_LINES:
        diff = [*diff[:MAX_PREVIEW_LINES], f"… {len(diff) - MAX_PREVIEW_LINES} more diff lines"]
    body = "\n".join(diff) if diff else "(no changes against the active pack)"
    return f"Draft {draft} → {rec.target}\n{verdict}\n\n{body}"


def prepare_apply(store: PackStore, name: str) -> Change:
    """Validate the draft and describe replacing (or creating) its target (P-PACK-12)."""
    key, rec = _require_draft(store, name)
    draft = _draft_dir(store, key)
    bare = split_ref(rec.target)[1]
    staged = load_pack(draft, "draft", expected_name=bare, limits=store.limits)
    exists = rec.target in store.installed_refs()
    current = store.load(rec.target).digest if exists else ""
    if current != rec.base_digest:
        raise DraftConflict(
            f"{rec.target} changed since its draft was staged; applying would discard "
            f"those changes. Cancel the draft and `/persona pack edit {rec.target}` again"
        )
    before = digest_of("apply", key, rec, staged.digest, current)

    def execute() -> str:
        with store.mutation(f"apply {rec.target}") as state:
            now = load_pack(draft, "draft", expected_name=bare, limits=store.limits)
            cur = store.load(rec.target).digest if rec.target in store.installed_refs() else ""
            if digest_of("apply", key, state.drafts.get(key), now.digest, cur) != before:
                raise DraftConflict(
                    f"the draft of {rec.target} or the pack changed since the preview"
                )
            applied = install_tree(store, now, rec.target)
            store.files.remove_tree(draft)
            old = state.packs.get(rec.target)
            if old is None:
                record = PackRecord(
                    origin="create",
                    version=applied.manifest.version,
                    digest=applied.digest,
                    updatedAt=store.now_iso(),
                )
            elif old.origin == "catalog":
                record = old  # keep the install digest: applied edits are local edits
            else:
                record = evolve(
                    old,
                    version=applied.manifest.version,
                    digest=applied.digest,
                    updatedAt=store.now_iso(),
                )
            store.save(
                evolve(
                    state,
                    packs={**state.packs, rec.target: record},
                    drafts={k: v for k, v in state.drafts.items() if k != key},
                )
            )
        return (
            f"Applied the draft to {rec.target}. No session changed: bound sessions keep "
            "their snapshot until `/persona team refresh`."
        )

    verb = "Replace the active content of" if exists else "Create"
    active = store.load(rec.target) if exists else None
    return Change(
        action="pack.apply",
        summary=f"{verb} {rec.target} from its draft ({roster_line(staged)}); "
        f"{file_changes(active, staged)}.",
        digest=before,
        execute=execute,
        details={"ref": rec.target, "draft": str(draft), "digest": staged.digest},
    )


def prepare_cancel(store: PackStore, name: str) -> Change:
    """Discard a staged draft."""
    key, rec = _require_draft(store, name)
    draft = _draft_dir(store, key)
    files = sorted(scan_tree(draft, store.limits).files)
    before = digest_of("cancel", key, rec, digest_files(draft, tuple(files)))

    def execute() -> str:
        with store.mutation(f"cancel {rec.target}") as state:
            store.files.remove_tree(draft)
            store.save(evolve(state, drafts={k: v for k, v in state.drafts.items() if k != key}))
        return f"Discarded the draft of {rec.target}; {rec.target} is unchanged."

    return Change(
        action="pack.cancel",
        summary=f"Discard the draft of {rec.target} ({len(files)} files).",
        digest=before,
        execute=execute,
        details={"ref": rec.target, "draft": str(draft)},
    )
