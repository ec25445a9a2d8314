"""I/O faults at every file-system call of a draft apply (DEC-15, reliability F3).

Invariant: whatever call fails, after the next mutation's recovery the pack is exactly
the old content or exactly the new one, it validates, ``store.json`` reads, and no
staging leftovers remain. A fault is never read as an empty or partial pack.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from persona_mind.errors import PersonaMindError
from persona_mind.persona.packs._drafts import prepare_apply, prepare_edit
from persona_mind.persona.packs._lifecycle import prepare_fork, prepare_install
from persona_mind.storage import DurablePackFiles
from persona_mind.testing._faultfs import FaultyFileSystem
from tests.persona._wiring import pack_store

_DATA_OPS = ("open_new", "write", "fsync", "replace", "fsync_dir", "mkdir", "rmtree", "unlink")
"""Faults land on the data path; a lock fd's close always frees it (the kernel's rule),
which the fault harness cannot model, so lock calls and close are not failed here."""


def _template(agent_dir: Path, catalog: Path) -> str:
    """A store with custom/mine and a staged, changed draft; returns the old digest."""
    store = pack_store(agent_dir, catalog_dir=catalog)
    prepare_install(store, "demo").execute()
    prepare_fork(store, "demo", "mine").execute()
    old = store.load("custom/mine").digest
    prepare_edit(store, "mine").execute()
    refs = store.root / "drafts" / "custom" / "mine" / "references"
    (refs / "added.md").write_text("new doc\n")
    (refs / "alpha" / "notes.md").write_text("v2\n")
    return old


@pytest.mark.parametrize("persistent", [False, True], ids=["transient", "persistent"])
def test_apply_survives_a_fault_at_every_call(
    tmp_path: Path, catalog: Path, persistent: bool
) -> None:
    """F3: fail call k (k = 1, 2, …) of apply; the pack is old-or-new, never torn."""
    seen_new = False
    old = _template(tmp_path / "template", catalog)
    for k in range(1, 400):
        agent_dir = tmp_path / f"agent-{k}"
        shutil.copytree(tmp_path / "template", agent_dir)
        faulty = FaultyFileSystem()
        store = pack_store(agent_dir, catalog_dir=catalog, files=DurablePackFiles(faulty))
        change = prepare_apply(store, "mine")
        new = change.details["digest"]
        faulty.fail_at(k, errno.EIO, persistent=persistent, ops=_DATA_OPS)
        try:
            change.execute()
        except (OSError, PersonaMindError):
            failed = True
        else:
            failed = faulty.failures > 0
        faulty.clear()
        with store.mutation("recover"):
            pass
        digest = store.load("custom/mine").digest
        assert digest in {old, new}, f"torn pack after a fault at call {k}"
        seen_new |= digest == new
        store.state()  # never corrupt
        leftovers = [p.name for p in (store.root / "custom").iterdir() if p.name.startswith(".")]
        assert leftovers == [], (k, leftovers)
        if not failed:
            break
    else:
        pytest.fail("apply never completed without a fault")
    assert seen_new
    assert k > 10  # the sweep really covered the write path
