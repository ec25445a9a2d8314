"""Issue 15 item 4: state read back from disk is untrusted.

Every name that comes from a state file (``store.json`` drafts, default and records, a
session's ``binding.json`` snapshot, a migration receipt, a migration source's file names)
is validated like user input before it reaches a path. The reproduction: a draft key
``../../victim`` in ``store.json`` made ``pack cancel ../../victim`` delete a folder outside
the store.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from persona_mind.errors import PersonaError
from persona_mind.messages.host import CommandCall
from persona_mind.persona import (
    PackStore,
    PersonaService,
    SessionContext,
    StoreStateCorrupt,
    Workspace,
    migration_status,
    run_command,
)
from persona_mind.persona._errors import MigrationRequired, PackNotFound
from persona_mind.persona.packs._drafts import prepare_cancel
from persona_mind.persona.packs._lifecycle import prepare_delete, prepare_install
from persona_mind.persona.workspace._migrate import preview as migrate_preview
from persona_mind.persona.workspace._migrate import read_receipt
from tests.persona._wiring import pack_store

Ctx = Callable[..., SessionContext]


def _victim(agent_dir: Path) -> Path:
    """A folder outside the pack store that ``drafts/../../victim`` would name."""
    victim = agent_dir / "victim"
    victim.mkdir(parents=True, exist_ok=True)
    (victim / "precious.txt").write_text("keep me", encoding="utf-8")
    # <agent>/persona/drafts/../../victim == <agent>/victim
    assert (agent_dir / "persona" / "drafts" / ".." / ".." / "victim").resolve() == victim.resolve()
    return victim


def _write_state(store: PackStore, state: dict[str, object]) -> None:
    store.root.mkdir(parents=True, exist_ok=True)
    store.state_path.write_text(json.dumps({"version": 1, **state}), encoding="utf-8")


def _draft(target: str) -> dict[str, str]:
    return {"target": target, "base_digest": "", "createdAt": "2026-01-01T00:00:00Z"}


def test_a_hostile_draft_key_never_deletes_outside_the_store(
    service: PersonaService, make_ctx: Ctx, agent_dir: Path
) -> None:
    """The reproduction, through the command surface and the planning call alike."""
    victim = _victim(agent_dir)
    (service.store.root / "drafts").mkdir(parents=True)
    _write_state(service.store, {"drafts": {"../../victim": _draft("custom/victim")}})
    ctx = make_ctx()
    service.open_session(ctx)
    out = run_command(service, ctx, CommandCall(name="persona", args="pack cancel ../../victim"))
    out_yes = run_command(
        service, ctx, CommandCall(name="persona", args="pack cancel ../../victim --yes")
    )
    for outcome in (out, out_yes):
        assert outcome.result.level == "error"
    with pytest.raises((StoreStateCorrupt, PackNotFound)):
        prepare_cancel(service.store, "../../victim").execute()
    assert (victim / "precious.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize(
    ("state", "named"),
    [
        ({"drafts": {"../../victim": _draft("custom/victim")}}, "draft '../../victim'"),
        ({"drafts": {"ok": _draft("custom/../../victim")}}, "targeting 'custom/../../victim'"),
        ({"drafts": {"ok": _draft("custom/other")}}, "targeting 'custom/other'"),
        ({"drafts": {"ok": _draft("drafts/ok")}}, "targeting 'drafts/ok'"),
        ({"default": "custom/../../victim"}, "default"),
        ({"default": "../victim"}, "default"),
        (
            {
                "packs": {
                    "custom/../x": {
                        "origin": "create",
                        "version": "1.0.0",
                        "digest": "",
                        "updatedAt": "",
                    }
                }
            },
            "pack record 'custom/../x'",
        ),
        ({"drafts": {"con": _draft("custom/con")}}, "draft 'con'"),
    ],
)
def test_store_state_with_an_impossible_name_is_reported_not_used(
    agent_dir: Path, catalog: Path, state: dict[str, object], named: str
) -> None:
    """A name no user could have typed is a corrupt state: typed error, says what to do."""
    store = pack_store(agent_dir, catalog_dir=catalog)
    _write_state(store, state)
    with pytest.raises(StoreStateCorrupt) as info:
        store.state()
    assert named in str(info.value)
    assert "remove those entries" in str(info.value)


def test_uninstall_never_follows_a_hostile_draft_of_the_pack(
    agent_dir: Path, catalog: Path
) -> None:
    """Removal also removes the pack's drafts; their names come from store.json."""
    store = pack_store(agent_dir, catalog_dir=catalog)
    prepare_install(store, "demo").execute()
    victim = _victim(agent_dir)
    state = json.loads(store.state_path.read_text(encoding="utf-8"))
    state["drafts"] = {"../../victim": _draft("official/demo")}
    store.state_path.write_text(json.dumps(state), encoding="utf-8")
    with pytest.raises((StoreStateCorrupt, PackNotFound)):
        prepare_delete(store, "official/demo").execute()
    assert (victim / "precious.txt").exists()
    assert "official/demo" in store.installed_refs()


def test_draft_names_are_checked_even_when_the_state_is_valid(store_with_demo: PackStore) -> None:
    """Defence in depth: the draft path helper itself refuses a traversal name."""
    with pytest.raises(PackNotFound, match="not a valid draft name"):
        prepare_cancel(store_with_demo, "../demo")


@pytest.fixture
def store_with_demo(agent_dir: Path, catalog: Path) -> PackStore:
    store = pack_store(agent_dir, catalog_dir=catalog)
    prepare_install(store, "demo").execute()
    return store


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("snapshot", "../../../victim", "snapshot"),
        ("snapshot", "snap-../../x", "snapshot"),
        ("pack", "custom/../../victim", "pack"),
        ("session", "someone-else", "belongs to session"),
    ],
)
def test_a_binding_record_cannot_point_a_session_outside_its_folder(
    service: PersonaService, make_ctx: Ctx, agent_dir: Path, field: str, value: str, why: str
) -> None:
    """binding.json's snapshot and pack come from disk: a traversal is refused, the
    session still opens (unbound, with a note), and nothing outside is read or copied."""
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    run_command(service, ctx, CommandCall(name="persona", args="team select demo"))
    path = service.bindings.session_dir("s1") / "binding.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record[field] = value
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(PersonaError, match=why):
        service.bindings.read("s1")
    with pytest.raises(PersonaError, match=why):  # a fork would copy the "snapshot"
        service.bindings.inherit("s1", "s2")
    assert not service.bindings.session_dir("s2").exists()
    service.close_session("s1")
    state = service.open_session(ctx, reason="resume")
    assert state.scope.pack is None
    assert "team select" in state.scope.note


def _older_setup(ws: Path) -> None:
    agents = ws / ".pi" / "agents"
    agents.mkdir(parents=True)
    (agents / "boss.md").write_bytes(b"---\nname: boss\nrole: generalist\n---\nBoss.\n")
    (agents / "helper.md").write_bytes(b"---\nname: helper\nrole: specialist\n---\nHelp.\n")


@pytest.mark.parametrize("pack", ["custom/../../victim", "official/demo", "../x", "custom/CON"])
def test_a_migration_receipt_naming_an_impossible_pack_is_refused(
    service: PersonaService, make_ctx: Ctx, workspace: Path, pack: str
) -> None:
    _older_setup(workspace)
    ctx = make_ctx()
    service.open_session(ctx)
    run_command(service, ctx, CommandCall(name="persona", args="migrate apply --yes"))
    ws = Workspace(workspace)
    (receipt_path,) = (service.store.root / ".migrations").iterdir()
    receipt = json.loads(receipt_path.read_text(encoding="utf-8"))
    receipt["pack"] = pack
    receipt_path.write_text(json.dumps(receipt), encoding="utf-8")
    with pytest.raises(MigrationRequired, match="move the receipt aside"):
        read_receipt(service.store, ws)
    with pytest.raises(MigrationRequired):
        migration_status(service.store, ws)


def test_a_migration_source_with_a_device_name_is_refused_before_it_is_written(
    service: PersonaService, workspace: Path
) -> None:
    """Migration sources are file names from the user's tree: checked before use."""
    _older_setup(workspace)
    (workspace / ".pi" / "agents" / "aux.md").write_bytes(
        b"---\nname: auxiliary\nrole: specialist\n---\nAux.\n"
    )
    text, pack = migrate_preview(service.store, Workspace(workspace), "ws-team")
    assert pack is None
    assert "aux.md" in text
    assert "device name" in text


def test_valid_state_still_reads(store_with_demo: PackStore) -> None:
    """The checks accept everything the store itself writes."""
    state = store_with_demo.state()
    assert "official/demo" in state.packs
    raw = msgspec.json.decode(store_with_demo.state_path.read_bytes())
    assert raw["packs"]["official/demo"]["origin"] == "catalog"
