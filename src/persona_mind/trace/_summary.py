"""A compact account of a trace: counts per actor and event kind, drops, restarts, anomalies.

Where the timeline answers "what happened, in order", the summary answers "how much, and
is anything off": a message delivered twice, or sent and never delivered nor dropped.
Tests use it to assert on a whole run without matching timeline text.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import msgspec

from persona_mind.trace._schema import EVENT_KINDS
from persona_mind.trace._text import terminal_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from persona_mind.trace._schema import TraceEvent

__all__ = ("TraceSummary", "render_summary", "summarize")


class TraceSummary(msgspec.Struct, frozen=True, kw_only=True):
    """Aggregates over a sequence of events (``--summary``; ``--summary --json`` encodes it)."""

    events: int
    """How many events were summarised."""
    span_ms: float
    """Milliseconds from the first to the last event (0 for fewer than two)."""
    per_actor: dict[str, dict[str, int]]
    """actor → event kind → count; the actor is the one the event concerns (``actor``)."""
    drops_by_reason: dict[str, int]
    """Drop reason → count (``"unknown"`` when a drop carries no reason)."""
    restarts: dict[str, int]
    """actor → restarts."""
    crashes: dict[str, int]
    """actor → crashes."""
    escalations: dict[str, int]
    """actor → escalations."""
    undelivered: list[int]
    """Ids sent but neither delivered nor dropped (in flight at the end, or lost)."""
    duplicate_deliveries: list[int]
    """Ids delivered more than once; a correct kernel never produces one."""


def _per_actor(events: Sequence[TraceEvent], kind: str) -> dict[str, int]:
    return dict(sorted(Counter(e.actor for e in events if e.ev == kind).items()))


def summarize(events: Sequence[TraceEvent]) -> TraceSummary:
    """Summarise ``events``; with a filter applied the anomalies reflect only what is kept.

    Filter by actor or correlation id, not by event kind, when the anomaly lists matter:
    a view of only ``send`` events has every message "undelivered".
    """
    per_actor: dict[str, Counter[str]] = {}
    for event in events:
        per_actor.setdefault(event.actor, Counter())[event.ev] += 1
    ordered = {
        actor: {kind: counts[kind] for kind in EVENT_KINDS if counts[kind]}
        for actor, counts in sorted(per_actor.items())
    }
    drops = Counter(e.reason or "unknown" for e in events if e.ev == "drop")
    sent = [e.id for e in events if e.ev == "send" and e.id is not None]
    delivered = Counter(e.id for e in events if e.ev == "deliver" and e.id is not None)
    dropped = {e.id for e in events if e.ev == "drop" and e.id is not None}
    return TraceSummary(
        events=len(events),
        span_ms=(events[-1].t - events[0].t) * 1000 if len(events) > 1 else 0.0,
        per_actor=ordered,
        drops_by_reason=dict(sorted(drops.items())),
        restarts=_per_actor(events, "restart"),
        crashes=_per_actor(events, "crash"),
        escalations=_per_actor(events, "escalate"),
        undelivered=sorted({i for i in sent if i not in delivered and i not in dropped}),
        duplicate_deliveries=sorted(i for i, n in delivered.items() if n > 1),
    )


def _ids(ids: list[int], limit: int = 20) -> str:
    shown = ", ".join(f"#{i}" for i in ids[:limit])
    return shown + (f", … ({len(ids) - limit} more)" if len(ids) > limit else "")


def _counts(title: str, counts: dict[str, int]) -> list[str]:
    if not counts:
        return [f"{title}: none"]
    return [f"{title}:"] + [f"  {terminal_text(k)}: {n}" for k, n in counts.items()]


def render_summary(summary: TraceSummary) -> str:
    """The summary as readable text: an actor × event table, then the aggregates."""
    lines = [f"{summary.events} events over {summary.span_ms:.3f} ms"]
    kinds = [k for k in EVENT_KINDS if any(k in row for row in summary.per_actor.values())]
    if kinds:
        names = [terminal_text(actor) for actor in summary.per_actor]
        first = max(len("actor"), *(len(n) for n in names))
        widths = [max(len(k), 3) for k in kinds]
        header = ["actor".ljust(first)] + [k.rjust(w) for k, w in zip(kinds, widths, strict=True)]
        lines.append("  ".join(header))
        for name, row in zip(names, summary.per_actor.values(), strict=True):
            cells = [name.ljust(first)]
            cells += [str(row.get(k, 0)).rjust(w) for k, w in zip(kinds, widths, strict=True)]
            lines.append("  ".join(cells))
    lines += _counts("drops by reason", summary.drops_by_reason)
    lines += _counts("restarts", summary.restarts)
    lines += _counts("crashes", summary.crashes)
    lines += _counts("escalations", summary.escalations)
    lines.append(
        "undelivered (sent, never delivered or dropped): "
        + (_ids(summary.undelivered) if summary.undelivered else "none")
    )
    lines.append(
        "delivered more than once: "
        + (_ids(summary.duplicate_deliveries) if summary.duplicate_deliveries else "none")
    )
    return "\n".join(lines) + "\n"
