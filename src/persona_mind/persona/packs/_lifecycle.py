"""The pack lifecycle verbs that act on whole packs: install, update, uninstall, delete, fork.

Each ``prepare_*`` validates and describes without changing anything; its ``execute``
re-checks under the store lock (the world may have moved since), stages the new tree and
swaps it in. Removal is permanent and clears the default if it named the pack (P-PACK-31..33).
"""

from __future__ import annotations

from dataclasses import replace

from msgspec.structs import replace as evolve

from persona_mind.persona._errors import DraftConflict, PackNotFound, UpdateRefused
from persona_mind.persona.packs._fsio import copy_tree, stage_path
from persona_mind.persona.packs._model import Pack, PackSource
from persona_mind.persona.packs._names import is_valid_slug
from persona_mind.persona.packs._render import dump_yaml
from persona_mind.persona.packs._state import PackRecord, StoreState, draft_dir
from persona_mind.persona.packs._store import PackStore, split_ref
from persona_mind.persona.packs._validate import SEMVER_RE, load_pack
from persona_mind.persona.plans._change import Change, digest_of

__all__ = (
    "compare_versions",
    "install_tree",
    "prepare_delete",
    "prepare_fork",
    "prepare_install",
    "prepare_uninstall",
    "prepare_update",
    "roster_line",
)


def roster_line(pack: Pack) -> str:
    """``[G] lead, spec-a, spec-b`` — the roster as list views show it."""
    return ", ".join(p.label for p in pack.personas)


def _semver(version: str) -> tuple[tuple[int, int, int], str | None]:
    match = SEMVER_RE.fullmatch(version)
    assert match is not None  # validated manifests only
    major, minor, patch, pre = match.groups()
    return (int(major), int(minor), int(patch)), pre


def compare_versions(new: str, old: str) -> str | None:
    """Why ``new`` is not a valid update over ``old``, or ``None`` (P-PACK-28)."""
    (new_core, new_pre), (old_core, _) = _semver(new), _semver(old)
    if new_pre is not None:
        return f"{new} is a pre-release; updates need a stable version"
    if new_core <= old_core:
        return f"the catalog has {new}, which is not higher than the installed {old}"
    return None


def install_tree(store: PackStore, source: Pack, ref: str, *, rename: bool = False) -> Pack:
    """Copy a validated tree into ``ref``'s place atomically and return it re-validated.

    With ``rename`` the staged ``pack.yaml`` gets the target's name (fork, migration) before
    validation, so the swapped-in pack never disagrees with its folder.
    """
    target = store.dir_for(ref)
    stage = stage_path(target)
    try:
        copy_tree(store.files, source.root, stage, source.files)
        if rename:
            # Re-emitted from the validated manifest, never edited by pattern: a line
            # that looks like ``name:`` inside another value cannot be hit (item 5).
            m = source.manifest
            new = dump_yaml(
                {
                    "schema": m.schema,
                    "name": split_ref(ref)[1],
                    "version": m.version,
                    "description": m.description,
                }
            )
            store.files.atomic_write(stage / "pack.yaml", new.encode("utf-8"))
        kind: PackSource = "official" if ref.startswith("official/") else "custom"
        staged = load_pack(stage, kind, expected_name=split_ref(ref)[1], limits=store.limits)
        store.files.swap_in(stage, target)
    except BaseException:
        store.files.remove_tree(stage)
        raise
    return replace(staged, root=target)


def prepare_install(store: PackStore, name: str) -> Change:
    """Install a catalog pack as ``official/<name>`` (bare names resolve only the catalog)."""
    source, bare = split_ref(name)
    if source not in {None, "official"}:
        raise PackNotFound(f"install takes a catalog pack name; {name!r} is not one")
    pack = store.catalog_pack(bare)
    ref = f"official/{bare}"
    if ref in store.installed_refs():
        return _already_installed(store, ref, bare)

    def execute() -> str:
        with store.mutation(f"install {ref}") as state:
            if ref in store.installed_refs():
                raise UpdateRefused(f"{ref} was installed meanwhile; nothing to do")
            fresh = store.catalog_pack(bare)
            installed = install_tree(store, fresh, ref)
            record = PackRecord(
                origin="catalog",
                version=fresh.manifest.version,
                digest=installed.digest,
                updatedAt=store.now_iso(),
            )
            store.save(evolve(state, packs={**state.packs, ref: record}))
        return (
            f"Installed {ref} {fresh.manifest.version} ({roster_line(installed)}). "
            "It is not active anywhere: bind it with `/persona team select "
            f"{ref}`."
        )

    return Change(
        action="pack.install",
        summary=f"Install {ref} {pack.manifest.version} from the bundled catalog: "
        f"{pack.manifest.description} Roster: {roster_line(pack)}.",
        digest=digest_of("install", ref, pack.digest, ref in store.installed_refs()),
        execute=execute,
        details={"ref": ref, "version": pack.manifest.version},
    )


def _already_installed(store: PackStore, ref: str, bare: str) -> Change:
    """Installing what is there is a no-op with a pointer, not a refusal: the user's goal holds."""
    record = store.state().packs.get(ref)
    version = f" {record.version}" if record is not None else ""
    text = (
        f"{ref}{version} is already installed; nothing changed. "
        f"`/persona pack update {bare}` takes a newer catalog version."
    )
    return Change(
        action="pack.install",
        summary=text,
        digest=digest_of("install", ref, "installed"),
        execute=lambda: text,
        details={"ref": ref, "alreadyInstalled": True},
    )


def prepare_update(store: PackStore, name: str, *, discard_edits: bool = False) -> Change:
    """Replace an official pack with a higher stable catalog version (P-PACK-28..30, -36)."""
    ref = store.resolve(name)
    if not ref.startswith("official/"):
        raise UpdateRefused(
            f"{ref} is a custom pack and has no source to update from; "
            f"change it with `/persona pack edit {ref}`"
        )
    record = store.state().packs.get(ref)
    if record is None or record.origin != "catalog":
        raise UpdateRefused(f"{ref} has no recorded catalog source; reinstall it to update")
    bare = split_ref(ref)[1]
    fresh = store.catalog_pack(bare)
    why = compare_versions(fresh.manifest.version, record.version)
    if why is not None:
        raise UpdateRefused(f"cannot update {ref}: {why}")
    current = store.load(ref)
    edited = current.digest != record.digest
    if edited and not discard_edits:
        raise UpdateRefused(
            f"{ref} has local edits; update replaces the pack wholesale and never merges. "
            f"Keep them with `/persona pack fork {ref} <new-name>` first, or accept losing "
            f"them with `/persona pack update {bare} --discard-edits`"
        )
    before = digest_of("update", ref, current.digest, record, fresh.digest, discard_edits)

    def execute() -> str:
        with store.mutation(f"update {ref}") as state:
            now = store.load(ref)
            rec = state.packs.get(ref)
            if digest_of("update", ref, now.digest, rec, fresh.digest, discard_edits) != before:
                raise UpdateRefused(f"{ref} changed since the update was prepared; try again")
            installed = install_tree(store, fresh, ref)
            new = PackRecord(
                origin="catalog",
                version=fresh.manifest.version,
                digest=installed.digest,
                updatedAt=store.now_iso(),
            )
            store.save(evolve(state, packs={**state.packs, ref: new}))
        return (
            f"Updated {ref} from {record.version} to {fresh.manifest.version}. Sessions keep "
            "their retained snapshot until `/persona team refresh`."
        )

    lost = " Local edits will be discarded." if edited else ""
    return Change(
        action="pack.update",
        summary=f"Update {ref} from {record.version} to {fresh.manifest.version}.{lost}",
        digest=before,
        execute=execute,
        details={"ref": ref, "from": record.version, "to": fresh.manifest.version},
    )


def _removal_digest(store: PackStore, verb: str, ref: str, state: StoreState) -> str:
    """What a removal depends on: the pack itself, its drafts, whether it is the default."""
    drafts = sorted(d for d, rec in state.drafts.items() if rec.target == ref)
    installed = ref in store.installed_refs()
    return digest_of(verb, ref, installed, state.packs.get(ref), drafts, state.default == ref)


def _prepare_removal(store: PackStore, name: str, verb: str, source: str) -> Change:
    ref = store.resolve(name)
    if not ref.startswith(f"{source}/"):
        other = "delete" if verb == "uninstall" else "uninstall"
        raise PackNotFound(f"{ref} is not a {source} pack; use `/persona pack {other} {ref}`")
    state = store.state()
    drafts = [d for d, rec in state.drafts.items() if rec.target == ref]
    is_default = state.default == ref
    before = _removal_digest(store, verb, ref, state)

    def execute() -> str:
        with store.mutation(f"{verb} {ref}") as st:
            if _removal_digest(store, verb, ref, st) != before:
                raise DraftConflict(f"the store changed since {verb} was prepared; try again")
            store.files.remove_tree(store.dir_for(ref))
            for draft in drafts:
                store.files.remove_tree(draft_dir(store.root, draft))
            store.save(
                evolve(
                    st,
                    default=None if st.default == ref else st.default,
                    packs={k: v for k, v in st.packs.items() if k != ref},
                    drafts={k: v for k, v in st.drafts.items() if v.target != ref},
                )
            )
        cleared = " The default for new sessions was cleared." if is_default else ""
        return f"Removed {ref} permanently (no archive is kept).{cleared}"

    notes = " It is the default for new sessions; the default will be cleared." * is_default
    notes += f" Its draft ({', '.join(drafts)}) is discarded too." * bool(drafts)
    return Change(
        action=f"pack.{verb}",
        summary=f"Permanently remove {ref}; no archive is kept.{notes} Sessions already "
        "bound keep their retained snapshot.",
        digest=before,
        execute=execute,
        details={"ref": ref, "clears_default": is_default},
    )


def prepare_uninstall(store: PackStore, name: str) -> Change:
    """Remove an official pack (permanent, confirmation-gated)."""
    return _prepare_removal(store, name, "uninstall", "official")


def prepare_delete(store: PackStore, name: str) -> Change:
    """Remove a custom pack (permanent, confirmation-gated)."""
    return _prepare_removal(store, name, "delete", "custom")


def prepare_fork(store: PackStore, source_name: str, new_name: str) -> Change:
    """Copy an installed pack to ``custom/<new_name>`` (never activates it)."""
    ref = store.resolve(source_name)
    if not is_valid_slug(new_name):
        raise PackNotFound(f"{new_name!r} is not a valid pack name (lowercase, digits, '.-_')")
    target = f"custom/{new_name}"
    if target in store.installed_refs():
        raise DraftConflict(f"{target} already exists; pick another name")
    if any(rec.target == target for rec in store.state().drafts.values()):
        raise DraftConflict(f"a draft for {target} exists; apply or cancel it first")
    pack = store.load(ref)
    before = digest_of("fork", ref, pack.digest, target, target in store.installed_refs())

    def execute() -> str:
        with store.mutation(f"fork {ref}") as state:
            current = store.load(ref)
            exists = target in store.installed_refs()
            if digest_of("fork", ref, current.digest, target, exists) != before:
                raise DraftConflict(f"{ref} or {target} changed since the fork was prepared")
            forked = install_tree(store, current, target, rename=True)
            record = PackRecord(
                origin=f"fork:{ref}",
                version=forked.manifest.version,
                digest=forked.digest,
                updatedAt=store.now_iso(),
            )
            store.save(evolve(state, packs={**state.packs, target: record}))
        return f"Forked {ref} into {target}. It is not active anywhere until a team action."

    return Change(
        action="pack.fork",
        summary=f"Copy {ref} ({roster_line(pack)}) into a new custom pack {target}.",
        digest=before,
        execute=execute,
        details={"source": ref, "ref": target},
    )
