"""Issue 24 M1: a socket at a state path is classified before anything opens it.

On the issue's main an ``open`` of a socket failed with ``ENXIO`` before the file-type
check: ``memory list``, every write, ``store check`` (exit 2, no report for the rest of the
tree) and ``--repair`` all failed until the socket was removed by hand. Now a socket — like a
FIFO, device, directory or symlink — is refused as ``not-a-file`` by its ``lstat``, so it is
reported, moved aside by a write or a repair (never deleted), and the rest goes on.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from persona_mind.cli import main as cli_main
from persona_mind.errors import StorageError
from persona_mind.persona import StoreStateCorrupt
from persona_mind.persona.packs._state import read_state
from persona_mind.storage import (
    CorruptStore,
    FileStore,
    Layout,
    OsFileSystem,
    StoreTarget,
    backup_path,
    lock_path,
)
from tests.storage.conftest import Fact

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")


@contextlib.contextmanager
def _socket_at(path: Path) -> Iterator[socket.socket]:
    """A listening Unix socket bound at ``path`` (bound by a relative name: the socket path
    limit is 108 bytes and pytest's temporary paths can be longer)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    here = Path.cwd()
    os.chdir(path.parent)
    try:
        sock.bind(path.name)
    finally:
        os.chdir(here)
    sock.listen(1)
    try:
        yield sock
    finally:
        sock.close()


def _add(*ids: str):  # type: ignore[no-untyped-def]
    return lambda entries: (*entries, *(Fact(id=i) for i in ids))


def test_read_refuses_a_socket_by_its_type_without_opening_it(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    with _socket_at(path):
        with pytest.raises(IsADirectoryError, match="socket"):
            OsFileSystem().read_capped(path, 1 << 20)
        with pytest.raises(CorruptStore) as info:
            FileStore().read(StoreTarget(path=path, entry_type=Fact))
        assert info.value.reason == "not-a-file"
        assert "socket" in info.value.detail


def test_a_socket_store_is_reported_with_the_rest_of_the_tree_and_repaired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = Layout(tmp_path / "agent")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(layout.agent_dir))
    store = FileStore(layout, lock_timeout=2.0)
    good = StoreTarget(path=layout.project("good"), entry_type=Fact)
    store.mutate(good, _add("g"))
    target = StoreTarget(path=layout.project("victim"), entry_type=Fact)
    store.mutate(target, _add("a"))
    store.mutate(target, _add("b"))  # the backup holds sequence 1
    target.path.unlink()
    with _socket_at(target.path):
        assert cli_main(["store", "check", str(layout.agent_dir)]) == 1  # not 2
        out = capsys.readouterr().out
        assert "not-a-file" in out
        assert "socket" in out
        assert "1 ok, 1 corrupt" in out  # the rest of the tree was checked
        with pytest.raises(CorruptStore) as info:  # a write moves it aside, never opens it
            store.mutate(target, _add("c"))
        assert info.value.quarantined is not None
        assert info.value.quarantined.is_socket()
        assert cli_main(["store", "check", "--repair", str(layout.agent_dir)]) == 1
        out = capsys.readouterr().out
        assert "restored:" in out
        assert "sequence 1" in out
        found = store.read(target)
        assert found is not None
        assert [f.id for f in found.entries] == ["a"]
        assert cli_main(["store", "check", str(layout.agent_dir)]) == 0


def test_a_socket_lock_file_or_backup_is_refused_and_moved_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = Layout(tmp_path / "agent")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(layout.agent_dir))
    store = FileStore(layout, lock_timeout=2.0)
    target = StoreTarget(path=layout.project("p"), entry_type=Fact)
    store.mutate(target, _add("a"))
    lock = lock_path(target.path)
    lock.unlink()
    with _socket_at(lock), _socket_at(backup_path(target.path)):
        with pytest.raises(StorageError, match=r"not a regular file|socket"):
            store.mutate(target, _add("b"))
        assert cli_main(["store", "check", str(layout.root)]) == 1
        out = capsys.readouterr().out
        assert "lock-not-a-file" in out
        assert "backup-not-a-file" in out
        assert cli_main(["store", "check", "--repair", str(layout.root)]) == 0
        assert capsys.readouterr().out.count("moved aside") == 2
        assert store.mutate(target, _add("b")).sequence == 2


def test_a_socket_pack_store_index_is_a_clear_refusal(tmp_path: Path) -> None:
    index = tmp_path / "persona" / "store.json"
    with _socket_at(index), pytest.raises(StoreStateCorrupt, match="not a regular file"):
        read_state(index)
