"""The write policy applied to one model write: store, hold as a proposal, or decline.

:class:`MindTools` asks :meth:`WriteGate.check` before a model write; ``None`` means the
policy lets the write through (``remember``; ``check_supersede`` and ``check_stage`` for
the rewrites) (the scanner still refuses unsafe text as before).  A held
write becomes a durable proposal (:mod:`persona_mind.mind._pending`) and the model's tool
result says it is pending, why, and that only the user can confirm it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from persona_mind.messages.memory import Origin
from persona_mind.mind._cards import Card
from persona_mind.mind._errors import AccessRefused
from persona_mind.mind._pending import propose
from persona_mind.mind._pending_rewrites import propose_supersede
from persona_mind.mind._policy import Decision, WritePolicy, decide
from persona_mind.mind._service import MemoryService
from persona_mind.mind.capture._relay import RELAY_TOOLS
from persona_mind.mind.trust._taint import TaintLedger
from persona_mind.mind.trust._verdict import verdict

__all__ = ("WriteGate", "source_of_tool")

_OWN_TOOLS = frozenset({"memory", "backlog"})
_PEER_TOOLS = frozenset({"persona_consult", "persona_roundtable"})


def source_of_tool(name: str) -> Origin | None:
    """The taint source of a tool's result: a relayed child report, a consulted persona's or
    round-table's answer, any other tool's output; ``None`` for Mind's own tools
    (their results echo what was stored, not new outside text)."""
    if name in _OWN_TOOLS:
        return None
    if name in RELAY_TOOLS:  # delegate, council, flow: a child's report relayed up
        return "report"
    if name in _PEER_TOOLS:
        return "peer"
    return "tool-output"


class WriteGate:
    """One session's policy check for model writes (owned by :class:`MindSession`)."""

    __slots__ = ("ledger", "policy")

    def __init__(self, ledger: TaintLedger, policy: Callable[[], WritePolicy]) -> None:
        self.ledger = ledger
        self.policy = policy

    def _decide(self, text: object) -> Decision | None:
        """The policy's decision for ``text``; ``None`` when the normal path answers
        (not a string: validation refuses it; a refusing verdict: the scanner's refusal
        stands under every policy)."""
        if not isinstance(text, str):
            return None
        found = verdict(text)
        if found.refused:
            return None
        return decide(self.policy(), self.ledger.taint(text), found)

    async def check(self, service: MemoryService, a: Mapping[str, Any]) -> Card | None:
        """``None`` to store as usual; else the pending card (or a decline refusal)."""
        d = self._decide(a.get("text"))
        if d is None or d.action == "store":
            return None
        if d.action == "decline":
            raise AccessRefused("policy.recall_only", f"{d.reason}; nothing was written")
        text = str(a["text"])
        p = await propose(
            service,
            a.get("kind", ""),
            text,
            tags=a.get("tags", []),
            source=a.get("source"),
            tier=a.get("tier"),
            origin=d.origin,
        )
        return Card(
            f"Pending {p.tier} {p.fact.kind} {p.fact.id} — not saved yet",
            (p.fact.text, f"why: {d.reason}", _only_user(p.fact.id)),
            data={"id": p.fact.id, "tier": p.tier, "pending": True, "reason": d.reason},
        )

    async def check_supersede(self, service: MemoryService, a: Mapping[str, Any]) -> Card | None:
        """A model ``supersede``: ``None`` to replace as usual; else the pending card whose
        approval retires the old fact (or a decline refusal)."""
        d = self._decide(a.get("text"))
        if d is None or d.action == "store" or not isinstance(a.get("id"), str):
            return None
        if d.action == "decline":
            raise AccessRefused("policy.recall_only", f"{d.reason}; nothing was replaced")
        p, old = await propose_supersede(
            service,
            str(a["id"]),
            str(a["text"]),
            kind=a.get("kind"),
            tags=a.get("tags"),
            origin=d.origin,
        )
        return Card(
            f"Pending supersede of {old} by {p.tier} {p.fact.kind} {p.fact.id} — not saved yet",
            (
                p.fact.text,
                f"would retire: {old} (it stays active until the user approves)",
                f"why: {d.reason}",
                _only_user(p.fact.id),
            ),
            data={
                "id": p.fact.id,
                "tier": p.tier,
                "pending": True,
                "reason": d.reason,
                "supersedes": old,
            },
        )

    def check_stage(self, operations: Sequence[object]) -> tuple[str, ...]:
        """A model ``stage``: the reasons its plan must wait for the user (empty: stage as
        usual).  Raises the decline under ``recall-only``; an operation the scanner refuses
        is left to the staging path, which refuses the whole plan."""
        reasons: list[str] = []
        for n, op in enumerate(operations, 1):
            d = self._decide(op.get("text") if isinstance(op, Mapping) else None)
            if d is None or d.action == "store":
                continue
            if d.action == "decline":
                raise AccessRefused("policy.recall_only", f"{d.reason}; nothing was staged")
            reasons.append(f"operation {n}: {d.reason}")
        return tuple(reasons)


def _only_user(proposal_id: str) -> str:
    return (
        "Only the user can confirm it (reply to the pending card, or "
        f"`persona-mind memory pending approve {proposal_id}`); do not ask again."
    )
