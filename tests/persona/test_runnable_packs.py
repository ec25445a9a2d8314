"""Issue 15 item 6: a pack that validates can run, and nothing outside it gets in.

Validation limits match what a child can run (a 200 KiB description or 2,000 specialists
used to pass and then fail every child); a hard link to a file outside the pack is refused,
at validation and again at copy time; Windows device names are refused as pack names; one
escaping symlink in ``library/shared`` skips only that document (with a doctor finding)
and activation never reports success when nothing can be injected; a single harmless YAML
anchor is accepted while alias bombs stay refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.messages.host import CommandCall
from persona_mind.persona import (
    PackInvalid,
    PackNotFound,
    PersonaService,
    Resolver,
    SessionContext,
    Workspace,
    load_pack,
    run_command,
)
from persona_mind.persona.packs._drafts import prepare_create
from persona_mind.persona.packs._fsio import copy_tree
from persona_mind.persona.packs._lifecycle import prepare_fork, prepare_install
from persona_mind.persona.packs._scan import Limits
from persona_mind.storage import DurablePackFiles
from tests.persona._wiring import pack_store
from tests.persona.conftest import write_pack

Ctx = Callable[..., SessionContext]


def _cmd(svc: PersonaService, ctx: SessionContext, args: str) -> tuple[str, str]:
    result = run_command(svc, ctx, CommandCall(name="persona", args=args)).result
    return result.text, result.level


def _codes(root: Path, **kw: object) -> tuple[str, ...]:
    with pytest.raises(PackInvalid) as info:
        load_pack(root, "custom", expected_name=root.name, **kw)  # type: ignore[arg-type]
    return info.value.codes


# ---- limits that match what a child can run ---------------------------------------------


def test_a_200_kib_description_is_refused_with_the_limit(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "demo")
    agent = root / "agents" / "alpha.md"
    big = "x" * (200 * 1024)
    agent.write_text(agent.read_text().replace("The alpha specialist.", big), encoding="utf-8")
    with pytest.raises(PackInvalid, match="limit is 1024") as info:
        load_pack(root, "custom", expected_name="demo")
    assert info.value.codes == ("too-long",)


def test_a_long_pack_description_is_refused(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "demo")
    manifest = root / "pack.yaml"
    manifest.write_text(
        manifest.read_text().replace("The demo team.", "y" * 1025), encoding="utf-8"
    )
    assert _codes(root) == ("too-long",)


@pytest.mark.parametrize(("count", "ok"), [(63, True), (64, False), (2000, False)])
def test_persona_count_limit_at_n_and_n_plus_1(tmp_path: Path, count: int, ok: bool) -> None:
    """The lead plus ``count`` specialists against the 64-persona limit."""
    root = write_pack(tmp_path / "demo", specialists=("alpha",))
    for i in range(count - 1):
        (root / "agents" / f"s{i}.md").write_text(
            f"---\nname: s{i}\nrole: specialist\n---\nYou are s{i}.\n", encoding="utf-8"
        )
    if ok:
        assert len(load_pack(root, "custom", expected_name="demo").personas) == count + 1
    else:
        assert "too-many-personas" in _codes(root)


def test_list_entries_are_bounded(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "demo")
    skills = "".join(f"  - skill{i}\n" for i in range(33))
    agent = root / "agents" / "alpha.md"
    agent.write_text(
        agent.read_text().replace("role: specialist\n", f"role: specialist\nskills:\n{skills}"),
        encoding="utf-8",
    )
    assert _codes(root) == ("too-many-entries",)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tools", "[read, 'bash,write']"),  # would widen --tools read,bash,write
        ("tools", "['read --x']"),
        ("skills", '["a\\nb"]'),  # a double-quoted YAML newline
        ("model", "'fake/model --tools bash'"),
    ],
)
def test_values_bound_for_a_child_command_line_are_one_token(
    tmp_path: Path, field: str, value: str
) -> None:
    root = write_pack(tmp_path / "demo")
    agent = root / "agents" / "alpha.md"
    agent.write_text(
        agent.read_text().replace("role: specialist\n", f"role: specialist\n{field}: {value}\n"),
        encoding="utf-8",
    )
    assert _codes(root) == ("bad-field",)


def test_the_limits_keep_the_largest_valid_prompt_under_the_child_limit(tmp_path: Path) -> None:
    """The limits' purpose, measured: a pack at every limit resolves to a prompt a child
    accepts (the 4 MiB bound in runners/_child_pi.py)."""
    from persona_mind.runners._child_pi import MAX_SYSTEM_PROMPT_BYTES  # noqa: PLC0415

    limits = Limits()
    root = write_pack(tmp_path / "demo", specialists=("alpha",))
    desc = "d" * limits.description_chars
    body = "b" * (limits.agent_bytes - 8 * 1024)
    for i in range(limits.max_personas - 2):
        (root / "agents" / f"s{i}.md").write_text(
            f"---\nname: s{i}\nrole: specialist\ndescription: {desc}\n---\n{body}\n",
            encoding="utf-8",
        )
    pack = load_pack(root, "custom", expected_name="demo")
    ws = tmp_path / "ws"
    ws.mkdir()
    prompt = Resolver().resolve(pack, "s0", Workspace(ws)).system_prompt
    assert len(prompt.encode()) < MAX_SYSTEM_PROMPT_BYTES


def test_doctor_reports_an_unrunnable_installed_pack_as_an_error(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """Doctor used to say 0 errors for a pack every child would fail on."""
    root = write_pack(service.store.root / "custom" / "huge")
    agent = root / "agents" / "alpha.md"
    agent.write_text(
        agent.read_text().replace("The alpha specialist.", "z" * 5000), encoding="utf-8"
    )
    manifest = root / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("name: demo", "name: huge"))
    ctx = make_ctx()
    service.open_session(ctx)
    text, _ = _cmd(service, ctx, "doctor")
    assert "custom/huge is invalid" in text
    assert "too-long" in text
    assert "doctor: 0 error(s)" not in text


# ---- hard links -------------------------------------------------------------------------


def test_a_hard_link_to_a_file_outside_the_pack_is_refused(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "demo")
    secret = tmp_path / "outside" / "id_ed25519"
    secret.parent.mkdir()
    secret.write_text("PRIVATE KEY", encoding="utf-8")
    os.link(secret, root / "references" / "alpha" / "key.md")
    with pytest.raises(PackInvalid, match="hard link") as info:
        load_pack(root, "custom", expected_name="demo")
    assert info.value.codes == ("hardlink-escape",)


def test_hard_links_that_stay_inside_the_pack_are_fine(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "demo")
    os.link(root / "references" / "alpha" / "notes.md", root / "references" / "alpha" / "n2.md")
    pack = load_pack(root, "custom", expected_name="demo")
    assert "references/alpha/n2.md" in pack.files


def test_a_hard_link_made_after_validation_is_refused_on_copy(tmp_path: Path) -> None:
    """The copy re-checks right before it reads: no window between validate and copy."""
    root = write_pack(tmp_path / "demo")
    pack = load_pack(root, "custom", expected_name="demo")
    os.link(root / "references" / "alpha" / "notes.md", tmp_path / "elsewhere.md")
    with pytest.raises(PackInvalid, match="hard link"):
        copy_tree(DurablePackFiles(), root, tmp_path / "copy", pack.files)
    assert not (tmp_path / "copy").exists()


def test_install_refuses_a_catalog_pack_with_an_outside_hard_link(
    agent_dir: Path, catalog: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s", encoding="utf-8")
    os.link(secret, catalog / "demo" / "references" / "alpha" / "leak.md")
    store = pack_store(agent_dir, catalog_dir=catalog)
    with pytest.raises(PackInvalid):
        prepare_install(store, "demo").execute()
    assert store.installed_refs() == []


# ---- Windows device names ---------------------------------------------------------------

DEVICES = ["con", "nul", "com1", "lpt9", "aux", "prn", "con.txt", "nul.md", "com1.tar.gz"]


@pytest.mark.parametrize("name", DEVICES)
def test_device_names_are_refused_as_pack_names(
    agent_dir: Path, catalog: Path, tmp_path: Path, name: str
) -> None:
    """docs/persona.md: device names (any extension, any case) are refused everywhere."""
    store = pack_store(agent_dir, catalog_dir=catalog)
    with pytest.raises(PackNotFound, match="not a valid pack name"):
        prepare_create(store, name)
    prepare_install(store, "demo").execute()
    with pytest.raises(PackNotFound):
        prepare_fork(store, "demo", name)
    root = write_pack(tmp_path / "p" / name, name=name)
    with pytest.raises(PackInvalid) as info:
        load_pack(root, "custom")
    assert "bad-name" in info.value.codes


def test_ordinary_names_near_device_names_are_fine(agent_dir: Path, catalog: Path) -> None:
    store = pack_store(agent_dir, catalog_dir=catalog)
    for name in ("console", "com10", "lpt", "nully", "my-con"):
        prepare_create(store, name).execute()
    names = ("console", "com10", "lpt", "nully", "my-con")
    assert store.state().drafts.keys() == {f"custom/{n}" for n in names}


# ---- library/shared: one escaping symlink -----------------------------------------------


def _shared_with_escape(ws: Path, outside: Path) -> None:
    (ws / ".pi" / "agents").mkdir(parents=True)
    (ws / ".pi" / "agents" / "_baseline.md").write_text(
        "---\ndocs: library/shared/\n---\nBe kind.\n", encoding="utf-8"
    )
    (ws / "library" / "shared").mkdir(parents=True)
    (ws / "library" / "shared" / "project.md").write_text("# Project\n", encoding="utf-8")
    outside.write_text("OUTSIDE-SECRET\n", encoding="utf-8")
    (ws / "library" / "shared" / "_index.md").symlink_to(outside)


def test_an_escaping_index_symlink_skips_that_document_only(
    service: PersonaService, make_ctx: Ctx, workspace: Path, tmp_path: Path
) -> None:
    """Resolve keeps working for every persona, `/persona use` succeeds with a note, the
    turn gets the persona's prompt, and doctor names the link."""
    _shared_with_escape(workspace, tmp_path / "outside.md")
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "team select demo")
    pack = service.session(ctx).scope.pack
    assert pack is not None
    for persona in pack.personas:
        resolved = Resolver().resolve(pack, persona.name, Workspace(workspace))
        assert "OUTSIDE-SECRET" not in resolved.system_prompt
        assert "Be kind." in resolved.system_prompt  # the rest of the baseline is there
        assert any("outside the workspace" in w for w in resolved.warnings)
    text, level = _cmd(service, ctx, "use alpha")
    assert level != "error"
    assert "Persona mode: alpha" in text
    assert "note:" in text
    injection = service.prompt_injection(ctx)
    assert injection.sections
    assert "# Persona: alpha" in injection.sections[0]
    report, _ = _cmd(service, ctx, "doctor")
    assert "library/shared/_index.md is a symlink that leads outside the workspace" in report


def test_doctor_names_every_escaping_link_in_shared(
    service: PersonaService, make_ctx: Ctx, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "library" / "shared" / "deep").mkdir(parents=True)
    (tmp_path / "o.md").write_text("o", encoding="utf-8")
    (workspace / "library" / "shared" / "deep" / "leak.md").symlink_to(tmp_path / "o.md")
    (workspace / "library" / "shared" / "fine.md").symlink_to(workspace / "library")
    ctx = make_ctx()
    service.open_session(ctx)
    report, _ = _cmd(service, ctx, "doctor")
    assert "library/shared/deep/leak.md is a symlink" in report
    assert "fine.md" not in report


def test_activation_is_refused_when_the_prompt_cannot_be_built(
    service: PersonaService, make_ctx: Ctx, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never "Persona mode: …" when nothing would be injected: an I/O failure while
    building the prompt leaves no persona active and says what to do."""
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    _cmd(service, ctx, "team select demo")

    def broken(self: Workspace) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Workspace, "baseline", broken)
    text, level = _cmd(service, ctx, "use alpha")
    assert level == "error"
    assert "not activated" in text
    assert "doctor" in text
    assert service.session(ctx).active is None


# ---- YAML anchors -----------------------------------------------------------------------


def test_a_single_harmless_anchor_is_accepted(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "demo")
    agent = root / "agents" / "alpha.md"
    agent.write_text(
        agent.read_text().replace(
            "role: specialist\n", "role: specialist\nskills: &common [review]\ntools: [read]\n"
        ),
        encoding="utf-8",
    )
    beta = root / "agents" / "beta.md"
    beta.write_text(
        beta.read_text().replace("role: specialist\n", "role: specialist\nskills: &s [x]\n"),
        encoding="utf-8",
    )
    manifest = root / "pack.yaml"
    manifest.write_text(
        "schema: 2\nname: demo\nversion: &v 1.0.0\ndescription: The demo team.\n",
        encoding="utf-8",
    )
    pack = load_pack(root, "custom", expected_name="demo")
    alpha = pack.persona("alpha")
    assert alpha is not None
    assert alpha.skills == ("review",)
    assert pack.manifest.version == "1.0.0"


def test_an_anchor_reused_once_is_accepted(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "demo")
    agent = root / "agents" / "alpha.md"
    agent.write_text(
        agent.read_text().replace(
            "role: specialist\n", "role: specialist\nskills: &s [read]\ntools: *s\n"
        ),
        encoding="utf-8",
    )
    alpha = load_pack(root, "custom", expected_name="demo").persona("alpha")
    assert alpha is not None
    assert alpha.tools == ("read",)


def test_a_baseline_listing_too_many_docs_is_capped_with_a_warning(
    tmp_path: Path, workspace: Path
) -> None:
    """The workspace's own list gets the pack's entry limit, said out loud, not silently."""
    docs = "".join(f"  - library/shared/d{i}/\n" for i in range(40))
    (workspace / ".pi" / "agents").mkdir(parents=True)
    (workspace / ".pi" / "agents" / "_baseline.md").write_text(
        f"---\ndocs:\n{docs}---\nBase.\n", encoding="utf-8"
    )
    pack = load_pack(write_pack(tmp_path / "p" / "demo"), "official", expected_name="demo")
    resolved = Resolver().resolve(pack, "alpha", Workspace(workspace))
    assert "library/shared/d31/" in resolved.system_prompt
    assert "library/shared/d32/" not in resolved.system_prompt
    assert any("lists 40 docs; only the first 32" in w for w in resolved.warnings)


def test_a_store_folder_with_a_device_name_is_listed_as_invalid(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """A folder no pack can be called never breaks list or doctor; it is never loaded."""
    write_pack(service.store.root / "custom" / "con", name="con")
    write_pack(service.store.root / "custom" / "ok", name="ok")
    ctx = make_ctx()
    service.open_session(ctx)
    listing, level = _cmd(service, ctx, "pack list")
    assert level != "error"
    assert "custom/con — INVALID" in listing
    assert "custom/ok 1.0.0" in listing
    report, _ = _cmd(service, ctx, "doctor")
    assert "custom/con is invalid" in report
    assert "[bad-name]" in report
