"""Session binding and retained snapshots (group P-BINDING)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import msgspec

from persona_mind.messages.host import CommandCall
from persona_mind.persona import PersonaService, SessionContext, run_command
from persona_mind.persona.packs._drafts import prepare_apply, prepare_edit
from persona_mind.persona.packs._lifecycle import prepare_install, prepare_uninstall
from persona_mind.storage import DurablePackFiles

Ctx = Callable[..., SessionContext]


def _cmd(svc: PersonaService, ctx: SessionContext, args: str, name: str = "persona") -> str:
    return run_command(svc, ctx, CommandCall(name=name, args=args)).result.text


def _set_default(svc: PersonaService, ref: str | None) -> None:
    with svc.store.mutation("test") as state:
        svc.store.save(msgspec.structs.replace(state, default=ref))


def test_two_sessions_keep_their_own_snapshots_while_the_pack_is_edited(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """Acceptance / P-BINDING-3..6: edits + apply reach a session only on refresh."""
    prepare_install(service.store, "demo").execute()
    a, b = make_ctx("sess-a"), make_ctx("sess-b")
    service.open_session(a)
    service.open_session(b)
    _cmd(service, a, "team select demo")
    _cmd(service, b, "team select demo")
    snap_a = service.session(a).scope.pack
    snap_b = service.session(b).scope.pack
    assert snap_a is not None
    assert snap_b is not None
    assert snap_a.root != snap_b.root  # private copies
    assert list(a.cwd.iterdir()) == []  # P-BINDING-7: nothing is copied into the project

    prepare_edit(service.store, "demo").execute()
    draft = service.store.root / "drafts" / "official" / "demo" / "agents" / "alpha.md"
    draft.write_text(draft.read_text().replace("You are alpha.", "You are alpha v2."))
    prepare_apply(service.store, "demo").execute()

    for ctx in (a, b):
        _cmd(service, ctx, "use alpha")
        assert "You are alpha.\n" in service.prompt_injection(ctx).sections[0] + "\n"
        assert "alpha v2" not in service.prompt_injection(ctx).sections[0]

    _cmd(service, a, "team refresh")
    _cmd(service, a, "use alpha")
    assert "alpha v2" in service.prompt_injection(a).sections[0]
    assert "alpha v2" not in service.prompt_injection(b).sections[0]  # b untouched


def test_snapshot_survives_uninstall(service: PersonaService, make_ctx: Ctx) -> None:
    """P-BINDING-6: removal never reaches a bound session's retained copy."""
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "team select demo")
    prepare_uninstall(service.store, "demo").execute()
    service.close_session(ctx.session_id)
    state = service.open_session(ctx, reason="resume")
    assert state.scope.state == "bound"
    assert state.scope.pack is not None
    assert state.scope.pack.persona("alpha") is not None


def test_default_applies_to_genuinely_new_sessions_only(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """P-BINDING-2/11: a resumed or already-evaluated session never gets the default."""
    prepare_install(service.store, "demo").execute()
    old = make_ctx("old")
    assert service.open_session(old).scope.state == "unbound"
    _set_default(service, "official/demo")
    service.close_session("old")
    assert service.open_session(old, reason="startup").scope.state == "unbound"
    assert service.open_session(make_ctx("resumed"), reason="resume").scope.state == "unbound"
    new = service.open_session(make_ctx("fresh"), reason="new")
    assert new.scope.state == "bound"
    assert new.scope.pack is not None
    assert new.scope.pack.ref == "official/demo"


def test_pack_changes_never_change_binding_or_default(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """P-PACK-6/15/34, P-BINDING-9: install/fork/edit/apply leave team and default alone;
    only a team action binds."""
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "pack install demo")
    _cmd(service, ctx, "pack fork demo mine")
    _cmd(service, ctx, "pack edit mine")
    _cmd(service, ctx, "pack apply mine --yes")
    assert service.store.state().default is None
    assert service.bindings.read("s1") is not None
    assert service.session(ctx).scope.state == "unbound"


def test_team_none_is_recorded(service: PersonaService, make_ctx: Ctx) -> None:
    """P-BINDING-1: a session records one team or none."""
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "team select demo")
    _cmd(service, ctx, "team none")
    record = service.bindings.read("s1")
    assert record is not None
    assert record.state == "none"
    assert service.session(ctx).scope.pack is None


def test_fork_inherits_the_origin_snapshot(service: PersonaService, make_ctx: Ctx) -> None:
    """A forked session starts with its origin's team snapshot."""
    prepare_install(service.store, "demo").execute()
    origin = make_ctx("origin")
    service.open_session(origin)
    _cmd(service, origin, "team select demo")
    child = service.open_session(make_ctx("child"), reason="fork", origin_session_id="origin")
    assert child.scope.state == "bound"
    assert child.scope.pack is not None
    assert child.scope.pack.root.parent.name.startswith("child-")


def test_missing_snapshot_is_reported(service: PersonaService, make_ctx: Ctx) -> None:
    """A bound session whose snapshot vanished says how to recover."""
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "team select demo")
    pack = service.session(ctx).scope.pack
    assert pack is not None
    shutil.rmtree(pack.root)
    service.close_session("s1")
    service.bindings._packs.clear()
    state = service.open_session(ctx, reason="resume")
    assert state.scope.state == "missing-bound"
    assert "refresh" in _cmd(service, ctx, "team")


def _older_setup(ws: Path) -> None:
    agents = ws / ".pi" / "agents"
    agents.mkdir(parents=True)
    (agents / "boss.md").write_text("---\nname: boss\nrole: generalist\n---\nBoss.\n")
    (agents / "helper.md").write_text("---\nname: helper\nrole: specialist\n---\nHelp.\n")
    (agents / "_baseline.md").write_text("---\ndocs: library/shared/\n---\nBase.\n")


def test_older_setup_gates_the_session(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """P-MIGRATE-1/2: no default, personas refuse, until migrate or an installed team."""
    _older_setup(workspace)
    prepare_install(service.store, "demo").execute()
    _set_default(service, "official/demo")
    ctx = make_ctx()
    state = service.open_session(ctx, reason="new")
    assert state.scope.state == "migration-required"
    out = run_command(service, ctx, CommandCall(name="persona", args="use boss"))
    assert out.result.level == "error"
    assert "migrate" in out.result.text
    _cmd(service, ctx, "team select demo")  # picking an installed team lifts the gate
    assert service.session(ctx).scope.state == "bound"


def test_legacy_fallback_only_without_setup_team_or_default(
    service: PersonaService, make_ctx: Ctx, workspace: Path
) -> None:
    """P-MIGRATE-8: .pi/agents personas without a generalist are the fallback roster."""
    agents = workspace / ".pi" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\nname: helper\nrole: specialist\n---\nHelp.\n")
    ctx = make_ctx()
    state = service.open_session(ctx)
    assert state.scope.state == "legacy"
    _cmd(service, ctx, "use helper")
    assert (
        service.active_identity(
            "s1",
        )
        is not None
    )
    assert str(service.active_identity("s1")).startswith("workspace/")
    prepare_install(service.store, "demo").execute()
    _set_default(service, "official/demo")
    service.close_session("s1")
    assert service.open_session(ctx, reason="resume").scope.state == "unbound"


def test_a_failed_refresh_keeps_the_old_snapshot(service: PersonaService, make_ctx: Ctx) -> None:
    """P-BINDING-3/5: binding.json is the commit point; a copy that fails midway leaves the
    session on its previous snapshot, and the next refresh cleans the partial copy."""
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "team select demo")
    before = service.bindings.read("s1")
    real = service.store.files

    class Broken(DurablePackFiles):
        """Copies two files of the tree, then the disk is full (an injected port)."""

        def copy_tree(self, src: Path, dst: Path, files: tuple[str, ...]) -> None:
            real.copy_tree(src, dst, files[:2])
            raise OSError(28, "No space left on device")

    service.store.files = Broken()
    out = run_command(service, ctx, CommandCall(name="persona", args="team refresh"))
    assert out.result.level == "error"
    assert service.bindings.read("s1") == before
    service.store.files = real
    _cmd(service, ctx, "team refresh")
    record = service.bindings.read("s1")
    assert record is not None
    snaps = [
        p.name for p in service.bindings.session_dir("s1").iterdir() if p.name != "binding.json"
    ]
    assert snaps == [record.snapshot]


def test_corrupt_binding_record_still_opens_the_session(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """Bad on-disk state never breaks session start; the note says how to fix it."""
    ctx = make_ctx()
    service.open_session(ctx)
    (service.bindings.session_dir("s1") / "binding.json").write_bytes(b"{broken")
    service.close_session("s1")
    state = service.open_session(ctx, reason="resume")
    assert state.scope.pack is None
    assert "team select" in state.scope.note
