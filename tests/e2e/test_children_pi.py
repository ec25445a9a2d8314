"""Children on the real Pi 1.x against the fake OpenAI server (issue 6 acceptance).

The server asserts what each child was really given: its system prompt (the persona's own
resolved prompt, which Pi read from the private file named by ``--append-system-prompt``
and rendered as its ``<addendum>`` section; issue 15 item 6), its tool set (read-only
``read,grep,ls``) and its model (the exact session model). A consult, a full round-table,
and a cancel mid-phase that must leave no process behind.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.roundtable import RoundtableCoordinator
from persona_mind.children import (
    CancelLadder,
    ChildCancelled,
    ChildPersona,
    ChildTeam,
    PiBackend,
    consult,
    group_members,
)
from persona_mind.clock import MonotonicClock
from persona_mind.messages.runner import (
    AwaitRoundtable,
    CancelRoundtable,
    GetRoundtableProgress,
    ListChildren,
)
from persona_mind.persona.children._roundtable import SECTIONS, SELECT_MARKER, SYNTHESIS_MARKER
from persona_mind.testing._fake_openai import FakeOpenAI, message_text, pi_agent_env
from persona_mind.testing._pi import PiInstall, require_pi

pytestmark = pytest.mark.e2e

SYNTHESIS = "\n\n".join(f"## {t}\nE2E {t.lower()}" for t, _ in SECTIONS)


def member(name: str, role: str = "specialist") -> ChildPersona:
    return ChildPersona(
        name=name,
        qualified_id=f"custom/e2e/{name}",
        role=role,  # type: ignore[arg-type]
        system_prompt=f"You are PERSONA-{name.upper()}.",
        description=f"{name} expertise",
    )


TEAM = ChildTeam(
    pack="custom/e2e",
    personas=(member("lead", "generalist"), member("architect"), member("critic")),
)


class RoutedFake(FakeOpenAI):
    """Answers by what the request is (selection, synthesis, a round), since parallel
    children reach the server in any order; everything else echoes the user text."""

    def __init__(self, routes: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__()
        self.routes = routes

    def _record(self, body: dict[str, Any]) -> dict[str, Any]:
        step = super()._record(body)
        user = "\n".join(
            message_text(m) for m in body.get("messages", []) if m.get("role") == "user"
        )
        for marker, routed in self.routes:
            if marker in user:
                return dict(routed)
        return step


@pytest.fixture(scope="module")
def pi() -> PiInstall:
    return require_pi()


def selection() -> str:
    return json.dumps(
        {
            "specialists": [
                {"name": "critic", "reason": "find the risks"},
                {"name": "architect", "reason": "propose a design"},
            ]
        }
    )


@pytest.fixture
def routed() -> Iterator[RoutedFake]:
    server = RoutedFake(
        [(SELECT_MARKER, {"text": selection()}), (SYNTHESIS_MARKER, {"text": SYNTHESIS})]
    )
    with server:
        yield server


def backend(pi: PiInstall, fake: FakeOpenAI, tmp_path: Path, mode: str = "rpc") -> PiBackend:
    env = pi_agent_env(tmp_path / "agent", fake.base_url)
    return PiBackend(
        pi.argv,
        clock=MonotonicClock(),
        mode=mode,  # type: ignore[arg-type]
        base_env=env,
        ladder=CancelLadder(abort_grace=5, term_grace=5, kill_grace=10),
    )


def addendum(system: str) -> str:
    """The persona part of a child's system prompt: Pi 1.x wraps the text of
    ``--append-system-prompt FILE`` in ``<addendum>``. Had Pi received the file's path
    instead of its content, the path would be here and the assertions fail."""
    _head, sep, rest = system.partition("<addendum>\n")
    assert sep, f"no addendum in the child's system prompt: {system[:300]!r}"
    body, sep, _ = rest.partition("\n</addendum>")
    assert sep
    return body


def requests_by_system(fake: FakeOpenAI) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for i, body in enumerate(fake.requests):
        system = addendum(fake.system_prompt(i))
        out.setdefault(system.split("\n", 1)[0], []).append(body)
    return out


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["rpc", "json"])
async def test_consult_with_the_real_pi(pi: PiInstall, tmp_path: Path, mode: str) -> None:
    """P-CONSULT-2/-11, P-CHILD-11, M-OPTIMIZE-WORKER-2: prompt, tools and model as sent."""
    with FakeOpenAI([{"text": "Retries need idempotency keys."}]) as fake:
        b = backend(pi, fake, tmp_path, mode)
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(b), name="child-runner")
            result = await consult(
                runner,
                TEAM,
                requester="architect",
                active="architect",
                consultant="critic",
                question="Is the retry loop safe?",
                model="fake/fake-model",
                injection="OBJECTIVE: ship v1",
                cwd=str(tmp_path),
            )
        assert result.answer == "Retries need idempotency keys."
        assert result.usage.input_tokens > 0
        (body,) = fake.requests
        sent = addendum(fake.system_prompt(0))
        assert sent.startswith("You are PERSONA-CRITIC.\n\nOBJECTIVE: ship v1")
        assert sorted(fake.tool_names(0)) == ["grep", "ls", "read"]
        assert body["model"] == "fake-model"
        assert "Is the retry loop safe?" in fake.user_texts(0)[-1]


@pytest.mark.asyncio
async def test_a_prompt_over_the_argv_limit_reaches_the_real_pi(
    pi: PiInstall, tmp_path: Path
) -> None:
    """Issue 15 item 6: a 200 KiB persona prompt (one argv string is capped at 128 KiB, so
    on the command line every child failed at spawn) reaches the model whole, by file."""
    big = "You are PERSONA-BIG.\n" + "fact " * (40 * 1024)
    wide = ChildTeam(
        pack="custom/e2e",
        personas=(
            member("lead", "generalist"),
            ChildPersona(
                name="big", qualified_id="custom/e2e/big", role="specialist", system_prompt=big
            ),
        ),
    )
    with FakeOpenAI([{"text": "fine"}]) as fake:
        b = backend(pi, fake, tmp_path, "json")
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(b), name="child-runner")
            result = await consult(
                runner,
                wide,
                requester="lead",
                active="lead",
                consultant="big",
                question="ok?",
                model="fake/fake-model",
                cwd=str(tmp_path),
            )
        assert result.answer == "fine"
        assert addendum(fake.system_prompt(0)).startswith(big.rstrip())


@pytest.mark.asyncio
async def test_full_roundtable_with_the_real_pi(
    pi: PiInstall, routed: RoutedFake, tmp_path: Path
) -> None:
    """P-ROUNDTABLE-2..9/-14: six real children; the server checks each one's setup."""
    b = backend(pi, routed, tmp_path)
    async with ActorSystem(clock=MonotonicClock()) as system:
        runner = system.spawn(lambda: ChildRunner(b), name="child-runner")
        coord = system.spawn(
            lambda: RoundtableCoordinator(
                runner,
                TEAM,
                "Queue or cron for reports?",
                "fake/fake-model",
                run_id="e2e",
                cwd=str(tmp_path),
            ),
            name="roundtable",
        )
        result = await asyncio.wait_for(coord.ask(AwaitRoundtable(), timeout=math.inf), 120)
        progress = await coord.ask(GetRoundtableProgress())
    assert result.synthesis == SYNTHESIS
    assert progress.phase == "done"
    assert len(routed.requests) == 6
    by = requests_by_system(routed)
    assert {k: len(v) for k, v in by.items()} == {
        "You are PERSONA-LEAD.": 2,
        "You are PERSONA-CRITIC.": 2,
        "You are PERSONA-ARCHITECT.": 2,
    }
    for i in range(6):
        assert sorted(routed.tool_names(i)) == ["grep", "ls", "read"]
        assert routed.requests[i]["model"] == "fake-model"
    # Round 2 revealed the Round 1 answers (echoes of each Round 1 prompt) in selection order.
    r2 = [u for i in range(6) for u in routed.user_texts(i) if u.startswith("Round 2")]
    assert len(r2) == 2
    for text in r2:
        assert text.index("1. critic\nECHO: Round 1") < text.index("2. architect\nECHO: Round 1")


@pytest.mark.asyncio
async def test_cancel_mid_phase_leaves_no_process(pi: PiInstall, tmp_path: Path) -> None:
    """Cancelling during Round 1 stops every child process group; no synthesis."""
    routes: list[tuple[str, dict[str, Any]]] = [
        (SELECT_MARKER, {"text": selection()}),
        ("Round 1 of", {"delay": 60}),
    ]
    trace = tmp_path / "trace.jsonl"
    with RoutedFake(routes) as fake:
        b = backend(pi, fake, tmp_path)
        async with ActorSystem(clock=MonotonicClock(), trace_path=trace) as system:
            runner = system.spawn(lambda: ChildRunner(b), name="child-runner")
            coord = system.spawn(
                lambda: RoundtableCoordinator(
                    runner,
                    TEAM,
                    "Queue or cron?",
                    "fake/fake-model",
                    run_id="cx",
                    cwd=str(tmp_path),
                ),
                name="roundtable",
            )
            fut = asyncio.ensure_future(coord.ask(AwaitRoundtable(), timeout=math.inf))
            assert await asyncio.to_thread(fake.wait_for_requests, 3, 60)  # both in Round 1
            pids = [s.pid for s in await runner.ask(ListChildren())]
            assert len(pids) == 2
            assert all(pid and group_members(pid) for pid in pids)
            await coord.ask(CancelRoundtable(reason="user cancelled"))
            with pytest.raises(ChildCancelled, match="user cancelled"):
                await asyncio.wait_for(fut, 60)
            assert await runner.ask(ListChildren()) == ()
            for pid in pids:
                assert pid is not None
                assert group_members(pid) == []
        assert len(fake.requests) == 3
    # The real Pi honoured the graceful rung: RPC abort + EOF, no signal needed.
    exits = [
        json.loads(line)["detail"]
        for line in trace.read_text().splitlines()
        if json.loads(line).get("reason") == "exited"
    ]
    round1 = [d for d in exits if d["kind"] == "round1"]
    assert len(round1) == 2
    assert all(d["detail"] == "rc=0 stop=abort" for d in round1)


REPO = Path(__file__).resolve().parents[2]
STUB = REPO / "tests" / "bridge" / "stub_runtime.py"


@pytest.mark.asyncio
async def test_kill_switch_stops_a_child_from_loading_the_bridge(
    pi: PiInstall, tmp_path: Path
) -> None:
    """M-LEG / issue 6 §5: even when our extension is on the child's command line, the
    child env's PERSONA_MIND_DISABLE=1 keeps the bridge (and its sidecar) from starting.
    The control run without the switch proves the same setup does start it."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    with FakeOpenAI() as fake:
        env = pi_agent_env(tmp_path / "agent", fake.base_url)
        bridge = {
            "PERSONA_MIND_PYTHON": sys.executable,
            "PERSONA_MIND_SIDECAR_RUNTIME": f"{STUB}:StubRuntime",
            "PYTHONPATH": str(REPO / "src"),
        }
        command = (*pi.argv, "-e", str(REPO / "pi-extension"))
        child_log = tmp_path / "child-stub.log"
        b = PiBackend(
            command,
            clock=MonotonicClock(),
            mode="json",
            base_env=env,
            env={**bridge, "STUB_RUNTIME_LOG": str(child_log)},
        )
        async with ActorSystem(clock=MonotonicClock()) as system:
            runner = system.spawn(lambda: ChildRunner(b), name="child-runner")
            await consult(
                runner,
                TEAM,
                requester="lead",
                active="lead",
                consultant="critic",
                question="ok?",
                model="fake/fake-model",
                cwd=str(tmp_path),
            )
        assert not child_log.exists()
        control_log = tmp_path / "control-stub.log"
        control_env = {**env, **bridge, "STUB_RUNTIME_LOG": str(control_log)}
        proc = await asyncio.to_thread(
            subprocess.run,
            [
                *command,
                "--mode",
                "json",
                "-p",
                "--no-session",
                "-ne",
                "--model",
                "fake/fake-model",
                "hello",
            ],
            env=control_env,
            cwd=tmp_path,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert control_log.exists()


def test_cli_roundtable_with_the_real_pi_and_the_configured_model(
    pi: PiInstall,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`persona-mind roundtable "<query>" --pi <path>`: the user's configured model (from
    the agent dir's settings.json) reaches every child; progress shows; synthesis in full."""
    from persona_mind.cli import main  # noqa: PLC0415

    picks = {"specialists": [{"name": "architect", "reason": "design"}]}
    with FakeOpenAI([{"text": json.dumps(picks)}, {}, {}, {"text": SYNTHESIS}]) as fake:
        env = pi_agent_env(tmp_path / "agent", fake.base_url)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        rc = main(
            [
                "roundtable",
                "Queue or cron?",
                "--pi",
                f"{pi.argv[0]} {pi.argv[1]}",
                "--agent-dir",
                str(tmp_path / "agent"),
                "--cwd",
                str(tmp_path),
            ]
        )
        captured = capsys.readouterr()
        out, err = captured.out, captured.err
        assert rc == 0
        assert "Phase: selection" in err  # progress on stderr (issue 17)
        assert "Phase: revision" in err
        assert out.rstrip().endswith("E2E uncertainty")  # the synthesis alone on stdout
        assert "Phase:" not in out
        assert [body["model"] for body in fake.requests] == ["fake-model"] * 4
