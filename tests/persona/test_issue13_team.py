"""Issue 13, Persona item 12: alias clashes, --team ambiguity, drafts by ref, snapshot GC."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest
import pytest_asyncio

from persona_mind.messages.host import HostEvent, PromptInjection, SessionStart
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost
from tests.persona._wiring import pack_store, persona_service


@pytest_asyncio.fixture
async def host(tmp_path: Path) -> AsyncIterator[SimHost]:
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=ws, clock=ManualClock()) as sim:
        yield sim


def _other_extension_commands(host: SimHost, names: tuple[str, ...]) -> None:
    """Every SessionStart carries what Pi's getCommands() lists for other extensions."""
    real = host.runtime.event

    async def event(ev: HostEvent) -> PromptInjection | None:
        if isinstance(ev, SessionStart):
            ev = msgspec.structs.replace(ev, other_commands=names)
        return await real(ev)

    host.runtime.event = event  # type: ignore[method-assign,assignment]


@pytest.mark.asyncio
async def test_alias_never_shadows_another_extensions_command_P_ACTIVE_5(host: SimHost) -> None:
    _other_extension_commands(host, ("architect", "deploy"))
    await host.start()
    for command in ("/persona pack install software-team", "/persona team select software-team"):
        result = await host.command(command)
        assert result.level == "info", result.text
    names = {c.name for c in host.commands}
    assert "architect" not in names  # another extension owns /architect
    assert "code-reviewer" in names  # a free name still gets its alias
    used = await host.command("/persona use architect")  # the guaranteed route still works
    assert used.level == "info", used.text


def test_roundtable_team_refuses_an_ambiguous_bare_name_P_PACK_5(tmp_path: Path) -> None:
    """`roundtable --team software-team` with official/ and custom/ present is refused."""
    from persona_mind.cli._children import load_team  # noqa: PLC0415
    from persona_mind.persona import AmbiguousPackName  # noqa: PLC0415
    from persona_mind.testing._packs import write_pack  # noqa: PLC0415

    agent = tmp_path / "agent"
    write_pack(agent / "persona" / "official" / "demo", specialists=("alpha",))
    write_pack(agent / "persona" / "custom" / "demo", specialists=("beta",))
    with pytest.raises(AmbiguousPackName, match="official/demo"):
        load_team("demo", agent, tmp_path)
    assert {p.name for p in load_team("custom/demo", agent, tmp_path).personas} == {
        "lead",
        "beta",
    }
    assert {p.name for p in load_team("official/demo", agent, tmp_path).personas} == {
        "lead",
        "alpha",
    }


def test_official_and_custom_drafts_of_one_name_coexist(agent_dir: Path, catalog: Path) -> None:
    """Drafts are keyed by source/name: official/demo and custom/demo are edited at once."""
    from persona_mind.persona import AmbiguousPackName  # noqa: PLC0415
    from persona_mind.persona.packs._drafts import (  # noqa: PLC0415
        prepare_apply,
        prepare_create,
        prepare_edit,
        preview_draft,
    )
    from persona_mind.persona.packs._lifecycle import prepare_install  # noqa: PLC0415

    store = pack_store(agent_dir, catalog_dir=catalog)
    prepare_install(store, "demo").execute()
    prepare_edit(store, "official/demo").execute()
    prepare_create(store, "demo").execute()  # custom/demo, while official/demo is in a draft
    assert set(store.state().drafts) == {"official/demo", "custom/demo"}
    assert (store.root / "drafts" / "official" / "demo" / "pack.yaml").is_file()
    assert (store.root / "drafts" / "custom" / "demo" / "pack.yaml").is_file()
    with pytest.raises(AmbiguousPackName):
        preview_draft(store, "demo")  # a bare name matching both is refused, never guessed
    assert "→ official/demo" in preview_draft(store, "official/demo")
    prepare_apply(store, "custom/demo").execute()
    assert "custom/demo" in store.installed_refs()
    assert set(store.state().drafts) == {"official/demo"}
    assert "→ official/demo" in preview_draft(store, "demo")  # unambiguous again


def test_a_draft_staged_under_the_older_bare_key_still_works(
    agent_dir: Path, catalog: Path
) -> None:
    """store.json written before source/name keys: drafts/<name> keeps working."""
    import json  # noqa: PLC0415

    from persona_mind.persona.packs._drafts import prepare_cancel, preview_draft  # noqa: PLC0415
    from persona_mind.testing._packs import write_pack  # noqa: PLC0415

    store = pack_store(agent_dir, catalog_dir=catalog)
    write_pack(store.root / "drafts" / "mine", name="mine")
    draft = {"target": "custom/mine", "base_digest": "", "createdAt": "2026-01-01T00:00:00Z"}
    store.state_path.write_text(json.dumps({"version": 1, "drafts": {"mine": draft}}))
    assert "→ custom/mine" in preview_draft(store, "mine")
    prepare_cancel(store, "custom/mine").execute()
    assert not (store.root / "drafts" / "mine").exists()
    assert store.state().drafts == {}


def test_ended_sessions_snapshots_are_collected_within_the_bound(
    agent_dir: Path, catalog: Path
) -> None:
    """Every session copies its team; ended ones beyond 32 and older than 7 days go."""
    import os  # noqa: PLC0415

    from persona_mind.persona.binding._team_binding import (  # noqa: PLC0415
        KEEP_SECONDS,
        KEEP_SESSIONS,
        Bindings,
        session_key,
    )
    from persona_mind.persona.packs._lifecycle import prepare_install  # noqa: PLC0415

    store = pack_store(agent_dir, catalog_dir=catalog)
    prepare_install(store, "demo").execute()
    bindings = Bindings(store)
    now = 1_900_000_000.0
    ids = [f"s{i:02d}" for i in range(KEEP_SESSIONS + 8)]
    for age, sid in enumerate(ids):  # s00 newest … s39 oldest, all older than a week
        bindings.bind(sid, "official/demo")
        when = now - KEEP_SECONDS - 3600.0 * (age + 1)
        os.utime(bindings.session_dir(sid) / "binding.json", (when, when))
    recent = "recent-but-many"
    bindings.bind(recent, "official/demo")  # used now: kept whatever the count
    os.utime(bindings.session_dir(recent) / "binding.json", (now, now))
    oldest_open = ids[-1]  # still open in this runtime: never collected
    removed = bindings.collect({oldest_open}, now=now)
    survivors = {p.name for p in bindings.root.iterdir()}
    assert session_key(oldest_open) in survivors
    assert session_key(recent) in survivors
    # the newest 32 ended sessions are kept (recent counts among them), the rest go
    kept_old = [sid for sid in ids if session_key(sid) in survivors and sid != oldest_open]
    assert kept_old == ids[: KEEP_SESSIONS - 1]
    assert sorted(removed) == sorted(session_key(s) for s in ids[KEEP_SESSIONS - 1 : -1])
    assert bindings.read(ids[0]) is not None  # a kept session still resumes with its team
    assert bindings.snapshot(bindings.read(ids[0])) is not None  # type: ignore[arg-type]


def test_a_session_start_collects_stale_snapshots(agent_dir: Path, catalog: Path) -> None:
    """The collection runs at session open in the product path (PersonaService)."""
    import os  # noqa: PLC0415

    from persona_mind.persona import SessionContext  # noqa: PLC0415
    from persona_mind.persona.binding._team_binding import KEEP_SESSIONS, session_key  # noqa: PLC0415

    service = persona_service(agent_dir, catalog_dir=catalog)
    from persona_mind.persona.packs._lifecycle import prepare_install  # noqa: PLC0415

    prepare_install(service.store, "demo").execute()
    stale = [f"old{i}" for i in range(KEEP_SESSIONS + 2)]
    for i, sid in enumerate(stale):
        service.bindings.bind(sid, "official/demo")
        os.utime(service.bindings.session_dir(sid) / "binding.json", (1000.0 + i, 1000.0 + i))
    service.open_session(SessionContext(session_id="fresh", cwd=agent_dir))
    names = {p.name for p in service.bindings.root.iterdir()}
    assert session_key("old0") not in names  # the two oldest ended sessions were collected
    assert session_key("old1") not in names
    assert session_key(stale[-1]) in names
