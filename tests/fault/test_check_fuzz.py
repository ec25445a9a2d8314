"""Issue 24 acceptance: corrupt one random byte or one field of a store, and ``store check``
and the reader agree.

A real memory store and a real backlog (Mind's entry types) are written by the engine; then
one byte is replaced, or one field of one entry is set to a value of another type (or
removed, or an unknown field added, or a string made invalid UTF-8). The reader (the typed
decode the Store actor does) and ``persona-mind store check <file>`` / ``<dir>`` must give
the same verdict — the only extra the check may report is a rule the reader does not
enforce (duplicate ids, which a byte flip can create). When the reader refuses it,
``--repair`` restores a copy the reader accepts, or names the loss, and never leaves a store
that fails to read behind a success.

Bounded (``max_examples``) so the suite stays fast; ``PERSONA_MIND_FUZZ_EXAMPLES`` raises it.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from persona_mind.cli._storage import add_parser
from persona_mind.mind import BacklogItem, Fact
from persona_mind.storage import CorruptStore, FileStore, Layout, StoreTarget

EXAMPLES = int(os.environ.get("PERSONA_MIND_FUZZ_EXAMPLES", "60"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    return parser


_PARSER = _parser()  # only `store`: the whole CLI tree costs ~50 ms to build per call


def cli_main(argv: list[str]) -> int:
    args = _PARSER.parse_args(argv)
    code: int = args.func(args)
    return code


_FACTS = tuple(
    Fact(
        id=f"m_{i:04x}{'abcdef'[i % 6] * 12}",
        kind="gotcha",
        text=f"fact number {i}: use the café’s ruff ✓",
        tags=("lint",),
        recordedAt=1700000000.0 + i,
        lastSeenAt=1700000000.5 + i,
    )
    for i in range(4)
)
_ITEMS = tuple(
    BacklogItem(
        id=f"b_{i:03d}{'xyz'[i % 3] * 9}",
        text=f"follow up {i}",
        createdAt=1.0,
        updatedAt=2.0,
        expiresAt=9e9,
    )
    for i in range(3)
)
_VALUES: list[Any] = [None, True, 7, -1, 2.5, "text", "", [], ["x", 1], {}, {"a": 1}, 1e300]


@st.composite
def _damage(draw: st.DrawFn) -> tuple[str, str, Any]:
    """(store, how, detail): a byte at an offset, or one field of one entry."""
    store = draw(st.sampled_from(["memory", "backlog"]))
    how = draw(st.sampled_from(["byte", "field", "drop", "unknown", "utf8"]))
    if how == "byte":
        return store, how, (draw(st.integers(0, 10_000)), draw(st.integers(0, 255)))
    fields = list((Fact if store == "memory" else BacklogItem).__struct_fields__)
    entry = draw(st.integers(0, 2))
    name = draw(st.sampled_from(fields))
    return store, how, (entry, name, draw(st.sampled_from(_VALUES)))


def _corrupt(data: bytes, how: str, detail: Any) -> bytes:
    if how == "byte":
        offset, value = detail
        offset %= len(data)
        return data[:offset] + bytes([value]) + data[offset + 1 :]
    entry, name, value = detail
    doc = json.loads(data)
    row = doc["entries"][entry]
    if how == "field":
        row[name] = value
    elif how == "drop":
        row.pop(name, None)
    elif how == "unknown":
        row[f"{name}X"] = value
    else:  # a field turned into an invalid UTF-8 string (a lone surrogate's bytes)
        row[name] = "\x00MARK\x00"
    out = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    return out.replace(b"\\u0000MARK\\u0000", b"\xed\xa0\x80")


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "agent"


def _reader_ok(store: FileStore, target: StoreTarget[Any]) -> bool:
    try:
        return store.read(target) is not None
    except CorruptStore:
        return False


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=_damage())
def test_check_and_reader_agree_on_one_damaged_byte_or_field(
    agent: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: tuple[str, str, Any],
) -> None:
    kind, how, detail = case
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    layout = Layout(agent)
    for leftover in list(agent.rglob("*")) if agent.exists() else []:
        if leftover.is_file() or leftover.is_symlink():
            leftover.unlink()
    path = layout.project("fuzz") if kind == "memory" else layout.backlog("fuzz")
    entry_type: Any = Fact if kind == "memory" else BacklogItem
    rows: tuple[Any, ...] = _FACTS if kind == "memory" else _ITEMS
    target: StoreTarget[Any] = StoreTarget(
        path=path, entry_type=entry_type, lock="memory" if kind == "memory" else "backlog"
    )
    engine = FileStore(layout, lock_timeout=5.0)
    engine.mutate(target, lambda _e: rows[:-1])
    engine.mutate(target, lambda _e: rows)  # the backup holds the previous version
    damaged = _corrupt(path.read_bytes(), how, detail)
    path.write_bytes(damaged)

    reads = _reader_ok(FileStore(layout), target)
    capsys.readouterr()
    single = cli_main(["store", "check", str(path)])
    tree = cli_main(["store", "check", str(agent)])
    out = capsys.readouterr().out
    if reads:
        duplicate = "duplicate-ids" in out
        assert (single, tree) == ((1, 1) if duplicate else (0, 0)), out
    else:
        assert (single, tree) == (1, 1), out  # never "ok" for a store the reader refuses
        assert "corrupt:" in out
        code = cli_main(["store", "check", "--repair", str(agent)])
        out = capsys.readouterr().out
        assert _reader_ok(FileStore(layout), target), out  # repaired, or started empty
        if code == 0:
            assert "NOT RECOVERED" not in out
            found = FileStore(layout).read(target)
            assert found is not None
            assert found.entries in (rows[:-1], rows)
        else:
            assert "NOT RECOVERED" in out or "NOT FIXED" in out, out
