"""A stateful model of the pack store (hypothesis): random verb sequences keep invariants.

Invariants after every step: every installed pack validates and matches its folder name;
the default is None or installed; every draft record has its folder and vice versa; no
staging leftovers; official packs have catalog provenance. Refusals are typed PersonaErrors.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from persona_mind.errors import PersonaError
from persona_mind.persona.packs._drafts import (
    prepare_apply,
    prepare_cancel,
    prepare_create,
    prepare_edit,
)
from persona_mind.persona.packs._lifecycle import (
    prepare_delete,
    prepare_fork,
    prepare_install,
    prepare_uninstall,
)
from persona_mind.testing._packs import write_pack
from tests.persona._wiring import pack_store

NAMES = st.sampled_from(["demo", "other", "mine", "yours"])


class PackStoreMachine(RuleBasedStateMachine):
    """Drive the real store on a temporary agent dir."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="pm-store-"))
        catalog = self.tmp / "catalog"
        write_pack(catalog / "demo")
        write_pack(catalog / "other", name="other", specialists=("gamma",))
        self.store = pack_store(self.tmp / "agent", catalog_dir=catalog)

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _try(self, make: object) -> None:
        try:
            change = make()  # type: ignore[operator]
            change.execute()
        except PersonaError:
            pass  # a typed refusal is a valid outcome; invariants still must hold

    @rule(name=NAMES)
    def install(self, name: str) -> None:
        self._try(lambda: prepare_install(self.store, name))

    @rule(source=NAMES, name=NAMES)
    def fork(self, source: str, name: str) -> None:
        self._try(lambda: prepare_fork(self.store, source, name))

    @rule(name=NAMES)
    def create(self, name: str) -> None:
        self._try(lambda: prepare_create(self.store, name))

    @rule(name=NAMES)
    def edit_and_touch(self, name: str) -> None:
        self._try(lambda: prepare_edit(self.store, name))
        for source in ("official", "custom"):
            draft = self.store.root / "drafts" / source / name / "references"
            if draft.is_dir():
                (draft / "touched.md").write_text("edited\n")

    @rule(name=NAMES)
    def apply(self, name: str) -> None:
        self._try(lambda: prepare_apply(self.store, name))

    @rule(name=NAMES)
    def cancel(self, name: str) -> None:
        self._try(lambda: prepare_cancel(self.store, name))

    @rule(name=NAMES)
    def remove(self, name: str) -> None:
        self._try(lambda: prepare_uninstall(self.store, name))
        self._try(lambda: prepare_delete(self.store, name))

    @rule(name=NAMES)
    def set_default(self, name: str) -> None:
        try:
            ref = self.store.resolve(name)
        except PersonaError:
            return
        with self.store.mutation("default") as state:
            self.store.save(msgspec.structs.replace(state, default=ref))

    @invariant()
    def store_is_consistent(self) -> None:
        state = self.store.state()
        refs = self.store.installed_refs()
        for ref in refs:
            pack = self.store.load(ref)
            assert pack.name == ref.split("/")[1]
            if ref.startswith("official/"):
                assert state.packs[ref].origin == "catalog"
        assert state.default is None or state.default in refs
        drafts = self.store.root / "drafts"
        on_disk = {
            f"{source}/{p.name}"
            for source in ("official", "custom")
            if (drafts / source).is_dir()
            for p in (drafts / source).iterdir()
        }
        assert on_disk == set(state.drafts)  # keyed by source/name; no stage left behind
        for sub in ("official", "custom", "drafts", "drafts/official", "drafts/custom"):
            folder = self.store.root / sub
            if folder.is_dir():
                assert not [p for p in folder.iterdir() if p.name.startswith(".")]


TestPackStoreMachine = PackStoreMachine.TestCase
TestPackStoreMachine.settings = settings(
    max_examples=12,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
