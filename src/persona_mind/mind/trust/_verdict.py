"""One verdict per text: refuse, suspicious or clean, with its reasons; cached, and safe to
compute off the event loop in bounded steps.

* **refuse** — a rule fired (:func:`persona_mind.mind.trust._scanner.scan`): a secret, an
  injected instruction, deception, hidden characters.  Deterministic and explainable; this
  is what withholds a stored fact and refuses a write.
* **suspicious** — no rule fired but the learned layer
  (:mod:`persona_mind.mind.trust._learned`) scores the text at or above its shipped
  threshold.  Nothing is refused for this alone: the write policy asks the user.
* **clean** — neither.

``reasons`` are stable strings (``"secret/url-credentials"``, ``"learned/instruction-like"``)
a caller may show or log; they never echo the matched text.

Cost and the event loop: a verdict of an ordinary memory costs the rules plus one dictionary
lookup per feature, and repeated texts are answered from a cache keyed by the text (texts
over :data:`CACHE_MAX_CHARS` by their BLAKE2b digest).  A text longer than
:data:`OFFLOAD_CHARS` must not be scanned on an event loop: run :func:`verdict` on the IO
executor (every regular-expression call then works on one window of at most
:data:`STEP_CHARS`, so the loop's thread gets the interpreter back between them), or drive
:func:`verdict_steps` and yield to the loop between its steps.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from persona_mind.mind.trust._learned import load_model
from persona_mind.mind.trust._normalize import fold, skeleton
from persona_mind.mind.trust._scanner import Finding, iter_windows, scan, scan_steps

__all__ = (
    "CACHE_MAX_CHARS",
    "OFFLOAD_CHARS",
    "STEP_BUDGET",
    "STEP_CHARS",
    "Level",
    "Verdict",
    "model_form",
    "needs_offload",
    "verdict",
    "verdict_async",
    "verdict_steps",
    "verdict_uncached",
    "warm",
)

Level = Literal["refuse", "suspicious", "clean"]
OFFLOAD_CHARS = 64 * 1024
"""Above this many characters a caller on an event loop must offload (executor or steps):
the rules and the learned layer together cost about 1 ms per 2 KiB on a shared core."""
STEP_CHARS = 1024
"""Characters per step of a long text; consecutive steps overlap by :data:`STEP_OVERLAP`.
Small, because the rules' work on one window is cut into steps of one pass or one pattern
search each (:func:`~persona_mind.mind.trust._scanner.scan_steps`), and a step runs on the
event loop between its other tasks (:func:`verdict_async`): on 1.5 KiB of ordinary text a
step costs well under a millisecond (about 0.7 ms at worst on a loaded shared core), while
the window as one piece costs 1-4 ms."""
STEP_OVERLAP = 512
"""Longer than any phrase rule's match (their filler runs are bounded to a few words) and
any token format's; a PEM body is longer, but its header alone is a finding."""
STEP_BUDGET = 0.0005
"""Seconds of steps :func:`verdict_async` runs between two passes of the event loop: a
pass per step would spend more time in the loop than in the scan (a 4 MB text is about
70,000 steps); a budget keeps every stretch on the loop within about a millisecond of CPU
(the budget plus one step)."""
CACHE_MAX_CHARS = 16 * 1024
"""Texts up to this size are cache keys themselves; longer ones are keyed by digest."""
_CACHE_SIZE = 16_384
_BIG_CACHE_SIZE = 64
LEARNED_REASON = "learned/instruction-like"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The scanner's answer for one text."""

    level: Level
    reasons: tuple[str, ...]
    """``category/rule`` of each rule finding, or ``learned/instruction-like``; empty when
    clean."""
    score: float
    """The learned layer's attack probability (0.0 when a rule refused: not computed)."""
    findings: tuple[Finding, ...] = ()

    @property
    def refused(self) -> bool:
        return self.level == "refuse"

    @property
    def suspicious(self) -> bool:
        return self.level == "suspicious"


def model_form(text: str) -> str:
    """The folded form the learned layer scores: :func:`fold` with Latin lookalikes mapped."""
    return skeleton(fold(text))


def needs_offload(text: str) -> bool:
    """Whether a caller on an event loop must scan ``text`` on an executor or in steps."""
    return len(text) > OFFLOAD_CHARS


def _from_findings(findings: tuple[Finding, ...]) -> Verdict:
    return Verdict("refuse", tuple(f"{f.category}/{f.rule}" for f in findings), 0.0, findings)


def _learned(form: str) -> Verdict:
    model = load_model()
    p = model.probability(form)
    if p >= model.threshold:
        return Verdict("suspicious", (LEARNED_REASON,), round(p, 4))
    return Verdict("clean", (), round(p, 4))


def verdict_uncached(text: str) -> Verdict:
    """The verdict of a text up to :data:`CACHE_MAX_CHARS`, computed afresh (benchmarks)."""
    findings = scan(text)
    return _from_findings(findings) if findings else _learned(model_form(text))


_small = lru_cache(maxsize=_CACHE_SIZE)(verdict_uncached)


_BIG: OrderedDict[bytes, Verdict] = OrderedDict()


_KEY_CHUNK = 64 * 1024


def _key_steps(text: str) -> Generator[None, None, bytes]:
    """BLAKE2b of the text, fed :data:`_KEY_CHUNK` characters per step (no long call)."""
    h = hashlib.blake2b(digest_size=16)
    for i in range(0, len(text), _KEY_CHUNK):
        h.update(text[i : i + _KEY_CHUNK].encode("utf-8", "surrogatepass"))
        yield
    return h.digest()


def _confirmed(text: str, i: int) -> Generator[None, None, tuple[Finding, ...]]:
    """The findings of window ``i``'s neighbourhood (the windows before and after it, as one
    piece of at most four steps' characters), in steps.  A window cuts text: the secret it
    sees may be a longer token's head, the token it sees may have lost the words before it
    that call it an id.  Rescanning the attack with its context around it gives the finding
    (and the rule name) a scan of the whole text gives, and drops a finding that only the
    cut made; empty: scan on."""
    start = max(0, (i - 1) * STEP_CHARS)
    region = text[start : (i + 2) * STEP_CHARS + STEP_OVERLAP]
    found = yield from scan_steps(region)
    return found


def verdict_steps(text: str) -> Generator[None, None, Verdict]:
    """The verdict of ``text`` computed in bounded steps: each ``next()`` does at most one
    pass or one pattern search of the rules over one window of :data:`STEP_CHARS`
    characters (plus overlap), one scored window's word features or one structural cue's
    search of the learned layer, or one chunk of the cache key's digest; the generator's
    return value (``StopIteration.value``) is the verdict.  Cached like :func:`verdict`; an
    abandoned generator caches nothing."""
    if len(text) <= CACHE_MAX_CHARS:
        return _small(text)
    key = yield from _key_steps(text)
    hit = _BIG.get(key)
    if hit is not None:
        return hit
    findings: tuple[Finding, ...] = ()
    for i, part in enumerate(iter_windows(text, STEP_CHARS, STEP_OVERLAP)):
        found = yield from scan_steps(part)
        yield
        if found:
            findings = yield from _confirmed(text, i)
            if findings:
                break
    if findings:
        result = _from_findings(findings)
    else:
        model = load_model()
        top = -60.0
        for part in iter_windows(text, STEP_CHARS, STEP_OVERLAP):
            form = model_form(part)
            yield
            for window in model.windows(form):  # a scored window's words, then its cues
                top = max(top, (yield from model.logit_steps(window)))
                yield
        best = model.to_probability(top)
        level: Level = "suspicious" if best >= model.threshold else "clean"
        reasons = (LEARNED_REASON,) if level == "suspicious" else ()
        result = Verdict(level, reasons, round(best, 4))
    _BIG[key] = result
    while len(_BIG) > _BIG_CACHE_SIZE:
        try:
            _BIG.popitem(last=False)
        except KeyError:  # another worker thread evicted it first
            break
    return result


def verdict(text: str) -> Verdict:
    """The verdict of ``text`` (cached).  Offload it when :func:`needs_offload` says so: on a
    worker thread a long text is scanned window by window and the worker gives the
    interpreter away (``time.sleep(0)``) after each, so the loop's thread waits at most one
    window's work — not the switch interval — for it."""
    if len(text) <= CACHE_MAX_CHARS:
        return _small(text)
    steps = verdict_steps(text)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: Verdict = done.value
            return result
        time.sleep(0)  # hand the interpreter to the event loop's thread between windows


async def _next_turn() -> None:
    await asyncio.sleep(0)


async def verdict_async(
    text: str,
    *,
    pause: Callable[[], Awaitable[None]] = _next_turn,
    budget: float = STEP_BUDGET,
    timer: Callable[[], float] = time.perf_counter,
) -> Verdict:
    """The verdict of ``text`` for a caller on an event loop, never holding it for much
    longer than ``budget`` seconds.  A text up to :data:`OFFLOAD_CHARS` is one step
    (computed inline, like :func:`verdict`); a longer one is driven through
    :func:`verdict_steps`, and once the steps since the last pause have used ``budget`` of
    ``timer`` it awaits ``pause`` (by default one pass of the loop), so the loop's other
    tasks — the extension's pings, a turn's 750 ms fail-open deadline — run at least every
    ``budget`` plus one step, and a cancelled caller stops the scan there.  ``budget=0``
    pauses after every step.  Why on the loop and not a worker thread: a worker holds the
    interpreter until the switch interval (5 ms) forces it out, and on a loaded machine the
    loop thread then waits for the scheduler as well; a step is a bound the caller
    controls."""
    if not needs_offload(text):
        return verdict(text)
    steps = verdict_steps(text)
    start = timer()
    while True:
        try:
            next(steps)
        except StopIteration as done:
            result: Verdict = done.value
            return result
        if timer() - start >= budget:
            await pause()
            start = timer()


def warm() -> None:
    """Load what the first verdict would otherwise load on the caller's thread: the learned
    layer's weights and TR39's confusables table (about 0.1 s together).  Call it once on
    the IO executor at start-up so no turn pays for it on the event loop."""
    from persona_mind.mind.trust._fence import lookalike_brackets  # noqa: PLC0415

    load_model()
    lookalike_brackets()
    skeleton("\u0430a")  # builds the lookalike tables
    verdict("warm-up")
