"""A Scheduler over a real Optimizer, Store and ChildRunner (scripted worker model)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from persona_mind.actors import ActorRef, ActorSystem
from persona_mind.actors.child_runner import ChildRunner
from persona_mind.actors.optimizer import spawn_optimizer
from persona_mind.actors.scheduler import spawn_scheduler
from persona_mind.messages.child import ChildReply, ChildRequest
from persona_mind.messages.scheduler import Activate, AutoSetting, SchedulerMsg
from persona_mind.mind.optimize import _schedule as rules
from persona_mind.runners._child_backend import ProgressFn
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from tests.optimize._helpers import scope_for, seed

MODEL = "fake/session-model"
LONG = " and keep the integration suite green before every release of the service"


class SignalModel(ScriptedModel):
    """A scripted worker model that signals each started and each cancelled child."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(clock)
        self.started = asyncio.Event()
        self.stopped = asyncio.Event()

    async def run(self, request: ChildRequest, on_progress: ProgressFn) -> ChildReply:
        self.started.set()
        try:
            return await super().run(request, on_progress)
        finally:
            self.stopped.set()


@dataclass
class Rig:
    """The running actors and what the scheduler appended as receipts."""

    clock: ManualClock
    system: ActorSystem
    model: SignalModel
    ref: ActorRef[SchedulerMsg]
    scope: Any
    entries: list[dict[str, Any]] = field(default_factory=list)
    settled_receipt: asyncio.Event = field(default_factory=asyncio.Event)

    async def status(self) -> str:
        """Also a barrier: every message told before it has been handled."""
        return "\n".join(await self.ref.ask(AutoSetting(verb="status")))

    def activate(self, entries: tuple[Any, ...] = ()) -> None:
        self.ref.tell(
            Activate(session_id="s1", owner="s1#1", scope=self.scope, model=MODEL, entries=entries)
        )

    def phases(self) -> list[str]:
        return [e["phase"] + ":" + e.get("outcome", "") for e in self.entries]


def seed_stm(tmp_path: Path, clock: ManualClock) -> None:
    seed(tmp_path, clock, [f"run ruff{LONG}", f"always run ruff{LONG}"], tier="stm")


@asynccontextmanager
async def rig(
    tmp_path: Path,
    *,
    hang: bool = False,
    trace: Path | None = None,
    enabled: bool = True,
    fail_started_once: bool = False,
) -> AsyncIterator[Rig]:
    """``fail_started_once``: the first started receipt raises (the Scheduler crashes)."""
    clock = ManualClock()
    seed_stm(tmp_path, clock)
    model = SignalModel(clock)
    model.on(phase="worker", hang=hang, reply='{"operations": []}')
    scope = scope_for(tmp_path)
    holder: list[Rig] = []
    failed: list[dict[str, Any]] = []

    async def append(custom_type: str, data: dict[str, Any]) -> None:
        assert custom_type == rules.RECEIPT_ENTRY_TYPE
        if fail_started_once and data["phase"] == "started" and not failed:
            failed.append(data)
            raise RuntimeError("the host refused the entry")
        holder[0].entries.append(data)
        if data["phase"] == "settled":
            holder[0].settled_receipt.set()

    async with ActorSystem(clock=clock, trace_path=trace) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="child-runner")
        opt = spawn_optimizer(system, scope.agent_dir, runner=lambda: runner)
        ref = spawn_scheduler(system, lambda: opt, append, enabled=enabled)
        holder.append(Rig(clock, system, model, ref, scope))
        yield holder[0]
