"""How Mind's commands and tools reach the Optimizer without importing an actor.

:class:`OptimizerPort` is what the runtime provides (an adapter asking the Optimizer
actor); :class:`OptimizeBinding` fixes it to one session owner and scope, so a command or
tool call can never act on another session's plans. The owner key changes with every
owner generation, so plans staged before a session, persona or workspace change are
unreachable afterwards even before the Optimizer has dropped them (M-OPTIMIZE-MANUAL-39).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from persona_mind.mind._model import Tier
from persona_mind.mind._scope import MindScope
from persona_mind.mind.optimize._activity import Activity, Phase, State
from persona_mind.mind.optimize._inspect import Inspection
from persona_mind.mind.optimize._plans import Applied, Plan
from persona_mind.mind.optimize._review import ReviewReport

__all__ = ("OptimizeBinding", "OptimizerPort")


class OptimizerPort(Protocol):
    """The Optimizer's operations (see ``messages/optimizer.py``)."""

    async def inspect(
        self,
        scope: MindScope,
        tier: Tier,
        *,
        offset: int = 0,
        limit: int | None = None,
        fingerprint: str | None = None,
    ) -> Inspection: ...

    async def stage(self, owner: str, scope: MindScope, tier: Tier, operations: object) -> Plan: ...

    async def apply(self, owner: str, scope: MindScope, plan_id: str) -> Applied: ...

    async def undo(self, scope: MindScope, tier: Tier, receipt: str) -> Applied: ...

    async def history(
        self, scope: MindScope, tier: Tier, *, limit: int | None = None
    ) -> list[dict[str, Any]]: ...

    async def review(
        self, owner: str, scope: MindScope, target: str | None, model: str
    ) -> ReviewReport: ...

    async def admit_review(self) -> None:
        """Raise the refusal a review request would get now (nothing is started)."""
        ...

    def discard(self, owner: str) -> None: ...


@dataclass(frozen=True, slots=True)
class OptimizeBinding:
    """One session owner's view of the Optimizer."""

    port: OptimizerPort
    owner: str
    scope: MindScope
    model: str | None = None
    publish: Callable[[Activity], Awaitable[None]] | None = None

    async def activity(self, activity: str, phase: Phase, state: State, target: Tier) -> None:
        """Publish one ``pi-persona:activity:v1`` event for local work (M-ACTIVITY-1)."""
        if self.publish is not None and target in ("persona", "shared", "project", "stm"):
            event = Activity(
                session=self.owner, activity=activity, phase=phase, state=state, target=target
            )
            await self.publish(event)

    def default_tier(self) -> Tier:
        """Project STM in a project, persona LTM in home (shared only when named)."""
        if self.scope.project is not None:
            return "stm"
        return "persona"
