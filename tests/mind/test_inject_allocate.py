"""Round-robin admission asks only the sections still admitting (issue 10, a cheaper plan):
the lines, their order and the omissions are those of asking every section every round."""

from __future__ import annotations

import random
from collections.abc import Sequence

from persona_mind.mind import Fact, FactIndex
from persona_mind.mind.inject import _budget as budgeting
from persona_mind.mind.inject._lines import fixed
from persona_mind.mind.recall._retrieval import Ranked


def every_section_every_round(
    budget: budgeting.Budget, sections: Sequence[budgeting.Section]
) -> None:
    """The round-robin as first written: rounds over all sections until none progressed."""
    progressed = True
    while progressed:
        progressed = False
        for sec in sections:
            progressed = budgeting._admit_next(budget, sec) or progressed
    for sec in sections:
        for heading, entries in sec.groups.items():
            budget.lines.append(f"## {heading}\n")
            budget.lines += [line for line, _ in entries]
            budget.items += [item for _, item in entries]
        budget.omitted[sec.key] = budget.omitted.get(sec.key, 0) + max(
            0, sec.total - len(sec.items)
        )


def sections(rng: random.Random) -> list[budgeting.Section]:
    out = []
    for s in range(rng.randint(0, 5)):
        facts = [
            Fact(
                id=f"m_{s:02d}{i:06x}",
                kind=rng.choice(["note", "convention", "objective"]),
                text=" ".join("word" * rng.randint(1, 3) for _ in range(rng.randint(1, 150))),
                recordedAt=float(i),
                lastSeenAt=float(i),
            )
            for i in range(rng.randint(0, 12))
        ]
        index = FactIndex.build(facts)
        cands = [(f"t{s}", Ranked(f, 1.0), index) for f in facts]
        byte_cap = rng.choice([None, rng.randint(50, 2000)])
        heading = fixed(f"Tier {s}")
        cap = rng.randint(0, 8)
        out.append(budgeting.Section(f"k{s}", heading, cands, cap, len(facts), byte_cap))
    return out


def test_asking_only_admitting_sections_admits_the_same_lines() -> None:
    rng = random.Random(10)
    for _ in range(300):
        secs = sections(rng)
        limit = rng.randint(0, 8000)
        fresh = [
            [budgeting.Section(s.key, s.heading, s.cands, s.cap, s.total, s.byte_cap) for s in secs]
            for _ in range(2)
        ]
        new, old = budgeting.Budget(0, limit), budgeting.Budget(0, limit)
        budgeting._allocate(new, fresh[0])
        every_section_every_round(old, fresh[1])
        assert new.lines == old.lines
        assert [(i.section, i.id) for i in new.items] == [(i.section, i.id) for i in old.items]
        assert (new.used, new.omitted, new.clipped, new.unsafe) == (
            old.used,
            old.omitted,
            old.clipped,
            old.unsafe,
        )
