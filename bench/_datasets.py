"""The datasets of ``bench/recall.py``: loaders for its three formats, production-shaped ids
and the dev/test filter (split from the harness to keep each module small)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from bench._noanswer import Split, owned_by_source, split_of
from persona_mind.mind import Fact

__all__ = ("Case", "in_split", "load", "production_ids")


@dataclass
class Case:
    """One haystack and the questions asked of it."""

    facts: list[Fact]
    questions: list[tuple[str, str, set[str]]]
    owned: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    """Question id → (its source, the facts its no-answer store leaves out); see _noanswer."""

    def source(self, qid: str) -> tuple[str, frozenset[str]]:
        evidence = next(ev for q, _, ev in self.questions if q == qid)
        return self.owned.get(qid, (qid, frozenset(evidence)))


def _fact(fid: str, text: str, n: float, kind: str = "note", tags: Sequence[str] = ()) -> Fact:
    return Fact(
        id=fid,
        kind=kind,  # type: ignore[arg-type]
        text=text,
        tags=tuple(tags),
        recordedAt=float(n),
        lastSeenAt=float(n),
    )


def _sessions(doc: dict[str, Any], path: Path) -> list[Case]:
    facts: list[Fact] = []
    for session in doc["sessions"]:
        for turn in session.get("turns", []):
            text = f"{turn.get('speaker', '?')}: {turn['text']}"
            tag = str(session.get("id", "")).lower()
            facts.append(_fact(str(turn["id"]), text, len(facts) + 1, tags=(tag,)))
    questions = [
        (str(q["id"]), str(q["question"]), {str(e) for e in q["evidence"]})
        for q in doc.get("questions", [])
    ]
    if not questions:
        raise ValueError(f"{path}: no questions")
    return [Case(facts, questions)]


def _facts(doc: dict[str, Any], path: Path) -> list[Case]:
    facts = [
        _fact(
            str(f["id"]),
            str(f["text"]),
            float(f.get("recordedAt", i + 1)),
            str(f.get("kind", "note")),
            f.get("tags", ()),
        )
        for i, f in enumerate(doc["facts"])
    ]
    ids = {f.id for f in facts}
    questions = []
    for p in doc.get("prompts", []):
        expected = {str(e) for e in p["expected"]}
        if not expected or not expected <= ids:
            raise ValueError(f"{path}: prompt {p.get('id')!r} expects unknown facts")
        questions.append((str(p["id"]), str(p["prompt"]), expected))
    if not questions:
        raise ValueError(f"{path}: no prompts")
    repo_of = {str(f["id"]): str((f.get("source") or {}).get("repo", "")) for f in doc["facts"]}
    owned = owned_by_source(repo_of, [(q, ev) for q, _, ev in questions])
    return [Case(facts, questions, owned)]


def _longmemeval(doc: list[Any], path: Path) -> list[Case]:
    cases: list[Case] = []
    for inst in doc:
        qid = str(inst["question_id"])
        if qid.endswith("_abs"):
            continue
        facts: list[Fact] = []
        evidence: set[str] = set()
        for s, (sid, turns) in enumerate(
            zip(inst["haystack_session_ids"], inst["haystack_sessions"], strict=True)
        ):
            for t, turn in enumerate(turns):
                fid = f"{sid}:{t}"
                facts.append(_fact(fid, f"{turn['role']}: {turn['content']}", len(facts) + 1))
                if turn.get("has_answer"):
                    evidence.add(fid)
            del s
        if evidence:
            cases.append(Case(facts, [(qid, str(inst["question"]), evidence)]))
    if not cases:
        raise ValueError(f"{path}: no instance with labelled evidence turns")
    return cases


def load(path: Path) -> list[Case]:
    """Parse and check a dataset; a malformed file raises ValueError naming the problem."""
    doc: Any = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(doc, list):
        return _longmemeval(doc, path)
    if isinstance(doc, dict) and isinstance(doc.get("facts"), list):
        return _facts(doc, path)
    if isinstance(doc, dict) and isinstance(doc.get("sessions"), list):
        return _sessions(doc, path)
    raise ValueError(f"{path}: expected 'sessions'/'questions', 'facts'/'prompts' or a list")


def production_ids(cases: Sequence[Case]) -> list[Case]:
    """The cases with every fact id replaced by one shaped like Mind's (``m_`` + 16 hex of
    a hash of the dataset id), evidence mapped alike.  Why: a dataset's own ids ("mem-12",
    "t3") are shorter than a real store's, and the block shows ids, so keeping them would
    flatter Mind within a token budget."""

    def ident(fid: str) -> str:
        return "m_" + hashlib.sha256(fid.encode()).hexdigest()[:16]

    return [
        Case(
            [msgspec.structs.replace(f, id=ident(f.id)) for f in case.facts],
            [(qid, q, {ident(e) for e in ev}) for qid, q, ev in case.questions],
            {q: (src, frozenset(map(ident, drop))) for q, (src, drop) in case.owned.items()},
        )
        for case in cases
    ]


def in_split(cases: Sequence[Case], split: Split) -> list[Case]:
    """The cases with only the questions whose source lies in ``split``."""
    if split == "all":
        return list(cases)
    out = []
    for case in cases:
        qs = [t for t in case.questions if split_of(case.source(t[0])[0]) == split]
        if qs:
            out.append(Case(case.facts, qs, case.owned))
    return out
