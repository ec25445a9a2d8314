"""The composition root builds the whole actor tree at start and stops it in reverse; no
feature object leaves the Companion (issue 22, scope 1 and 2).

Facades and faces ask the Companion by message (``GetTeam``, ``InspectFeatures``); the
features are built by the Companion from a ``Ports`` value and reach each other only through
it. These tests drive the real runtime (real actors, real files under a temporary agent dir).
"""

from __future__ import annotations

import contextlib
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from persona_mind import Team
from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.actors.companion import CompanionActor
from persona_mind.cli import main
from persona_mind.errors import HostError
from persona_mind.features import ChildrenFeature, MindFeature, PersonaFeature
from persona_mind.messages.companion import GetTeam, InspectFeatures
from persona_mind.runtime import Runtime
from persona_mind.testing import ManualClock, ScriptedModel, SimHost

TREE = [
    "host-proxy",
    "store",
    "owner",
    "reminder",
    "child-runner",
    "roundtables",
    "optimizer",
    "scheduler",
    "companion",
]
"""The product tree with a child backend, in start order."""

FEATURE_TYPES = (PersonaFeature, MindFeature, ChildrenFeature)


def _actors(runtime: Runtime) -> list[str]:
    return [child.name for child in runtime.system.root.children]


def _properties(runtime: Runtime) -> list[str]:
    return sorted(
        name
        for cls in type(runtime).__mro__
        for name, value in vars(cls).items()
        if isinstance(value, property)
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    return ws


@pytest.mark.asyncio
async def test_the_whole_tree_exists_at_start_and_no_property_spawns_an_actor(
    tmp_path: Path, workspace: Path
) -> None:
    clock = ManualClock()
    host = SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=clock, child_backend=ScriptedModel(clock)
    )
    runtime = host.runtime
    assert len(_properties(runtime)) >= 5
    for name in _properties(runtime):  # before start: refused or empty, never a spawn
        with contextlib.suppress(HostError):
            getattr(runtime, name)
    assert _actors(runtime) == []
    async with host:
        assert _actors(runtime) == TREE
        for name in _properties(runtime):
            getattr(runtime, name)
        await host.start()
        await host.turn("hello")
        assert _actors(runtime) == TREE  # a session spawned nothing either


@pytest.mark.asyncio
async def test_without_children_the_tree_has_no_child_actors(
    tmp_path: Path, workspace: Path
) -> None:
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as host:
        children = {"child-runner", "roundtables", "scheduler"}
        assert _actors(host.runtime) == [name for name in TREE if name not in children]
        assert host.runtime.child_runner is None
        assert host.runtime.scheduler is None


@pytest.mark.asyncio
async def test_the_tree_stops_in_reverse_start_order(tmp_path: Path, workspace: Path) -> None:
    clock = ManualClock()
    trace = tmp_path / "trace.jsonl"
    async with SimHost(
        agent_dir=tmp_path / "agent",
        cwd=workspace,
        clock=clock,
        trace_path=trace,
        child_backend=ScriptedModel(clock),
    ) as host:
        await host.start()
        assert _actors(host.runtime) == TREE
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    stopped = [e["actor"] for e in events if e["ev"] == "stop"]
    assert stopped == list(reversed(TREE))  # the front door first, the host pipe last


def _reachable(root: object, depth: int = 3) -> list[object]:
    """Objects reachable from ``root`` through instance attributes (dicts, lists, tuples),
    stopping at actor refs and the actor system: behind those, state is reached by message."""
    seen: dict[int, object] = {}
    frontier: list[object] = [root]
    for _ in range(depth):
        nxt: list[object] = []
        for obj in frontier:
            if id(obj) in seen or isinstance(obj, ActorRef | ActorSystem):
                continue
            seen[id(obj)] = obj
            values: list[Any] = []
            if isinstance(obj, dict):
                values = list(obj.values())
            elif isinstance(obj, list | tuple | set | frozenset):
                values = list(obj)
            elif hasattr(obj, "__dict__") and not inspect.ismodule(obj):
                values = list(vars(obj).values())
            elif hasattr(obj, "__slots__"):
                values = [getattr(obj, s, None) for s in getattr(obj, "__slots__", ())]
            nxt += values
        frontier = nxt
    return list(seen.values())


@pytest.mark.asyncio
async def test_a_facade_asks_for_the_team_by_message_and_no_feature_leaves_the_companion(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    agent = tmp_path / "agent"
    assert main(["pack", "install", "software-team", "--agent-dir", str(agent)]) == 0
    assert main(["persona", "default", "set", "software-team", "--agent-dir", str(agent)]) == 0
    capsys.readouterr()
    asked: list[str] = []
    receive = CompanionActor.receive

    async def recording(self: CompanionActor, message: Any) -> object:
        asked.append(type(message).__name__)
        return await receive(self, message)

    monkeypatch.setattr(CompanionActor, "receive", recording)
    clock = ManualClock()
    async with Team(agent_dir=agent, cwd=workspace, child_backend=ScriptedModel(clock)) as team:
        asked.clear()
        snapshot = await team.snapshot()
        assert snapshot.pack_ref.endswith("software-team")
        assert asked == ["GetTeam"]  # one message to the Companion, nothing else touched
        runtime = team.session.runtime
        assert not hasattr(runtime, "feature")
        assert not hasattr(runtime, "features")
        leaked = [o for o in _reachable(team, depth=6) if isinstance(o, FEATURE_TYPES)]
        assert leaked == []
        # what a face may learn of the features is a value per feature
        reports = await runtime.companion.ask(InspectFeatures())
        assert [r.name for r in reports] == ["persona", "mind", "children"]
        assert not any(isinstance(v, FEATURE_TYPES) for r in reports for v in r.details.values())
        assert await runtime.companion.ask(GetTeam()) == snapshot
