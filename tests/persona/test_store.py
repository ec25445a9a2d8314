"""Pack store lifecycle: the twelve verbs' semantics (group P-PACK)."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from persona_mind.persona import (
    AmbiguousPackName,
    DraftConflict,
    PackInvalid,
    PackNotFound,
    PackStore,
    StoreStateCorrupt,
    UpdateRefused,
)
from persona_mind.persona._views import pack_list
from persona_mind.persona.packs._drafts import (
    prepare_apply,
    prepare_cancel,
    prepare_create,
    prepare_edit,
    preview_draft,
)
from persona_mind.persona.packs._lifecycle import (
    compare_versions,
    prepare_delete,
    prepare_fork,
    prepare_install,
    prepare_uninstall,
    prepare_update,
)
from persona_mind.persona.packs._store import CATALOG_DIR
from tests.persona._wiring import pack_store
from tests.persona.conftest import write_pack


@pytest.fixture
def store(agent_dir: Path, catalog: Path) -> PackStore:
    """A store over the test catalog."""
    return pack_store(agent_dir, catalog_dir=catalog)


def _bump_catalog(catalog: Path, version: str) -> None:
    manifest = catalog / "demo" / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("1.0.0", version), encoding="utf-8")


def test_store_layout_lives_under_agent_dir(store: PackStore, agent_dir: Path) -> None:
    """P-PACK-1/2/37: one global store under the agent dir, one fixed layout; P-PACK-27,
    P-ONBOARD-4: no onboarding or project foundation is needed for any pack operation."""
    prepare_install(store, "demo").execute()
    prepare_create(store, "mine").execute()
    prepare_fork(store, "demo", "forked").execute()
    for sub in ("official/demo", "custom/forked", "drafts/custom/mine"):
        assert (agent_dir / "persona" / sub / "pack.yaml").is_file()


def test_prepare_changes_nothing(store: PackStore, agent_dir: Path) -> None:
    """P-PACK-14 / P-CHAT-PLAN-4: preparing a change writes nothing."""
    change = prepare_install(store, "demo")
    assert not (agent_dir / "persona" / "official").exists()
    assert "demo" in change.summary
    change.execute()
    assert store.installed_refs() == ["official/demo"]


def test_bare_install_names_resolve_only_the_catalog(store: PackStore) -> None:
    """P-PACK-26, P-HOST-13: only the bundled offline catalog; no network source."""
    with pytest.raises(PackNotFound, match="network catalogs are not supported"):
        prepare_install(store, "nonexistent")
    with pytest.raises(PackNotFound):
        prepare_install(store, "custom/demo")


def test_install_twice_points_to_update(store: PackStore) -> None:
    """Installing an installed pack changes nothing and points at the update route."""
    prepare_install(store, "demo").execute()
    before = store.state()
    again = prepare_install(store, "demo")
    assert "already installed; nothing changed" in again.execute()
    assert "/persona pack update demo" in again.summary
    assert store.state() == before


def test_ambiguous_bare_name_is_never_guessed(store: PackStore) -> None:
    """P-PACK-4/5: official/x and custom/x make `x` ambiguous; qualified names work."""
    prepare_install(store, "demo").execute()
    prepare_fork(store, "official/demo", "other").execute()
    prepare_install(store, "other").execute()
    with pytest.raises(AmbiguousPackName) as info:
        store.resolve("other")
    assert info.value.candidates == ("official/other", "custom/other")
    assert store.resolve("custom/other") == "custom/other"
    assert store.resolve("demo") == "official/demo"


@pytest.mark.parametrize(
    ("new", "old", "ok"),
    [
        ("1.0.1", "1.0.0", True),
        ("2.0.0", "1.9.9", True),
        ("1.0.0", "1.0.0", False),
        ("0.9.0", "1.0.0", False),
        ("1.1.0-rc.1", "1.0.0", False),
        ("1.0.10", "1.0.9", True),
    ],
)
def test_update_needs_a_higher_stable_semver(new: str, old: str, ok: bool) -> None:
    """P-PACK-28."""
    assert (compare_versions(new, old) is None) is ok


def test_update_from_recorded_source(store: PackStore, catalog: Path) -> None:
    """P-PACK-28: a higher catalog version updates; same version refuses."""
    prepare_install(store, "demo").execute()
    with pytest.raises(UpdateRefused, match="not higher"):
        prepare_update(store, "demo")
    _bump_catalog(catalog, "1.1.0")
    prepare_update(store, "demo").execute()
    assert store.load("official/demo").manifest.version == "1.1.0"
    assert store.state().packs["official/demo"].version == "1.1.0"


def test_update_refuses_over_local_edits_until_discard(store: PackStore, catalog: Path) -> None:
    """P-PACK-29/30/36: local edits block update; --discard-edits replaces wholesale."""
    prepare_install(store, "demo").execute()
    notes = store.dir_for("official/demo") / "references" / "alpha" / "notes.md"
    notes.write_text("my local edit\n", encoding="utf-8")
    assert store.locally_edited("official/demo")
    _bump_catalog(catalog, "1.0.1")
    with pytest.raises(UpdateRefused, match="fork"):
        prepare_update(store, "demo")
    assert notes.read_text() == "my local edit\n"
    prepare_update(store, "demo", discard_edits=True).execute()
    assert notes.read_text() == "alpha notes\n"
    assert not store.locally_edited("official/demo")


def test_custom_packs_have_no_update_source(store: PackStore) -> None:
    """Custom packs change by edit, not update."""
    prepare_install(store, "demo").execute()
    prepare_fork(store, "demo", "mine").execute()
    with pytest.raises(UpdateRefused, match="edit"):
        prepare_update(store, "custom/mine")


def test_removal_is_permanent_and_clears_the_default(store: PackStore, agent_dir: Path) -> None:
    """P-PACK-31/32/33: no archive; a removed default is cleared, never reassigned."""
    prepare_install(store, "demo").execute()
    prepare_install(store, "other").execute()
    with store.mutation("test") as state:
        store.save(msgspec.structs.replace(state, default="official/demo"))
    change = prepare_uninstall(store, "demo")
    assert "default" in change.summary
    change.execute()
    assert store.state().default is None
    leftovers = [p for p in (agent_dir / "persona").rglob("*") if "demo" in p.name]
    assert leftovers == []
    assert store.installed_refs() == ["official/other"]


def test_uninstall_and_delete_are_source_specific(store: PackStore) -> None:
    """uninstall removes official packs, delete removes custom ones."""
    prepare_install(store, "demo").execute()
    prepare_fork(store, "demo", "mine").execute()
    with pytest.raises(PackNotFound, match="delete"):
        prepare_uninstall(store, "custom/mine")
    with pytest.raises(PackNotFound, match="uninstall"):
        prepare_delete(store, "official/demo")
    prepare_delete(store, "mine").execute()
    assert store.installed_refs() == ["official/demo"]


def test_fork_renames_the_manifest_and_records_provenance(store: PackStore) -> None:
    """P-PACK-3: a fork is custom, named after its folder, with fork provenance."""
    prepare_install(store, "demo").execute()
    prepare_fork(store, "demo", "mine").execute()
    pack = store.load("custom/mine")
    assert pack.manifest.name == "mine"
    assert store.state().packs["custom/mine"].origin == "fork:official/demo"


def test_create_edit_preview_apply_cancel(store: PackStore) -> None:
    """P-PACK-9..15: drafts stage on disk, preview diffs, apply swaps, cancel discards."""
    prepare_create(store, "mine").execute()
    draft = store.root / "drafts" / "custom" / "mine"
    assert (draft / "pack.yaml").is_file()
    assert "custom/mine" not in store.installed_refs()  # nothing changes until apply
    (draft / "agents" / "critic.md").write_text(
        "---\nname: critic\nrole: specialist\ndescription: Critiques.\n---\nCritique.\n",
        encoding="utf-8",
    )
    text = preview_draft(store, "mine")
    assert "+name: critic" in text
    assert "Valid" in text
    change = prepare_apply(store, "mine")
    assert "added (agents/critic.md" in change.summary  # P-PACK-24: file changes previewed
    change.execute()
    pack = store.load("custom/mine")
    assert pack.persona("critic") is not None  # adding a persona is data (P-PACK-38)
    assert not draft.exists()
    prepare_edit(store, "mine").execute()
    (draft / "agents" / "critic.md").unlink()
    assert "-name: critic" in preview_draft(store, "mine")
    prepare_cancel(store, "mine").execute()
    assert store.load("custom/mine").persona("critic") is not None


def test_apply_refuses_an_invalid_draft_and_keeps_the_pack(store: PackStore) -> None:
    """P-PACK-12: apply validates first; a refused draft changes nothing."""
    prepare_install(store, "demo").execute()
    prepare_edit(store, "demo").execute()
    draft = store.root / "drafts" / "official" / "demo"
    (draft / "agents" / "lead2.md").write_text("---\nrole: generalist\n---\n", encoding="utf-8")
    assert "refuse" in preview_draft(store, "demo")
    before = store.load("official/demo").digest
    with pytest.raises(PackInvalid):
        prepare_apply(store, "demo")
    assert store.load("official/demo").digest == before


def test_apply_refuses_when_the_active_pack_moved(store: PackStore) -> None:
    """No silent overwrite: the pack changed after the draft was staged."""
    prepare_install(store, "demo").execute()
    prepare_edit(store, "demo").execute()
    (store.dir_for("official/demo") / "references" / "new.md").write_text("x", encoding="utf-8")
    with pytest.raises(DraftConflict, match="changed since"):
        prepare_apply(store, "demo")


def test_applied_edits_to_an_official_pack_count_as_local_edits(store: PackStore) -> None:
    """P-PACK-16/29: official packs are user-owned; applied edits block update."""
    prepare_install(store, "demo").execute()
    prepare_edit(store, "demo").execute()
    draft = store.root / "drafts" / "official" / "demo"
    (draft / "references" / "mine.md").write_text("m", encoding="utf-8")
    prepare_apply(store, "demo").execute()
    assert store.locally_edited("official/demo")


def test_one_draft_per_pack(store: PackStore) -> None:
    """A second draft of the same pack refuses with its path; drafts are keyed by source/name,
    so a draft of official/demo never blocks a new custom/demo (issue 13)."""
    prepare_install(store, "demo").execute()
    prepare_edit(store, "demo").execute()
    with pytest.raises(DraftConflict, match="already staged"):
        prepare_edit(store, "demo")
    prepare_create(store, "demo").execute()
    with pytest.raises(DraftConflict, match="already staged"):
        prepare_create(store, "demo")


def test_execute_rechecks_under_the_lock(store: PackStore) -> None:
    """A prepared change whose world moved refuses at execute time."""
    first = prepare_install(store, "demo")
    second = prepare_install(store, "demo")
    first.execute()
    with pytest.raises(UpdateRefused):
        second.execute()


def test_interrupted_swap_is_recovered(store: PackStore) -> None:
    """DEC-15: a crash between the two renames leaves .old + .stage; recovery completes it."""
    prepare_install(store, "demo").execute()
    official = store.root / "official"
    target = official / "demo"
    os.replace(target, official / ".demo.old-abc123")
    stage = official / ".demo.stage-abc123"
    write_pack(stage, name="demo", version="1.0.0")
    assert store.installed_refs() == []
    with store.mutation("recover"):
        pass
    assert store.installed_refs() == ["official/demo"]
    assert sorted(p.name for p in official.iterdir()) == ["demo"]


def test_store_state_corruption_is_reported_not_emptied(store: PackStore) -> None:
    """A corrupt store.json is never read as empty."""
    store.root.mkdir(parents=True)
    store.state_path.write_bytes(b"{not json")
    with pytest.raises(StoreStateCorrupt, match="move it aside"):
        store.state()


def test_bundled_catalog_packs_are_valid_and_on_theme() -> None:
    """P-PACK-39 + acceptance: ≥ 3 bundled packs, each one lead + specialists; philosopher-7.
    P-PACK-19/35: each pack is one roster with its own lead; nothing coordinates above packs."""
    store = pack_store(Path("/nonexistent-agent-dir"), catalog_dir=CATALOG_DIR)
    packs = {p.name: p for p in store.catalog()}
    assert {"software-team", "philosopher-7", "editorial-room"} <= set(packs)
    assert len(packs["philosopher-7"].specialists) == 7
    for pack in packs.values():
        assert pack.lead is not None
        assert pack.specialists
        assert not pack.warnings
        for persona in pack.personas:
            assert len(persona.body) > 400, persona.name  # substantive prompts
            assert persona.description


def test_list_has_installed_and_available_sections_with_rosters(store: PackStore) -> None:
    """P-PACK-25/18: installed and available sections, each with its [G]-led roster."""
    prepare_install(store, "demo").execute()
    text = pack_list(store)
    installed, available = text.split("Available in the bundled catalog:")
    assert "official/demo 1.0.0" in installed
    assert "roster: [G] lead, alpha, beta" in installed
    assert "other 1.0.0" in available
    assert "roster: [G] lead, gamma" in available
    assert "demo" not in available


def test_preview_of_an_invalid_draft_never_shows_outside_content(
    store: PackStore, tmp_path: Path
) -> None:
    """P-RESOLVER-11: a draft symlink out of the pack is refused and its target never read."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n")
    prepare_create(store, "mine").execute()
    draft = store.root / "drafts" / "custom" / "mine"
    (draft / "references" / "leak.md").symlink_to(secret)
    os.mkfifo(draft / "references" / "pipe")
    text = preview_draft(store, "mine")
    assert "symlink-escape" in text
    assert "TOP-SECRET-CONTENT" not in text
    prepare_cancel(store, "mine").execute()  # a FIFO in the draft never blocks
    assert secret.read_text() == "TOP-SECRET-CONTENT\n"
