"""The write policy applied to one model ``remember``: store, hold as a proposal, or decline.

:class:`MindTools` asks :meth:`WriteGate.check` before a model write; ``None`` means the
policy lets the write through (the scanner still refuses unsafe text as before).  A held
write becomes a durable proposal (:mod:`persona_mind.mind._pending`) and the model's tool
result says it is pending, why, and that only the user can confirm it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from persona_mind.messages.memory import Origin
from persona_mind.mind._cards import Card
from persona_mind.mind._errors import AccessRefused
from persona_mind.mind._pending import propose
from persona_mind.mind._policy import WritePolicy, decide
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

    async def check(self, service: MemoryService, a: Mapping[str, Any]) -> Card | None:
        """``None`` to store as usual; else the pending card (or a decline refusal)."""
        text = a.get("text")
        if not isinstance(text, str):
            return None  # the tool's own validation refuses it
        found = verdict(text)
        if found.refused:
            return None  # the scanner's refusal stands; the normal path reports it
        d = decide(self.policy(), self.ledger.taint(text), found)
        if d.action == "store":
            return None
        if d.action == "decline":
            raise AccessRefused("policy.recall_only", f"{d.reason}; nothing was written")
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
            (
                p.fact.text,
                f"why: {d.reason}",
                "Only the user can confirm it (reply to the pending card, or "
                "`persona-mind memory pending approve " + p.fact.id + "`); do not ask again.",
            ),
            data={"id": p.fact.id, "tier": p.tier, "pending": True, "reason": d.reason},
        )
