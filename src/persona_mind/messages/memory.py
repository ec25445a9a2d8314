"""The memory fact: a value type that both the domain and the message vocabulary speak.

It lives here, in ``messages/``, because the Optimizer's answers (an inspected page, a
staged plan, an applied receipt, a review report) carry whole facts, and messages import
only values. ``mind`` defines the memory *rules* (identity, ids, TTLs: ``mind/_model.py``)
and re-exports :class:`Fact` from here, so ``from persona_mind.mind import Fact`` keeps
working. The on-disk form is the struct's fields (seed 000 "Durable files"): renaming one is
a store migration.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ("ORIGIN_LABELS", "Fact", "FactStatus", "Kind", "Origin", "Tier", "origin_label")

Kind = Literal["objective", "invariant", "preference", "convention", "gotcha", "rationale", "note"]
Tier = Literal["persona", "shared", "project", "stm"]
FactStatus = Literal["active", "superseded"]
Origin = Literal[
    "user",
    "model",
    "tool-output",
    "peer",
    "report",
    "mcp",
    "cli",
    "library",
    "import",
    "review",
    "consolidation",
    "roundtable",
    "unknown",
]
"""Where a record's words came from (issue 27 item 1). ``user``: the user's own words
(deterministic capture); ``model``: the model's tool call in its own words; ``tool-output``,
``peer`` (a consult or round-table answer) and ``report`` (a relayed child report): text that
entered the session without the user typing it, written only once the user confirmed it;
``mcp``, ``cli``, ``library``: the face that wrote it; ``import`` (migration and
``memory import``), ``review`` (the automatic review worker), ``consolidation`` (an applied
plan), ``roundtable`` (a decision record). Stores written before origins read as
``unknown``."""

ORIGIN_LABELS: dict[str, str] = {
    "user": "typed by the user",
    "model": "the model",
    "tool-output": "tool output",
    "peer": "a peer's answer",
    "report": "a relayed report",
    "mcp": "an MCP client",
    "cli": "the CLI",
    "library": "the library",
    "import": "import",
    "review": "the review worker",
    "consolidation": "consolidation",
    "roundtable": "round-table",
    "unknown": "unknown",
}


def origin_label(origin: str, *, confirmed: bool = False) -> str:
    """The short label shown in ``list``/``read`` and on an injected line, for example
    ``tool output, confirmed by the user``."""
    label = ORIGIN_LABELS.get(origin, origin)
    return f"{label}, confirmed by the user" if confirmed else label


class Fact(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True
):
    """One LTM or STM row.

    ``omit_defaults``: a field at its default is not written, so an additive field (``origin``,
    ``confirmed``) costs nothing on rows that leave it unset and a store near the 16 MiB cap
    does not outgrow it when rewritten; readers fill the defaults back in.
    """

    id: str
    kind: Kind
    text: str
    tags: tuple[str, ...] = ()
    persona: str | None = None
    source: str | None = None
    recordedAt: float  # noqa: N815 - on-disk camelCase (seed 000)
    lastSeenAt: float  # noqa: N815
    expiresAt: float | None = None  # noqa: N815 - STM only
    status: FactStatus = "active"
    supersededBy: str | None = None  # noqa: N815
    derivedFrom: tuple[str, ...] = ()  # noqa: N815
    origin: Origin = "unknown"
    confirmed: bool = False
    """True when the user approved an untrusted write (the write policy's pending card)."""

    def live(self, now: float) -> bool:
        """Active and not expired (read-time expiry filtering, M-MIGRATE-7)."""
        return self.status == "active" and (self.expiresAt is None or self.expiresAt > now)
