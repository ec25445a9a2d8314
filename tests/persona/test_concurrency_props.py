"""Cross-process pack-store mutations (real processes, real locks) and path properties."""

from __future__ import annotations

import posixpath
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.persona.packs._lifecycle import prepare_install
from persona_mind.persona.packs._names import check_relative
from tests.persona._wiring import pack_store

_WORKER = """
import sys
from pathlib import Path
from persona_mind.clock import MonotonicClock
from persona_mind.persona import PackStore
from persona_mind.persona.packs._lifecycle import prepare_fork
from persona_mind.storage import DurablePackFiles
store = PackStore(
    Path(sys.argv[1]),
    files=DurablePackFiles(),
    clock=MonotonicClock(),
    catalog_dir=Path(sys.argv[2]),
)
for i in range(int(sys.argv[4])):
    prepare_fork(store, "official/demo", f"{sys.argv[3]}-{i}").execute()
print("done")
"""


def test_concurrent_processes_never_lose_a_store_update(agent_dir: Path, catalog: Path) -> None:
    """DEC-5/-15: store.json read-modify-write is serialised by the packs lock across
    processes — every fork from two concurrent writers is recorded, no leftovers."""
    store = pack_store(agent_dir, catalog_dir=catalog)
    prepare_install(store, "demo").execute()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(agent_dir), str(catalog), tag, "4"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("p", "q")
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    records = store.state().packs
    expected = {f"custom/{t}-{i}" for t in ("p", "q") for i in range(4)}
    assert expected <= set(records)
    assert set(store.installed_refs()) == expected | {"official/demo"}
    custom = store.root / "custom"
    assert not [p.name for p in custom.iterdir() if p.name.startswith(".")]


_segment = st.sampled_from(["a", "b", "..", ".", "x.md", "notes", "CON", "a:b", "ü"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=6))
def test_accepted_relative_paths_never_leave_their_root(parts: list[str]) -> None:
    """P-RESOLVER-10/13: whatever check_relative accepts normalises to a path inside."""
    path = "/".join(parts)
    if check_relative(path) is None:
        joined = posixpath.normpath(posixpath.join("/root", path))
        assert joined == "/root" or joined.startswith("/root/")
