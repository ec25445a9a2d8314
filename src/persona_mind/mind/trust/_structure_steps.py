"""The structural cues (:mod:`._phrases_structural`) asked one cue at a time, for the stepped
scan of a long text (:func:`persona_mind.mind.trust._verdict.verdict_steps`).

Why a step per cue: on a 1.5 KiB window of a pasted log the two dozen cue searches of the
learned layer cost several milliseconds together (``steer`` and ``destination`` about one
each), and the rules' refusing combinations search up to a dozen of them; run as one piece
they were the longest stretches a 4 MB scan held the event loop.  One search per ``next()``
keeps every step well under a millisecond.  The answers are those of the whole functions:
the same predicate per cue (:func:`._phrases_structural._has`), asked in the same order.
"""

from __future__ import annotations

from collections.abc import Generator

from persona_mind.mind.trust._phrases_structural import CUES, _combination, _has

__all__ = ("cue_steps", "structural_steps")


def cue_steps(folded: str) -> Generator[None, None, frozenset[str]]:
    """:func:`~._phrases_structural.cues` of ``folded`` (uncached) with a step before each
    cue's gate and search; the return value (``StopIteration.value``) is the same set."""
    found: set[str] = set()
    for name in CUES:
        if name == "destination" and not found & {"sensitive", "move"}:
            continue
        yield
        if _has(name, folded):
            found.add(name)
    return frozenset(found)


class _Ask(Exception):
    """The combinations asked for a cue not searched yet: a control-flow signal caught by
    :func:`structural_steps`, never raised out of this module (not a Mind error)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def structural_steps(folded: str) -> Generator[None, None, str | None]:
    """:func:`~._phrases_structural.structural_rule` of ``folded`` with a step before each cue
    the combinations ask for: they are re-read after each new answer (a few boolean tests),
    so the cues searched, their order and the result are the whole function's."""
    seen: dict[str, bool] = {}

    def has(name: str) -> bool:
        hit = seen.get(name)
        if hit is None:
            raise _Ask(name)
        return hit

    while True:
        try:
            return _combination(has, folded)
        except _Ask as ask:
            yield
            seen[ask.name] = _has(ask.name, folded)
