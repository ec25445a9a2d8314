"""No-answer prompts and the dev/test split by source, for ``bench/recall.py``.

Why: share and any-evidence only ask whether the answer was injected; they cannot see a
memory that fills its budget when nothing applies.  A *no-answer* prompt is a real prompt
of a dataset asked of the same store with its answer's **source** taken out — for the
coding sets every fact of the prompt's repository (the curated facts and that project's
docs among the distractors), for a single-source set such as MADial-Bench the memories
labelled relevant to that dialogue — so the store still holds everything else, in the same
vocabulary, and nothing the prompt asks about.  Every token injected on such a prompt is
padding (or a fact the labels missed, which costs every ranker alike).

Sources are split into ``dev`` and ``test`` by a BLAKE2b hash of the source id (a
repository, or a dialogue), so a source lies wholly in one split, the split never depends
on the order of the file, and anything tuned on ``dev`` is reported on ``test``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Literal

__all__ = ("Split", "owned_by_source", "split_of")

Split = Literal["all", "dev", "test"]


def split_of(source: str) -> Literal["dev", "test"]:
    """``dev`` or ``test`` for a source id (deterministic, about half each)."""
    return "dev" if hashlib.blake2b(source.encode(), digest_size=8).digest()[0] % 2 else "test"


def owned_by_source(
    repo_of: Mapping[str, str], prompts: Iterable[tuple[str, set[str]]]
) -> dict[str, tuple[str, frozenset[str]]]:
    """For each prompt id: (its source id, the facts a no-answer store leaves out).

    With facts from several repositories a prompt's source is the repository (or sorted
    repositories) of its expected facts and every fact of those is left out; with one
    repository (or none) the source is the prompt itself and its expected facts are.
    """
    repos = set(repo_of.values())
    out: dict[str, tuple[str, frozenset[str]]] = {}
    if len(repos) > 1:
        by_repo: dict[str, set[str]] = {}
        for fid, repo in repo_of.items():
            by_repo.setdefault(repo, set()).add(fid)
        for pid, expected in prompts:
            mine = sorted({repo_of[e] for e in expected if e in repo_of})
            drop = frozenset().union(*(by_repo[r] for r in mine)) | frozenset(expected)
            out[pid] = ("+".join(mine) or pid, drop)
    else:
        for pid, expected in prompts:
            out[pid] = (pid, frozenset(expected))
    return out
