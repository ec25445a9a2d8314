"""``persona-mind roundtable "<query>"``: run one round-table on a real (or the fake) pi.

The team comes from the pack store under the agent directory, else the bundled catalog
(default ``software-team``); the model is ``--model`` or the user's configured default in
``<agentDir>/settings.json`` (``defaultProvider``/``defaultModel``) and is passed exactly
to every child. Progress goes to stderr while it runs (phase, roster, per-persona state,
totals — never the opinions); the moderator synthesis is the answer, on stdout (with
``--json``: one document with the query, team, model and synthesis). Without ``--pi`` or
``--fake`` the children run the ``pi`` found on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

import anyio

from persona_mind.cli import _schema as out
from persona_mind.cli._output import emit, fail
from persona_mind.clock import MonotonicClock
from persona_mind.errors import PersonaMindError
from persona_mind.messages.child import ChildTeam
from persona_mind.messages.roundtable_progress import RoundtableProgress

__all__ = ("add_parser", "fake_script", "fake_synthesis", "load_team", "run_roundtable_cli")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "roundtable",
        help="run a round-table (lead selects specialists, 2 rounds, one synthesis) on pi",
        description=__doc__,
    )
    p.add_argument("query", help="the question for the panel")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--pi", help="the pi executable (or 'node cli.js') for the children (default: pi on PATH)"
    )
    src.add_argument("--fake", action="store_true", help="use the shipped fake pi (offline)")
    p.add_argument(
        "--team", default="software-team", help="pack name or source/name (default: software-team)"
    )
    p.add_argument("--model", help="provider/model (default: the agent dir's configured model)")
    p.add_argument("--agent-dir", type=Path, help="Pi agent dir (default: $PI_CODING_AGENT_DIR)")
    p.add_argument("--mode", choices=("rpc", "json"), default="rpc", help="how children talk to pi")
    p.add_argument(
        "--phase-deadline", type=float, default=180.0, help="seconds each phase may take"
    )
    p.add_argument("--cwd", default=None, help="working folder for the children")
    p.add_argument("--trace", type=Path, help="write the actor trace here")
    p.add_argument("--fake-delay", type=float, default=0.0, help="fake children's latency")
    p.add_argument("--quiet", action="store_true", help="print only the synthesis")
    p.set_defaults(func=run_roundtable_cli)


def _agent_dir(arg: Path | None) -> Path:
    if arg is not None:
        return arg
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


def configured_model(agent_dir: Path) -> str | None:
    """``provider/model`` from Pi's settings.json, or ``None``."""
    try:
        data = json.loads((agent_dir / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    provider, model = data.get("defaultProvider"), data.get("defaultModel")
    if isinstance(provider, str) and isinstance(model, str) and provider and model:
        return f"{provider}/{model}"
    return None


def load_team(name: str, agent_dir: Path, workspace: Path) -> ChildTeam:
    """Resolve pack ``name`` (``source/name`` or bare) from the store, else the catalog."""
    from persona_mind.persona import (  # noqa: PLC0415 - keep CLI start-up light
        CATALOG_DIR,
        AmbiguousPackName,
        Workspace,
        load_pack,
        resolve_team,
        team_from_snapshot,
    )

    source, _, bare = name.rpartition("/")
    sources = (source,) if source else ("official", "custom")
    found = [src for src in sources if (agent_dir / "persona" / src / bare).is_dir()]
    if len(found) > 1:  # P-PACK-5: a bare name matching both is refused, never guessed
        raise AmbiguousPackName(name, tuple(f"{src}/{bare}" for src in found))
    for src in found:
        pack = load_pack(agent_dir / "persona" / src / bare, src)  # type: ignore[arg-type]
        return team_from_snapshot(resolve_team(pack, Workspace(workspace)))
    if source in ("", "official") and (CATALOG_DIR / bare).is_dir():
        pack = load_pack(CATALOG_DIR / bare, "official")
        return team_from_snapshot(resolve_team(pack, Workspace(workspace)))
    raise PersonaMindError(
        f"no persona pack {name!r} in {agent_dir / 'persona'} or the bundled catalog; "
        "see `persona-mind persona pack list`"
    )


def fake_synthesis(query: str, names: list[str]) -> str:
    """A scripted, readable synthesis for the offline fake: every section says something.

    The fake cannot think, so the text is built from the question and the roster; it shows
    the shape a real moderator's answer has (the five sections of ``SECTIONS``).
    """
    from persona_mind.persona import SECTIONS  # noqa: PLC0415 - keep CLI start-up light

    who = names or ["the lead"]
    first, second = who[0], who[-1]
    body = {
        "Perspectives": "\n".join(
            f"- {name}: looks at {query!r} from its own field and names one risk." for name in who
        ),
        "Disagreements": (
            f"- {first} wants the simplest option that works today; {second} wants room to "
            "grow before committing."
        ),
        "Tradeoffs": (
            "- Simple now vs. flexible later: the simple option ships this week, the flexible "
            "one avoids a migration.\n- Either way the team owns the operational load."
        ),
        "Decision": (
            f"Start with the simple option, behind an interface {second} can replace; "
            "revisit when the load doubles."
        ),
        "Uncertainty": (
            "Load figures are guesses until measured; measure for a week before revisiting."
        ),
    }
    return "\n\n".join(f"## {title}\n{body[title]}" for title, _ in SECTIONS)


def fake_script(team: ChildTeam, delay: float = 0.0, query: str = "") -> dict[str, Any]:
    """A fake-pi script for a whole round-table: a valid selection and a full synthesis."""
    from persona_mind.persona import SELECT_MARKER, SYNTHESIS_MARKER  # noqa: PLC0415

    chosen = team.specialists[:3]
    picks = [{"name": p.name, "reason": f"cover {p.description or p.name}"[:200]} for p in chosen]
    synthesis = fake_synthesis(query or "the question", [p.name for p in chosen])
    return {
        "rules": [
            {"prompt_contains": SELECT_MARKER, "reply": json.dumps({"specialists": picks})},
            {"prompt_contains": SYNTHESIS_MARKER, "reply": synthesis, "delay": delay},
        ],
        "default": {"delay": delay},
    }


def _key(p: RoundtableProgress) -> tuple[object, ...]:
    return (
        p.phase,
        p.lead_state,
        tuple((s.name, s.state, s.activity) for s in p.roster),
        p.children_finished,
    )


def _changes(old: RoundtableProgress, new: RoundtableProgress) -> list[str]:
    """One line per persona whose state or activity changed (never its opinion)."""
    before = {s.name: (s.state, s.activity) for s in old.roster}
    lines = [
        f"{s.name}: {s.state}" + (f" ({s.activity})" if s.activity else "")
        for s in new.roster
        if before.get(s.name) != (s.state, s.activity)
    ]
    if new.lead_state != old.lead_state:
        lines.append(f"{new.lead} (moderator): {new.lead_state}")
    return lines


class _Setup(NamedTuple):
    team: ChildTeam
    command: tuple[str, ...]
    model: str
    env: dict[str, str]
    workspace: Path


def _prepare(args: argparse.Namespace) -> _Setup | str:
    """Blocking set-up (files, pack resolution) before the event loop starts."""

    agent_dir = _agent_dir(args.agent_dir)
    workspace = Path(args.cwd or os.getcwd()).resolve()
    from persona_mind.persona import Workspace, backend_problem  # noqa: PLC0415
    from persona_mind.sim import SCRIPT_ENV, fake_pi_command  # noqa: PLC0415

    problem = backend_problem(Workspace(workspace))
    if problem is not None:  # P-CHILD-6/7: a start-up error, never another backend
        return problem
    team = load_team(args.team, agent_dir, workspace)
    env: dict[str, str] = {}
    if args.fake:
        script = Path(tempfile.mkdtemp(prefix="pm-fake-pi-")) / "script.json"
        script.write_text(json.dumps(fake_script(team, args.fake_delay, args.query)))
        env[SCRIPT_ENV] = str(script)
        return _Setup(team, fake_pi_command(), args.model or "fake/fake-model", env, workspace)
    given = args.pi or shutil.which("pi")
    if not given:
        return (
            'no pi: put Pi on PATH (a checkout can run `eval "$(./scripts/install-pi.sh)"`), '
            "pass --pi PATH, or try --fake"
        )
    command = tuple(given.split()) if " " in given else (given,)
    model = args.model or configured_model(agent_dir)
    if model is None:
        return (
            f"no model: pass --model provider/id or set defaultProvider/defaultModel "
            f"in {agent_dir / 'settings.json'}"
        )
    return _Setup(team, command, model, env, workspace)


async def _run(args: argparse.Namespace, setup: _Setup) -> int:
    from persona_mind.actors import ActorSystem  # noqa: PLC0415
    from persona_mind.actors.child_runner import ChildRunner  # noqa: PLC0415
    from persona_mind.children import PiBackend, render_progress, run_roundtable  # noqa: PLC0415

    team, command, model, env, workspace = setup
    clock = MonotonicClock()
    backend = PiBackend(command, clock=clock, mode=args.mode, env=env)
    shown: list[RoundtableProgress] = []

    def show(progress: RoundtableProgress) -> None:
        previous = shown[-1] if shown else None
        shown.append(progress)
        if args.quiet:
            return
        if previous is None or previous.phase != progress.phase:
            block = render_progress(progress, header=previous is None)
            print(block, end="\n\n", file=sys.stderr, flush=True)
            return
        for line in _changes(previous, progress):
            print(f"  {line}", file=sys.stderr, flush=True)

    async with ActorSystem(clock=clock, trace_path=args.trace) as system:
        runner = system.spawn(lambda: ChildRunner(backend), name="child-runner")
        try:
            result = await run_roundtable(
                system,
                runner,
                team,
                args.query,
                model,
                on_progress=show,
                phase_deadline=args.phase_deadline,
                cwd=str(workspace),
                run_id="cli",
            )
        except PersonaMindError as exc:
            if args.quiet and shown:
                print(render_progress(shown[-1]), file=sys.stderr)
            return fail(args, f"round-table failed: {exc}", 1)
    doc = out.RoundtableOut(
        query=args.query, team=args.team, model=model, synthesis=result.synthesis
    )
    emit(args, doc, result.synthesis)
    return 0


def run_roundtable_cli(args: argparse.Namespace) -> int:
    from persona_mind.sim import SCRIPT_ENV  # noqa: PLC0415 - keep CLI start-up light

    try:
        setup = _prepare(args)
        if isinstance(setup, str):
            return fail(args, f"roundtable: {setup}", 2)
        try:
            return anyio.run(_run, args, setup)
        finally:
            script = setup.env.get(SCRIPT_ENV)
            if script:
                shutil.rmtree(Path(script).parent, ignore_errors=True)
    except PersonaMindError as exc:
        return fail(args, f"roundtable: {exc}", 2)
    except KeyboardInterrupt:
        print("persona-mind roundtable: interrupted; children were stopped", file=sys.stderr)
        return 130
