"""The children section of ``persona-mind demo``: a consult and a round-table on the fake pi.

Real parts: a ChildRunner actor, real child processes (the shipped fake ``pi``, which
speaks Pi's RPC protocol), the bundled ``software-team`` pack resolved for the workspace.
Offline and quick (~1-2 s). The lead's demo calls :func:`demo_children` with its system.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from persona_mind.actors import ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.roundtable import run_roundtable
from persona_mind.children import PiBackend, consult, consult_many
from persona_mind.cli._children import fake_script, load_team
from persona_mind.clock import MonotonicClock
from persona_mind.errors import ChildError
from persona_mind.messages.child import ChildTeam
from persona_mind.messages.roundtable_progress import RoundtableProgress
from persona_mind.persona import render_consult
from persona_mind.sim import SCRIPT_ENV, fake_pi_command

__all__ = ("demo_children",)

Say = Callable[[str], object]


def _setup(workspace: Path) -> tuple[ChildTeam, Path]:
    team = load_team("software-team", workspace / ".no-agent-dir", workspace)
    script = Path(tempfile.mkdtemp(prefix="pm-demo-")) / "fake-pi.json"
    script.write_text(json.dumps(fake_script(team)), encoding="utf-8")
    return team, script


async def demo_children(
    system: ActorSystem, say: Say, *, workspace: Path | None = None, name: str = "child-runner"
) -> None:
    """Run a consult, sibling consults, a refused consult and a round-table; narrate them."""
    team, script = await asyncio.to_thread(_setup, workspace or Path.cwd())
    backend = PiBackend(fake_pi_command(), clock=MonotonicClock(), env={SCRIPT_ENV: str(script)})
    runner = system.spawn(lambda: ChildRunner(backend), name=name)
    model = "fake/fake-model"
    say("\n-- children: consult and round-table on the fake pi (real processes) --")
    result = await consult(
        runner,
        team,
        requester="architect",
        active="architect",
        consultant="security-reviewer",
        model=model,
        question="Is storing the API token in the repo config safe?",
    )
    say(render_consult(result))
    both = await consult_many(
        runner,
        team,
        requester="tech-lead",
        active="tech-lead",
        model=model,
        asks=[("architect", "Where is the seam?"), ("test-engineer", "What would you test?")],
    )
    say(f"two sibling consults in parallel: {[type(r).__name__ for r in both]}")
    try:
        await consult(
            runner,
            team,
            requester="architect",
            active="architect",
            consultant="architect",
            question="?",
            model=model,
        )
    except ChildError as exc:
        say(f"refused before launch: {exc}")
    phases: list[str] = []

    def progress(p: RoundtableProgress) -> None:
        if not phases or phases[-1] != p.phase:
            phases.append(p.phase)
            say(f"  round-table phase: {p.phase} — {p.phase_purpose}")

    outcome = await run_roundtable(
        system,
        runner,
        team,
        "Queue or cron for nightly reports?",
        model,
        on_progress=progress,
        run_id="demo",
    )
    roster = ", ".join(f"{n} ({r})" for n, r in outcome.roster)
    say(f"roster chosen by the [G] lead: {roster}")
    say(f"{outcome.children} children, {outcome.elapsed:.2f}s; the synthesis in full:")
    say(outcome.synthesis)
    await runner.stop()
    await asyncio.to_thread(shutil.rmtree, script.parent, ignore_errors=True)
