"""Issue 24 H3 and scope 2: every user-supplied name is validated before a path is built
from it — through the ``persona_pack`` tool (what the model calls in Pi), the ``/persona``
commands, the CLI and the MCP server.

Every verb is called with hostile names (``../x``, deep ``..`` chains, an absolute path, a
bare ``..``, NUL, a very long name, Unicode lookalikes of ``/``, backslashes, a device name)
and the test asserts that nothing was created or changed outside the agent directory and the
temporary directory, and that no changing action was planned or run with such a name.

On the issue's main ``migrate preview <name>`` joined the name into a temporary path before
validating it, then created ``<dest>/agents``, copied the older setup there and wrote
``<dest>/pack.yaml`` — outside the store, overwriting an existing file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from persona_mind.cli import main as cli_main
from persona_mind.persona import PACK_VERBS
from persona_mind.testing import SimHost

SOURCES = ("name", "pack", "source")
NAMELESS = frozenset(
    {"team.status", "team.list", "team.refresh", "team.none", "default.show", "default.clear"}
    | {"migrate.inspect", "migrate.status", "migrate.rollback", "migrate.cancel"}
    | {"onboard.start", "onboard.preview", "onboard.apply", "doctor", "list"}
)
"""Actions that take no name: a plan of theirs is not made from the hostile value."""


def _named(args: dict[str, Any]) -> bool:
    action = args["action"] + (f".{args['op']}" if "op" in args else "")
    return action not in NAMELESS


def _hostile(outside: Path) -> list[str]:
    return [
        "../x",
        "../../../../../../escape",
        "..",
        ".",
        "a/../../x",
        str(outside / "abs"),
        f"custom/../../{outside.name}/y",
        "official/../../../z",
        "a\x00b",
        "n" * 4096,
        "..\u2215x",  # DIVISION SLASH
        "..\uff0fx",  # FULLWIDTH SOLIDUS
        "..\u2044x",  # FRACTION SLASH
        "..\\..\\x",
        "C:\\x",
        "con",
    ]


def _snapshot(root: Path, skip: tuple[Path, ...]) -> dict[str, tuple[int, int]]:
    """Every entry under ``root`` outside ``skip``: (size, mtime_ns) by relative path."""
    out: dict[str, tuple[int, int]] = {}
    stack = [root]
    while stack:
        here = stack.pop()
        for child in here.iterdir():
            if any(child == s or s in child.parents for s in skip):
                continue
            st = child.lstat()
            out[str(child.relative_to(root))] = (st.st_size, st.st_mtime_ns)
            if child.is_dir() and not child.is_symlink():
                stack.append(child)
    return out


class World:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.agent = base / "deep" / "a" / "b" / "agent"
        self.ws = base / "deep" / "a" / "b" / "ws"
        self.tmp = base / "systmp"
        self.outside = base / "outside"
        self.names = _hostile(self.outside)
        for path in (self.agent, self.tmp, self.outside):
            path.mkdir(parents=True)
        (self.outside / "pack.yaml").write_text("precious\n")  # H3 overwrote a file like it
        (self.ws / ".git").mkdir(parents=True)
        agents = self.ws / ".pi" / "agents"
        agents.mkdir(parents=True)
        (agents / "boss.md").write_text("---\nname: boss\nrole: generalist\n---\nBoss.\n")
        (agents / "helper.md").write_text("---\nname: helper\nrole: specialist\n---\nHelp.\n")
        assert cli_main(["pack", "install", "software-team", "--agent-dir", str(self.agent)]) == 0

    def tree(self) -> dict[str, tuple[int, int]]:
        return _snapshot(self.base, (self.agent, self.tmp))


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = World(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(w.tmp))
    monkeypatch.setenv("TMPDIR", str(w.tmp))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(w.agent))
    return w


def _cli(*argv: str) -> None:
    """One CLI call; a usage error (exit 2) is an answer like any other refusal."""
    code: object = 0
    try:
        cli_main(list(argv))
    except SystemExit as exc:
        code = exc.code
    assert code in (0, 2), argv


def _tool_calls(names: list[str]) -> Iterator[dict[str, Any]]:
    ops = {
        "team": ("status", "list", "select", "refresh", "none"),
        "default": ("show", "set", "clear"),
        "migrate": ("inspect", "status", "preview", "apply", "rollback", "cancel"),
        "onboard": ("preview",),  # start/apply take no name (they write the workspace)
    }
    for name in names:
        for verb in PACK_VERBS:
            yield {"action": verb, **dict.fromkeys(SOURCES, name)}
        for action, verbs in ops.items():
            for op in verbs:
                yield {"action": action, "op": op, **dict.fromkeys(SOURCES, name)}
        yield {"action": "doctor"}
        yield {"action": "confirm", "planId": name}


@pytest.mark.asyncio
async def test_the_persona_pack_tool_and_commands_never_build_a_path_from_a_bad_name(
    world: World,
) -> None:
    before = world.tree()
    async with SimHost(agent_dir=world.agent, cwd=world.ws) as sim:
        await sim.start()
        for args in _tool_calls(world.names):
            result = await sim.call_tool("persona_pack", args)
            details = result.details if isinstance(result.details, dict) else {}
            if _named(args):  # nothing planned with a hostile name
                assert "planId" not in details, (args, result.text)
        for name in world.names:
            if "\x00" in name or "\n" in name:
                continue  # a command line cannot carry them
            for verb in PACK_VERBS:
                await sim.command(f"/persona pack {verb} {name} --yes")
            await sim.command(f"/persona pack fork official/software-team {name} --yes")
            await sim.command(f"/persona migrate preview {name}")
            await sim.command(f"/persona migrate apply {name} --yes")
            await sim.command(f"/persona default set {name} --yes")
            await sim.command(f"/persona team select {name} --yes")
    assert world.tree() == before
    assert (world.outside / "pack.yaml").read_text() == "precious\n"


def test_the_cli_never_builds_a_path_from_a_bad_name(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    before = world.tree()
    agent = ["--agent-dir", str(world.agent)]
    for name in world.names:
        for verb in ("status", "install", "update", "uninstall", "create", "edit", "preview"):
            _cli("pack", verb, name, *agent)
        for verb in ("apply", "cancel", "delete"):
            _cli("pack", verb, name, "--yes", *agent)
        _cli("pack", "fork", "official/software-team", name, *agent)
        _cli("pack", "fork", name, "copy", *agent)
        _cli("pack", "export", name, "--out", str(world.tmp / "export"), *agent)
        _cli("persona", "list", name, *agent)
        _cli("persona", "resolve", name, name, "--cwd", str(world.ws), *agent)
        _cli("persona", "default", "set", name, *agent)
        for action in ("preview", "apply"):
            _cli("persona", "migrate", action, name, "--cwd", str(world.ws), "--yes", *agent)
    capsys.readouterr()
    assert world.tree() == before
    assert (world.outside / "pack.yaml").read_text() == "precious\n"
    custom = world.agent / "persona" / "custom"
    assert not custom.exists() or not list(custom.iterdir())


@pytest.mark.asyncio
async def test_the_mcp_server_never_builds_a_path_from_a_bad_name(world: World) -> None:
    pytest.importorskip("mcp", reason="the MCP server is the optional [mcp] extra")
    from tests.mcp.conftest import mcp_client  # noqa: PLC0415 - needs the extra

    before = world.tree()
    env = {"TMPDIR": str(world.tmp), "PI_CODING_AGENT_DIR": str(world.agent)}
    async with mcp_client(world.agent, world.ws, env={**os.environ, **env}) as client:
        for args in _tool_calls(world.names):
            result = await client.call_tool("persona_pack", args)
            details = result.structured_content or {}
            if _named(args):
                assert "planId" not in details, (args, result)
    assert world.tree() == before
    assert (world.outside / "pack.yaml").read_text() == "precious\n"
