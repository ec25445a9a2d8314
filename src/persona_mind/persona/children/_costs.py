"""How a child's cost is told: one usage line, and a session's totals per persona.

Every consult, round-table child and review worker reports its usage (Pi's input, output,
cache-read and cache-write tokens, and ``cost.total`` where Pi's events carry it). These
are the texts the tool results, the live round-table view, the decision record and
``/persona status`` show. Pure Persona rules: no IO.
"""

from __future__ import annotations

from collections.abc import Iterable

from persona_mind.messages.child import ChildKind, ChildSpend, ChildUsage

__all__ = ("GROUPS", "group_of", "spend_lines", "usage_text")

GROUPS: dict[str, str] = {
    "consult": "consult",
    "select": "round-table",
    "round1": "round-table",
    "round2": "round-table",
    "synthesis": "round-table",
    "worker": "review worker",
}
"""What a user calls each child kind: a consult, a round-table child, a review worker."""


def group_of(kind: ChildKind | str) -> str:
    return GROUPS.get(kind, str(kind))


def _n(value: int) -> str:
    return f"{value:,}"


def usage_text(usage: ChildUsage, *, brief: bool = False) -> str:
    """``12,345 tokens (input 10,000 · output 2,000 · cache read 300) · $0.0123``.

    Parts that are zero are left out of the parenthesis; ``brief`` keeps only the total
    and the cost (the ten-line live view)."""
    head = f"{_n(usage.total_tokens)} tokens"
    parts = [
        f"{label} {_n(value)}"
        for label, value in (
            ("input", usage.input_tokens),
            ("output", usage.output_tokens),
            ("cache read", usage.cache_read_tokens),
            ("cache write", usage.cache_write_tokens),
        )
        if value
    ]
    if parts and not brief:
        head += f" ({' · '.join(parts)})"
    if usage.cost:
        head += f" · ${usage.cost:.4f}"
    return head


def spend_lines(rows: Iterable[ChildSpend]) -> list[str]:
    """``/persona status``: this session's children in total, then one line per persona."""
    per: dict[str, dict[str, int]] = {}
    usage: dict[str, ChildUsage] = {}
    total = ChildUsage()
    count = 0
    for row in rows:
        kinds = per.setdefault(row.persona, {})
        group = group_of(row.kind)
        kinds[group] = kinds.get(group, 0) + row.children
        usage[row.persona] = usage.get(row.persona, ChildUsage()) + row.usage
        total = total + row.usage
        count += row.children
    if not count:
        return ["Children this session: none yet (consults, round-tables, review workers)."]
    lines = [f"Children this session: {count}, {usage_text(total)}."]
    for name in sorted(per, key=lambda n: (-usage[n].total_tokens, n)):
        kinds = per[name]
        what = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
        lines.append(f"  {name}: {what}; {usage_text(usage[name], brief=True)}")
    return lines
