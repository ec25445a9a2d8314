"""``/mind optimize …`` and the memory tool's ``inspect`` / ``stage`` actions: cards only.

The verbs (M-OPTIMIZE-MANUAL-1): ``inspect [target] [offset=N] [limit=N] [fingerprint=F]``
shows one page with full text and ids; the agent stages exact replacements through the
memory tool (``action: "stage"``), whose card is the full, reviewable proposal (-44);
``apply <plan>`` commits it (a plain command — no extra confirmation loop, -45, and the
runtime never applies on its own, -43); ``history [target] [limit=N]`` lists receipts and
what needs recovery; ``undo <receipt> [target]`` restores a consolidation.

Bare ``/mind optimize``, ``/mind optimize all`` or a named target run an explicit review
by worker children through the Optimizer (``_optimize_review.py``). The command answers
at acceptance (:func:`review_acceptance`: the targets and "one bounded window per tier,
sequentially", M-OPTIMIZE-BATCH-8/9); the terminal report (:func:`run_optimize`) arrives
later as a report card.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable
from typing import Any, TypeVar

from persona_mind.mind._cards import Card, fact_line
from persona_mind.mind._errors import InvalidArgument, NotFound
from persona_mind.mind._model import Tier
from persona_mind.mind.optimize._activity import Phase
from persona_mind.mind.optimize._inspect import Inspection
from persona_mind.mind.optimize._plans import Applied, Plan, preview
from persona_mind.mind.optimize._port import OptimizeBinding
from persona_mind.mind.optimize._review import review_targets
from persona_mind.mind.optimize._stage import TIER_ALIASES

__all__ = (
    "OPTIMIZE_USAGE",
    "applied_card",
    "history_card",
    "inspection_card",
    "plan_card",
    "review_acceptance",
    "run_optimize",
    "tracked",
)

T = TypeVar("T")

OPTIMIZE_USAGE = (
    "usage: /mind optimize [all|persona|project|stm] | "
    "inspect [target] [offset=N] [limit=N] [fingerprint=F] | "
    "apply <plan> | history [target] [limit=N] | undo <receipt> [target] | "
    "auto [status|on|off]   "
    "(targets: persona, shared, project, stm — project-long is project; stage replacements "
    "with the memory tool)"
)
_TIERS: tuple[Tier, ...] = ("persona", "shared", "project", "stm")


def _tier(value: str | None, binding: OptimizeBinding) -> Tier:
    if value is None:
        return binding.default_tier()
    if value not in _TIERS:
        raise InvalidArgument("optimize.target", f"unknown target {value!r}\n{OPTIMIZE_USAGE}")
    return value


def _options(words: list[str]) -> tuple[list[str], dict[str, str]]:
    """Plain words (a target alias such as the seed's ``project-long`` read as its tier)
    and ``key=value`` options."""
    plain = [TIER_ALIASES.get(w, w) for w in words if "=" not in w]
    opts = dict(w.split("=", 1) for w in words if "=" in w)
    return plain, opts


def _int(opts: dict[str, str], name: str) -> int | None:
    if name not in opts:
        return None
    try:
        return int(opts[name])
    except ValueError:
        raise InvalidArgument(f"{name}.malformed", f"{name} must be a whole number") from None


def inspection_card(page: Inspection) -> Card:
    """Full text and ids of one page, paging hints, omission counts, advisory pairs."""
    end = page.offset + len(page.entries)
    omitted = page.omitted
    lines = [
        f"entries {page.offset + 1}-{end} of {page.matched} safe "
        f"(fingerprint {page.fingerprint[:16]})"
        if page.entries
        else f"no safe entries at offset {page.offset} of {page.matched}",
        f"omitted: {omitted.expired} expired, {omitted.superseded} superseded, "
        f"{omitted.foreign} other persona's, {omitted.unsafe} unsafe",
        *(fact_line(page.tier, f) for f in page.entries),
    ]
    if page.next_offset is not None:
        lines.append(f"next page: offset={page.next_offset} fingerprint={page.fingerprint}")
    lines += [f"similar (advisory only): {p.a} ~ {p.b} ({p.score})" for p in page.pairs]
    return Card(
        f"Inspect {page.tier}",
        tuple(lines),
        data={
            "tier": page.tier,
            "fingerprint": page.fingerprint,
            "offset": page.offset,
            "matched": page.matched,
            "nextOffset": page.next_offset,
            "ids": [f.id for f in page.entries],
            "pairs": [[p.a, p.b, p.score] for p in page.pairs],
        },
    )


def plan_card(plan: Plan) -> Card:
    """The full proposal: every source and every replacement, verbatim."""
    lines: list[str] = []
    for n, rep in enumerate(plan.replacements, 1):
        verb = "rewrite" if len(rep.sources) == 1 else f"consolidate {len(rep.sources)}"
        lines.append(f"{n}. {verb}:")
        lines += [f"   - {fact_line(plan.tier, s)}" for s in rep.sources]
        lines.append(f"   + {fact_line(plan.tier, rep.new)}")
    lines.append(f"apply with: /mind optimize apply {plan.id} (valid ten minutes)")
    return Card(f"Staged plan {plan.id} ({plan.tier})", tuple(lines), data=preview(plan))


def applied_card(done: Applied) -> Card:
    """Before and after of a committed consolidation or undo, and its receipt."""
    verb = "Applied" if done.kind == "apply" else "Undid"
    lines = [f"receipt {done.receipt} ({done.outcome})"]
    lines += [f"- {fact_line(done.tier, f)}" for f in done.before]
    lines += [f"+ {fact_line(done.tier, f)}" for f in done.after]
    lines += [f"warning: {w}" for w in done.warnings]
    if done.kind == "apply":
        lines.append(f"undo with: /mind optimize undo {done.receipt} {done.tier}")
    return Card(
        f"{verb} consolidation in {done.tier}",
        tuple(lines),
        data={"receipt": done.receipt, "needsRecovery": done.needs_recovery},
    )


def history_card(tier: Tier, rows: list[dict[str, Any]]) -> Card:
    """Receipts newest first; prepared ones flagged as needing recovery."""
    lines: list[str] = []
    for row in rows:
        flag = "  NEEDS RECOVERY" if row["needsRecovery"] else ""
        lines.append(f"{row['receipt']} {row['createdAt']} {row['note']} [{row['outcome']}]{flag}")
        if row["withheld"]:
            lines.append("   (texts withheld: they no longer pass the safety scan)")
        else:
            lines += [f"   - {t}" for t in row["before"] or ()]
            lines += [f"   + {t}" for t in row["after"] or ()]
    if any(r["needsRecovery"] for r in rows):
        lines.append(
            "a receipt needs recovery: `persona-mind store history reconcile <store file>` "
            "settles it when the store proves the outcome; otherwise inspect and `resolve`"
        )
    return Card(
        f"Optimize history ({tier})",
        tuple(lines) or ("(no receipts)",),
        data={"receipts": [r["receipt"] for r in rows]},
    )


async def tracked(
    binding: OptimizeBinding,
    phase: Phase,
    tier: Tier | None,
    work: Awaitable[T],
    *,
    activity: str | None = None,
) -> T:
    """Run local inspect/stage/apply work with its activity events (M-ACTIVITY-1, -6).

    A staged plan ends ``staged``; apply continues the plan's row. The row names only the
    target, phase and state.
    """
    key = activity or f"{phase}-{secrets.token_hex(3)}"
    target = tier or binding.default_tier()
    await binding.activity(key, phase, "running", target)
    try:
        result = await work
    except Exception:
        await binding.activity(key, phase, "failed", target)
        raise
    if isinstance(result, Plan):  # the staging row ends; the plan's own row is staged
        await binding.activity(key, phase, "done", result.tier)
        await binding.activity(result.id, "stage", "staged", result.tier)
    elif isinstance(result, Applied):
        await binding.activity(key, phase, "done", result.tier)
    else:
        await binding.activity(key, phase, "done", target)
    return result


async def _undo(binding: OptimizeBinding, receipt: str, target: str | None) -> Card:
    tiers = (_tier(target, binding),) if target else binding.scope.tiers()
    for tier in tiers:
        rows = await binding.port.history(binding.scope, tier, limit=32)
        if any(r["receipt"] == receipt for r in rows):
            return applied_card(await binding.port.undo(binding.scope, tier, receipt))
    raise NotFound("undo.unknown", f"no receipt {receipt!r} of yours in this scope's history")


async def _review(binding: OptimizeBinding, target: str | None) -> Card:
    """An explicit review (M-OPTIMIZE-BATCH-1..4): answered with the terminal report."""
    if not binding.model:
        raise InvalidArgument(
            "optimize.no_model", "the session has no model selected; reviews use exactly it"
        )
    report = await binding.port.review(binding.owner, binding.scope, target, binding.model)
    changed = [o.applied for o in report.outcomes if o.applied is not None]
    lines = list(report.lines())
    for done in changed:
        lines += [f"- {fact_line(done.tier, f)}" for f in done.before]
        lines += [f"+ {fact_line(done.tier, f)}" for f in done.after]
        lines.append(f"undo with: /mind optimize undo {done.receipt} {done.tier}")
    title = "Optimize review: " + ", ".join(f"{o.tier} {o.status}" for o in report.outcomes)
    return Card(title, tuple(lines), data={"run": report.run_id, "model": report.model})


def is_review(words: list[str]) -> bool:
    """Whether ``words`` (after ``optimize``) ask for a worker review, not a manual verb."""
    plain, _ = _options(words)
    return not plain or plain[0] == "all" or plain[0] in _TIERS


def review_acceptance(words: list[str], binding: OptimizeBinding) -> Card:
    """The short answer a review request gets once accepted (M-OPTIMIZE-BATCH-8, -9).

    Everything that can refuse before any store read or worker runs is checked here (the
    session model, the target rules incl. ``shared`` and home); a busy Optimizer or
    Scheduler refuses later, in the report card.
    """
    plain, _ = _options(words)
    if not binding.model:
        raise InvalidArgument(
            "optimize.no_model", "the session has no model selected; reviews use exactly it"
        )
    targets = review_targets(binding.scope, plain[0] if plain else None)
    line = (
        f"Optimize review accepted: {', '.join(targets)} - one bounded window per tier, "
        "run sequentially; the report follows as a card."
    )
    return Card("Optimize review accepted", (line,), data={"targets": list(targets)})


async def run_optimize(words: list[str], binding: OptimizeBinding) -> Card:
    """One ``/mind optimize`` invocation (``words`` after ``optimize``)."""
    plain, opts = _options(words)
    verb = plain[0] if plain else None
    rest = plain[1:]
    if verb is None or verb == "all" or verb in _TIERS:
        return await _review(binding, verb)
    if verb == "inspect":
        tier = _tier(rest[0] if rest else None, binding)
        page = await tracked(
            binding,
            "inspect",
            tier,
            binding.port.inspect(
                binding.scope,
                tier,
                offset=_int(opts, "offset") or 0,
                limit=_int(opts, "limit"),
                fingerprint=opts.get("fingerprint"),
            ),
        )
        return inspection_card(page)
    if verb == "apply" and len(rest) == 1:
        done = await tracked(
            binding,
            "apply",
            None,
            binding.port.apply(binding.owner, binding.scope, rest[0]),
            activity=rest[0],
        )
        return applied_card(done)
    if verb == "history":
        tier = _tier(rest[0] if rest else None, binding)
        rows = await binding.port.history(binding.scope, tier, limit=_int(opts, "limit"))
        return history_card(tier, rows)
    if verb == "undo" and rest:
        return await _undo(binding, rest[0], rest[1] if len(rest) > 1 else None)
    raise InvalidArgument("optimize.usage", OPTIMIZE_USAGE)
