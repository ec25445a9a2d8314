"""bench/recall.py: the in-benchmark BM25 floor, the bundled sets, and clean skips (issue 16)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from bench import _bigcoding as bigcoding
from bench import _madial as madial
from bench import recall
from bench._bm25 import BM25, bm25_pick
from bench._datasets import in_split, load, production_ids
from bench._noanswer import split_of

from persona_mind.mind import Fact
from persona_mind.mind._text import index_terms

HAS_MODEL = importlib.util.find_spec("wordllama") is not None
CODING = Path(recall.__file__).parent / "data" / "coding_memory.json"


def _rows(
    capsys: pytest.CaptureFixture[str], argv: list[str], all_ok: bool = True
) -> dict[str, dict[str, object]]:
    """The run's rows by name; ``all_ok`` also asserts the exit code (0 = no row missed)."""
    code = recall.main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in doc["results"]}
    missed = [n for n, r in rows.items() if r["ok"] is False]
    assert code == (1 if missed else 0), doc
    if all_ok:
        assert not missed, missed
    return rows


def test_lexical_with_stemming_never_below_bm25_on_coding_set(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 16 acceptance: lexical-with-stemming does not fall below the BM25 floor on the
    coding set, at the caps and within 1,000 and 2,400 tokens.

    Where it does not hold — the paraphrased synthetic set, whose questions share only
    stop words with their evidence: BM25 scores "the", Mind does not — the miss is reported
    in docs/mind.md; the harness still runs those rows.
    """
    rows = _rows(capsys, ["--ranker", "lexical"], all_ok=False)
    for setting in ("caps", "budget@1000", "budget@2400"):
        for measure in ("any", "share"):
            row = rows[f"coding_memory {setting} {measure} lexical"]
            assert 0.0 <= row["value"] <= 1.0  # type: ignore[operator]
            assert row["value"] >= row["floor"], row  # type: ignore[operator]
            assert row["ok"] is True
    for setting in ("caps", "budget@1000", "budget@2400"):  # every row is reported
        assert rows[f"recall_synthetic {setting} entries lexical"]["unit"] == "entries"


@pytest.mark.skipif(not HAS_MODEL, reason="the semantic extra (wordllama) is not installed")
def test_hybrid_beats_bm25_at_production_caps_on_coding_set(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 16 acceptance: hybrid ≥ BM25 + 5 points at the production caps (4 entries)."""
    rows = _rows(capsys, ["--dataset", str(CODING), "--ranker", "hybrid"])
    for measure in ("any", "share"):
        row = rows[f"coding_memory caps {measure} hybrid"]
        assert row["ok"] is True
        assert row["value"] >= row["floor"] + 0.05  # type: ignore[operator]


@pytest.mark.skipif(not HAS_MODEL, reason="the semantic extra (wordllama) is not installed")
def test_hybrid_recalls_paraphrases_bm25_misses_on_synthetic_set(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 16: on paraphrased questions (no content word shared with the evidence) hybrid
    beats BM25 by ≥ 5 points at the caps and within every token budget."""
    synthetic = CODING.parent / "recall_synthetic.json"
    rows = _rows(capsys, ["--dataset", str(synthetic), "--ranker", "hybrid"])
    for setting in ("caps", "budget@1000", "budget@2400"):
        for measure in ("any", "share"):
            row = rows[f"recall_synthetic {setting} {measure} hybrid"]
            assert row["ok"] is True, row


def test_coding_set_is_well_formed() -> None:
    """≥ 300 facts with provenance, ≥ 150 prompts whose expected facts exist."""
    doc = json.loads(CODING.read_text(encoding="utf-8"))
    assert len(doc["facts"]) >= 300
    assert len(doc["prompts"]) >= 150
    ids = {f["id"] for f in doc["facts"]}
    assert len(ids) == len(doc["facts"])
    for f in doc["facts"]:
        assert f["source"]["repo"].count("/") == 1
        assert f["source"]["path"]
    for p in doc["prompts"]:
        assert p["expected"]
        assert set(p["expected"]) <= ids


def test_bm25_floor_ranks_by_term_weight() -> None:
    """The in-benchmark BM25 is real BM25: a rare matching term outranks a common one."""
    facts = [
        Fact(id=f"c{i}", kind="note", text="common words here", recordedAt=i, lastSeenAt=i)
        for i in range(5)
    ] + [Fact(id="r", kind="note", text="rare zebra here", recordedAt=9, lastSeenAt=9)]
    bm = BM25(facts)
    assert bm.ranked("zebra common")[0].id == "r"
    assert bm25_pick(bm, "zebra", cap=1, budget=None) == {"r"}
    # facts it does not match never follow (as Mind's relevance floor): no recency filler
    assert [f.id for f in bm.ranked("zebra")] == ["r"]
    assert bm25_pick(bm, "common", cap=None, budget=7) == {"c4"}  # 20-byte lines, 21 fit


def test_recall_harness_skips_missing_dataset(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert recall.main(["--dataset", str(tmp_path / "absent.json"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"] == []
    assert "not found" in doc["skipped"]


def test_malformed_dataset_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"sessions": [], "questions": []}')
    with pytest.raises(ValueError, match="no questions"):
        load(bad)
    bad.write_text(
        '{"facts": [{"id": "a", "text": "x"}], "prompts": [{"id": "p", '
        '"prompt": "q", "expected": ["zz"]}]}'
    )
    with pytest.raises(ValueError, match="unknown facts"):
        load(bad)


def test_longmemeval_loader_uses_turn_labels(tmp_path: Path) -> None:
    """The documented loader for a LongMemEval-format file: has_answer turns are evidence."""
    inst = {
        "question_id": "q1",
        "question": "What degree did I get?",
        "haystack_session_ids": ["s1", "s2"],
        "haystack_sessions": [
            [{"role": "user", "content": "hello"}],
            [{"role": "user", "content": "I studied physics", "has_answer": True}],
        ],
    }
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([inst, {**inst, "question_id": "q2_abs"}]))
    cases = load(path)
    assert len(cases) == 1  # the abstention instance is skipped
    assert cases[0].questions[0][2] == {"s2:0"}
    assert [f.id for f in cases[0].facts] == ["s1:0", "s2:0"]


def _madial_fixture(root: Path) -> Path:
    """A hand-written two-memory, two-dialogue archive in MADial-Bench's JSON-lines layout."""
    en = root / "data" / "en"
    en.mkdir(parents=True)
    mems = [
        {
            "7": {
                "time": "2023-12-25",
                "scene": "Activity",
                "emotion": "Happy",
                "event": "Ana sang at the winter concert and felt proud.",
            }
        },
        {
            "9": {
                "time": "2024-02-01",
                "scene": "Others",
                "emotion": "Sad",
                "event": "Ana lost her blue scarf on the bus.",
            }
        },
    ]
    dialogues = [
        {
            "dialogue": [
                "<BOD>\n",
                '<Ana>: "I have a show tonight!"\n',
                '<Assistant>: "Remember your concert?"\n',
                "<EOD>\n",
            ],
            "test-turn": [2],
            "relevant-id": [7],
            "user-id": 1,
        },
        {
            "dialogue": [
                "<BOD>\n",
                '<Ana>: "It is cold."\n',
                '<Ana>: "Brr."\n',
                '<Assistant>: "Your scarf..."\n',
            ],
            "test-turn": [3, 2],
            "relevant-id": [9, 9],
            "user-id": 1,
        },
    ]
    (en / madial.MEMORY).write_text("\n".join(json.dumps(m) for m in mems) + "\n")
    (en / madial.DIALOGUE).write_text("\n".join(json.dumps(d) for d in dialogues) + "\n")
    return en


def test_madial_converter_keeps_context_before_first_test_turn(tmp_path: Path) -> None:
    """The public conversational set: memories become facts, the dialogue before the first
    test turn becomes the prompt (the test turn itself would leak the answer), relevant ids
    become the expected facts; the output loads in the harness."""
    _madial_fixture(tmp_path / "MADial-Bench")
    doc = madial.convert(tmp_path / "MADial-Bench")
    assert [f["id"] for f in doc["facts"]] == ["mem-7", "mem-9"]
    assert doc["facts"][0]["tags"] == ["activity", "happy"]
    assert doc["facts"][1]["recordedAt"] == 1706745600.0  # 2024-02-01 UTC
    first, second = doc["prompts"]
    assert first == {"id": "d001", "prompt": "Ana: I have a show tonight!", "expected": ["mem-7"]}
    assert second["prompt"] == "Ana: It is cold."  # min(test-turn) = 2, not 3
    assert second["expected"] == ["mem-9"]
    out = tmp_path / "madial.json"
    assert madial.main([str(tmp_path / "MADial-Bench"), str(out)]) == 0
    (case,) = load(out)
    assert {f.id: f.recordedAt for f in case.facts}["mem-7"] == 1703462400.0
    assert madial.convert(tmp_path / "MADial-Bench") == doc  # deterministic


def test_madial_converter_refuses_unknown_memories_and_empty_context(tmp_path: Path) -> None:
    en = _madial_fixture(tmp_path)
    bad = {"dialogue": ["<BOD>\n", '<Ana>: "hi"\n'], "test-turn": [2], "relevant-id": [3]}
    (en / madial.DIALOGUE).write_text(json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match="unknown memories"):
        madial.convert(en)
    bad = {"dialogue": ["<BOD>\n", '<Ana>: "hi"\n'], "test-turn": [1], "relevant-id": [7]}
    (en / madial.DIALOGUE).write_text(json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match="leaves no context"):
        madial.convert(en)
    (en / madial.MEMORY).write_text("{not json\n")
    with pytest.raises(ValueError, match=r"memory.json:1: not a JSON line"):
        madial.convert(en)
    assert madial.main([str(tmp_path / "absent"), str(tmp_path / "o.json")]) == 2


GUIDE = """# Style

Intro paragraph that is long enough to count as a real sentence here. Short one.

```python
def never_a_fact(): return "code is dropped even when it is a long enough line"
```

- Prefer [small functions](https://example.org/x) over `very_long` **ones** in every module.
- See https://example.org for details about this rule and many other rules.

| a table row | is dropped even when it is long enough to count |
|---|---|

Intro paragraph that is long enough to count as a real sentence here.
"""


def test_large_store_extracts_prose_sentences_only() -> None:
    """Distractors are guideline sentences: code, tables, headings, URLs and duplicates out."""
    assert bigcoding.sentences(GUIDE) == [
        "Intro paragraph that is long enough to count as a real sentence here.",
        "Prefer small functions over very_long ones in every module.",
    ]


def test_large_store_quotas_spread_picks_and_refuse_too_few() -> None:
    assert bigcoding._quotas([10, 2, 10], 12) == [5, 2, 5]
    assert sum(bigcoding._quotas([400, 30, 7], 300)) == 300
    with pytest.raises(ValueError, match="hold 3 candidate sentences"):
        bigcoding._quotas([1, 2], 5)


def test_large_store_build_is_deterministic_and_keeps_the_coding_prompts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """≥ base facts + distractors, base prompts unchanged, same bytes on a rebuild; a missing
    source is a clear error naming the repository, path and commit to check out."""
    guide = tmp_path / "acme" / "guides" / "STYLE.md"
    guide.parent.mkdir(parents=True)
    rule = "Rule number {} says every widget needs a reviewer before it ships."
    lines = [rule.format(i) for i in range(9)]
    guide.write_text("\n\n".join(lines))
    monkeypatch.setattr(bigcoding, "SOURCES", (("acme/guides", "c0ffee", "STYLE.md", "acme"),))
    doc = bigcoding.build(tmp_path, total=3)
    base = json.loads(CODING.read_text(encoding="utf-8"))
    extra = [f for f in doc["facts"] if f["id"].startswith("x-")]
    assert [f["text"] for f in extra] == [lines[0], lines[3], lines[6]]  # evenly spaced
    assert all(f["tags"] == ["acme"] and f["source"]["repo"] == "acme/guides" for f in extra)
    assert len(doc["facts"]) == len(base["facts"]) + 3
    assert doc["prompts"] == base["prompts"]
    assert sorted(f["recordedAt"] for f in doc["facts"]) == [
        float(i + 1) for i in range(len(doc["facts"]))
    ]
    assert bigcoding.build(tmp_path, total=3) == doc
    out = tmp_path / "large.json"
    assert bigcoding.main([str(tmp_path), str(out), "--distractors", "3"]) == 0
    assert len(load(out)[0].facts) == len(doc["facts"])
    guide.unlink()
    with pytest.raises(ValueError, match=r"acme/guides STYLE\.md not found.*c0ffee"):
        bigcoding.build(tmp_path, total=3)


def test_synthetic_questions_paraphrase_their_evidence() -> None:
    """Version 2 of the synthetic set: a question shares no content word (nor stem) with its
    evidence turn — only stop words, which index terms leave out — as a user asks in other
    words than they wrote."""
    doc = json.loads((CODING.parent / "recall_synthetic.json").read_text(encoding="utf-8"))
    turns = {t["id"]: t["text"] for s in doc["sessions"] for t in s["turns"]}
    assert len(doc["questions"]) == 20
    for q in doc["questions"]:
        (evidence,) = q["evidence"]
        shared = set(index_terms(q["question"])) & set(index_terms(turns[evidence]))
        assert not shared, (q["id"], shared)


def test_facts_get_ids_shaped_like_minds_and_evidence_follows() -> None:
    """The block shows ids, so the harness measures Mind with ids as long as a real store's
    (``m_`` + 16 hex), not a dataset's shorter ones (``--ids dataset`` keeps those)."""
    (case,) = load(CODING)
    (shaped,) = production_ids([case])
    assert all(len(f.id) == 18 and f.id.startswith("m_") for f in shaped.facts)
    assert len({f.id for f in shaped.facts}) == len(case.facts)
    by_text = {f.text: f.id for f in shaped.facts}
    old_text = {f.id: f.text for f in case.facts}
    for (qid, q, ev), (qid2, q2, ev2) in zip(case.questions, shaped.questions, strict=True):
        assert (qid, q) == (qid2, q2)
        assert ev2 == {by_text[old_text[e]] for e in ev}


def test_no_answer_prompts_drop_their_source_and_splits_partition_by_source() -> None:
    """Issue 23 item 5: a no-answer store lacks every fact of the prompt's repository, and
    dev/test split by repository (never by prompt), the same on every run."""
    cases = load(CODING)
    (case,) = cases
    repo_of = {f["id"]: f["source"]["repo"] for f in json.loads(CODING.read_text())["facts"]}
    for qid, _, expected in case.questions[:20]:
        source, drop = case.source(qid)
        (repo,) = {repo_of[e] for e in expected}
        assert source == repo
        assert drop == {fid for fid, r in repo_of.items() if r == repo}
    dev, test = in_split(cases, "dev"), in_split(cases, "test")
    ids = [q for c in (*dev, *test) for q, _, _ in c.questions]
    assert sorted(ids) == sorted(q for q, _, _ in case.questions)
    for part, name in ((dev, "dev"), (test, "test")):
        assert {split_of(case.source(q)[0]) for c in part for q, _, _ in c.questions} == {name}
    assert split_of("django/django") == split_of("django/django")


def test_recall_reports_no_answer_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(capsys, ["--dataset", str(CODING), "--ranker", "lexical"], all_ok=False)
    row = rows["coding_memory noanswer tokens lexical"]
    assert row["unit"] == "tokens"
    assert row["prompts"] == 171
    assert 0 <= float(row["value"]) <= 2_400  # type: ignore[arg-type]
