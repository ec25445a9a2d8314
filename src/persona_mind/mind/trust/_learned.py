"""The scanner's learned layer: a logistic-regression head on word and word-pair features.

Rules catch the spellings they were written for; a family phrased without their trigger
words ("the earlier guidance no longer applies", "to the assistant reading this file …",
"the lead already approved this") passes them.  This layer scores the *shape* of a text —
which words and word pairs occur, on the same folded form the rules match — with weights
learned from public labelled data (``bench/scanner_train.py``; the data, its provenance and
its split by source are in ``bench/data/README.md``).  It never refuses on its own: a high
score makes a verdict *suspicious* (:mod:`persona_mind.mind.trust._verdict`), which the
write policy turns into a question for the user.

Why features and not the embedding model: measured on the dev split, the hashed word and
word-pair head detects more than a head on the static embedding at the same false-positive
rate and costs a dictionary lookup per feature — no numpy, no model load, the same verdict
with or without the ``semantic`` extra (``docs/mind.md``, "Learned layer").

Weights ship in the package (``_learned_weights.json``): ``{"bias", "threshold",
"weights": {feature: weight}}`` and optionally ``"grams"`` (the character n-gram length of
:func:`features`, 0 or absent for none); loaded once, on first use.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Generator, Iterator
from functools import cache
from importlib import resources

from persona_mind.mind.trust._phrases_structural import cues
from persona_mind.mind.trust._structure_steps import cue_steps

__all__ = (
    "CUE_FLOOR",
    "MIN_TOKENS",
    "WINDOW",
    "Model",
    "cue_features",
    "features",
    "load_model",
    "score",
)

_TOKEN = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\u3040-\u30ff\uf900-\ufaff]|[^\W\d_]+|\d+|[^\w\s]")
"""Ideographs and kana one character each (no spaces between their words), otherwise runs
of letters, runs of digits, and single punctuation characters (``<``, ``!``, ``-``, ``:``
carry the shape of comments, tags and fake role headers)."""
_PREFIX = 5
WINDOW = 1024
"""Characters per scored window: a long text is scored window by window and its score is
the highest, so one injected paragraph in a long README is not diluted by the rest."""
_STEP = WINDOW - 256
CUE_FLOOR = -2.0
"""A window whose word features alone score below this log-odds (p < 0.12) is not searched
for structural cues: the cue searches cost several times the word features, and a text
that far from the threshold is ordinary prose (cascade measured in ``docs/mind.md``)."""
MIN_TOKENS = 4
"""A text of fewer tokens scores 0: too short to carry an instruction's shape (a number, "you",
"Thank you"), and the 1/sqrt(feature count) scaling would let one word decide."""


def features(folded: str, *, structure: bool = True, grams: int = 0) -> set[str]:
    """The feature set of one folded text: tokens, their five-letter prefixes (word
    families across inflections and languages), adjacent token pairs, and the structural
    cues of :mod:`._phrases_structural` alone and in pairs (``§persist+sensitive``): the
    parts of an instruction, so weights learn combinations that no particular wording
    carries.  ``grams`` > 0 adds the character n-grams of each letter run longer than
    ``grams`` (``*gram``): word pieces shared across compounds, inflections and languages
    that neither a whole token nor its prefix matches."""
    toks = ["#" if t.isdigit() else t for t in _TOKEN.findall(folded)]
    out = set(toks)
    out.update("~" + t[:_PREFIX] for t in toks if len(t) > _PREFIX)
    out.update(a + " " + b for a, b in itertools.pairwise(toks))
    if grams:
        out.update(
            "*" + t[i : i + grams]
            for t in set(toks)
            if len(t) > grams
            for i in range(len(t) - grams + 1)
        )
    if structure:
        out.update(cue_features(folded))
    return out


def cue_features(folded: str) -> set[str]:
    """The structural-cue features alone (``§cue`` and ``§a+b``); never a word feature, whose
    punctuation tokens are single characters."""
    return _cue_pairs(cues(folded))


def _cue_pairs(present: frozenset[str]) -> set[str]:
    parts = sorted(present)
    out = {"\u00a7" + c for c in parts}
    out.update("\u00a7" + a + "+" + b for a, b in itertools.combinations(parts, 2))
    return out


class Model:
    """Weights by feature, the bias, the shipped *suspicious* threshold and the character
    n-gram length the weights were trained with (0: none)."""

    __slots__ = ("bias", "grams", "threshold", "weights")

    def __init__(
        self, bias: float, threshold: float, weights: dict[str, float], grams: int = 0
    ) -> None:
        self.bias = bias
        self.threshold = threshold
        self.weights = weights
        self.grams = grams

    def _words(self, folded: str) -> tuple[float, int] | None:
        """The word features' summed weight and count (``None``: too few tokens to score)."""
        if len(_TOKEN.findall(folded, 0, 200)) < MIN_TOKENS:
            return None
        get = self.weights.get
        words = features(folded, structure=False, grams=self.grams)
        return sum(get(f, 0.0) for f in words), len(words)

    def _with_cues(self, total: float, count: int, extra: set[str]) -> float:
        get = self.weights.get
        total += sum(get(f, 0.0) for f in extra)
        return self.bias + total / math.sqrt(count + len(extra))

    def _opening(self, folded: str) -> tuple[float, tuple[float, int] | None]:
        """The log-odds from the word features alone, and those features' sum and count
        when the structural cues are still to be asked (``None`` when the words settle it)."""
        words = self._words(folded)
        if words is None:
            return -60.0, None
        first = self.bias + words[0] / math.sqrt(words[1])
        return first, (None if first < CUE_FLOOR else words)

    def logit(self, folded: str) -> float:
        """The log-odds that ``folded`` (one window) is an attack."""
        first, words = self._opening(folded)
        if words is None:
            return first
        # the words are not featurised a second time
        return self._with_cues(*words, cue_features(folded))

    def logit_steps(self, folded: str) -> Generator[None, None, float]:
        """:meth:`logit` in steps: the word features one, then each structural cue's search
        one (:func:`~._structure_steps.cue_steps`, uncached); the return value
        (``StopIteration.value``) is the same log-odds."""
        first, words = self._opening(folded)
        if words is None:
            return first
        present = yield from cue_steps(folded)
        return self._with_cues(*words, _cue_pairs(present))

    @staticmethod
    def windows(folded: str) -> Iterator[str]:
        """The scored windows of ``folded``, in order."""
        if len(folded) <= WINDOW + 256:
            yield folded
            return
        for i in range(0, len(folded) - 256, _STEP):
            yield folded[i : i + WINDOW]

    def window_logits(self, folded: str) -> Iterator[float]:
        """The log-odds of each scored window of ``folded``, one at a time."""
        for window in self.windows(folded):
            yield self.logit(window)

    @staticmethod
    def to_probability(logit: float) -> float:
        """The probability of a (clamped) log-odds."""
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, logit))))

    def probability(self, folded: str) -> float:
        """Highest attack probability over the windows of ``folded``."""
        return self.to_probability(max(self.window_logits(folded)))


@cache
def load_model() -> Model:
    """The shipped model (read once)."""
    raw = resources.files(__package__).joinpath("_learned_weights.json").read_text("utf-8")
    data = json.loads(raw)
    return Model(
        float(data["bias"]),
        float(data["threshold"]),
        dict(data["weights"]),
        int(data.get("grams", 0)),
    )


def score(folded: str) -> float:
    """Attack probability of the folded text under the shipped model."""
    return load_model().probability(folded)
