"""Hybrid ranking (issue 16): fusion, determinism, fallback before/without the model, and the
derived-vector cache (rebuilt when deleted, corrupt records ignored and re-embedded)."""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from persona_mind.embedding import EmbeddingUnavailable, SemanticEdge
from persona_mind.embedding._encoder import Matrix, fact_text, unit_rows
from persona_mind.embedding._vectors import MAGIC, VectorFile, content_key, vectors_path
from persona_mind.mind import Fact, FactIndex, InjectionInput, MindSettings, plan_injection
from persona_mind.mind._commands import MindCommandContext, handle_mind_command
from persona_mind.mind._text import index_terms
from persona_mind.mind.recall._fusion import SEM_FLOOR, Fusion, fuse
from persona_mind.mind.recall._ranker import LEXICAL, RankerStatus
from tests.mind.test_real_store import real

HAS_MODEL = importlib.util.find_spec("wordllama") is not None


class BagEncoder:
    """A deterministic test encoder: hashed bag of stems, plus a synonym table, unit length."""

    model_id = "bag-test-64"
    dim = 64
    SYNONYMS: ClassVar[dict[str, str]] = {"ship": "deploy", "weekday": "tuesday", "db": "databas"}

    def __init__(self) -> None:
        self.calls: list[int] = []

    def encode(self, texts: Sequence[str]) -> Matrix:
        self.calls.append(len(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for stem in index_terms(text):
                term = self.SYNONYMS.get(stem, stem)
                h = int.from_bytes(hashlib.blake2b(term.encode(), digest_size=4).digest(), "big")
                out[i, h % self.dim] += 1.0
        return unit_rows(out)


def fact(i: int, text: str, kind: str = "note") -> Fact:
    return Fact(id=f"m_{i:04d}", kind=kind, text=text, recordedAt=i, lastSeenAt=i)  # type: ignore[arg-type]


FACTS = [
    fact(1, "Deploys go out on Tuesdays after the freeze"),
    fact(2, "The staging databas runs Postgres on port 5433"),
    fact(3, "Use ruff with line length 100"),
    fact(4, "Frontend is built with Vite"),
    fact(5, "CI has a 30 minute timeout"),
]


def ready_edge(encoder: BagEncoder | None = None) -> SemanticEdge:
    enc = encoder or BagEncoder()
    edge = SemanticEdge(loader=lambda: enc)
    assert edge.load_now().hybrid
    return edge


def plan(edge: SemanticEdge | None, prompt: str, index: FactIndex, cap: int = 1) -> list[str]:
    semantic, status = edge.for_prompt(prompt) if edge else (None, LEXICAL)
    p = plan_injection(
        InjectionInput(
            prompt=prompt,
            now=1e9,
            indexes={"project": index},
            semantic=semantic,
            caps={"ltm": 8, "project": cap, "stm": 5, "backlog": 6},
            ranker=status,
        )
    )
    return [item.id for item in p.items]


# -- fusion -----------------------------------------------------------------------------------


def test_fusion_admits_semantic_matches_and_keeps_lexical_hits() -> None:
    lexical = {0: 4.0, 1: 1.0}
    semantic = {0: 0.1, 2: 0.9, 3: SEM_FLOOR - 0.01}
    methods: tuple[Fusion, ...] = ("score", "rrf")
    for method in methods:
        fused = fuse(lexical, semantic, method)
        assert set(fused) == {0, 1, 2}  # 3 is below the floor and has no term: not a match
    score = fuse(lexical, semantic, "score")
    assert score[0] > score[1]  # same similarity floor, more lexical weight


def test_score_fusion_puts_both_signals_on_this_prompts_scale() -> None:
    """Issue 16: the best semantic match earns the same half as the best lexical hit, so a
    static model's modest cosines (seldom above 0.5) are not drowned by a lexical best that
    may have matched only a function word; the rest scale linearly above the floor."""
    fused = fuse({0: 4.0, 1: 2.0}, {2: 0.45, 3: SEM_FLOOR + 0.05}, "score")
    assert fused[0] == pytest.approx(0.5)
    assert fused[2] == pytest.approx(0.5)
    assert fused[1] == pytest.approx(0.25)
    assert fused[3] == pytest.approx(0.1)
    only_lexical = fuse({0: 4.0}, {}, "score")
    assert only_lexical == {0: pytest.approx(0.5)}


def test_rrf_ties_share_a_rank_so_slot_order_never_matters() -> None:
    a = fuse({0: 1.0, 1: 1.0}, {}, "rrf")
    assert a[0] == a[1]


# -- hybrid planning ----------------------------------------------------------------------------


def test_hybrid_finds_a_paraphrase_lexical_misses() -> None:
    index = FactIndex.build(FACTS)
    prompt = "which weekday can we ship"
    assert plan(None, prompt, index) != ["m_0001"]  # no shared term: lexical falls to recency
    assert plan(ready_edge(), prompt, index) == ["m_0001"]


def test_explanation_names_terms_and_similarity() -> None:
    edge = ready_edge()
    index = FactIndex.build(FACTS)
    semantic, status = edge.for_prompt("staging db port")
    p = plan_injection(
        InjectionInput(
            prompt="staging db port",
            now=1e9,
            indexes={"project": index},
            semantic=semantic,
            ranker=status,
        )
    )
    reason = p.items[0].reason
    assert p.items[0].id == "m_0002"
    assert "on port, staging" in reason
    assert "semantic 0." in reason
    assert not any(d.startswith("ranking:") for d in p.disclosures)  # hybrid: nothing to disclose


def test_same_input_same_block_and_update_equals_rebuild() -> None:
    """M-INJECT-14 with hybrid ranking: deterministic, and slot order never matters."""
    edge = ready_edge()
    index = FactIndex.build(FACTS)
    first = plan(edge, "postgres port for staging", index, cap=4)
    assert plan(edge, "postgres port for staging", index, cap=4) == first
    extra = fact(9, "Staging Postgres backups run nightly")
    updated = index.updated([*FACTS, extra])
    assert updated is not None
    fresh = FactIndex.build([*FACTS, extra])
    other = ready_edge()
    assert plan(edge, "postgres port for staging", updated, cap=4) == plan(
        other, "postgres port for staging", fresh, cap=4
    )


@pytest.mark.skipif(not HAS_MODEL, reason="the semantic extra (wordllama) is not installed")
def test_real_model_loads_offline_and_is_deterministic() -> None:
    """WordLlama loads from its wheel (downloads disabled) and ranks the same twice."""
    a, b = SemanticEdge(), SemanticEdge()
    assert a.load_now().hybrid
    assert b.load_now().hybrid
    index = FactIndex.build(FACTS)
    prompt = "what port does the staging database listen on"
    assert plan(a, prompt, index, cap=3) == plan(b, prompt, FactIndex.build(FACTS), cap=3)
    sa, _ = a.for_prompt(prompt)
    sb, _ = b.for_prompt(prompt)
    assert sa is not None
    assert sb is not None
    assert sa.similarities(index, range(5), 5) == sb.similarities(index, range(5), 5)


# -- fallback -----------------------------------------------------------------------------------


def test_turns_before_the_model_is_ready_are_lexical_and_say_so() -> None:
    gate = threading.Event()
    enc = BagEncoder()

    def slow() -> BagEncoder:
        gate.wait()
        return enc

    edge = SemanticEdge(loader=slow)
    edge.start()
    semantic, status = edge.for_prompt("which weekday can we ship")
    assert semantic is None
    assert not status.hybrid
    assert "loading" in status.reason
    p = plan_injection(
        InjectionInput(
            prompt="x", now=1e9, indexes={"project": FactIndex.build(FACTS)}, ranker=status
        )
    )
    assert any("lexical" in d and "loading" in d for d in p.disclosures)
    gate.set()
    assert edge.settled.wait(10)
    assert edge.status().hybrid
    assert edge.for_prompt("which weekday can we ship")[0] is not None


@pytest.mark.parametrize(
    "error", [EmbeddingUnavailable("wordllama is not installed; pip install"), RuntimeError("x")]
)
def test_a_model_that_cannot_load_leaves_ranking_lexical(error: Exception) -> None:
    def broken() -> BagEncoder:
        raise error

    edge = SemanticEdge(loader=broken)
    status = edge.load_now()
    assert not status.hybrid
    assert status.reason
    assert edge.for_prompt("anything")[0] is None
    edge.bind(FactIndex.build(FACTS), None)  # a no-op, never an error


@pytest.mark.asyncio
async def test_service_falls_back_and_doctor_names_the_ranker(tmp_path: Path) -> None:
    async with real(tmp_path) as svc:
        await svc.remember("convention", "Deploys go out on Tuesdays", tier="project")

        def broken() -> BagEncoder:
            raise EmbeddingUnavailable("wordllama is not installed; pip install -e '.[semantic]'")

        svc.semantic = SemanticEdge(loader=broken)
        svc.semantic.load_now()
        p = await svc.injection("when do deploys ship")  # a word in common: lexical matches
        assert p.text  # the turn still gets its (lexical) block
        assert any("ranking: lexical" in d and "semantic" in d for d in p.disclosures)
        ctx = MindCommandContext(svc, MindSettings(), None)
        doctor = await handle_mind_command("doctor", ctx)
        assert "ranking: lexical" in doctor.text


@pytest.mark.asyncio
async def test_service_ranks_hybrid_and_recall_explains(tmp_path: Path) -> None:
    async with real(tmp_path) as svc:
        for f in FACTS:
            await svc.remember("convention", f.text, tier="project")
        svc.semantic = ready_edge()
        p = await svc.injection("which weekday can we ship")
        assert "Deploys go out" in p.text
        hits = await svc.recall("which weekday can we ship", limit=1)
        assert "Deploys" in hits[0].fact.text
        assert "semantic" in hits[0].reason
        doctor = await handle_mind_command("doctor", MindCommandContext(svc, MindSettings(), None))
        assert "ranking: hybrid" in doctor.text


# -- the derived-vector cache ---------------------------------------------------------------------


def store_file(tmp_path: Path) -> Path:
    path = tmp_path / "memory" / "project" / "facts.json"
    path.parent.mkdir(parents=True)
    return path


def test_cache_is_written_beside_the_store_and_reused(tmp_path: Path) -> None:
    store = store_file(tmp_path)
    enc = BagEncoder()
    ready_edge(enc).bind(FactIndex.build(FACTS), store)
    cache = vectors_path(store, enc.model_id)
    assert cache.is_file()
    assert cache.parent == store.parent
    assert not store.exists()  # never inside (or instead of) the store of record
    again = BagEncoder()
    ready_edge(again).bind(FactIndex.build(FACTS), store)
    assert again.calls == []  # every vector came from the cache


def test_cache_rebuilt_after_deleting_it(tmp_path: Path) -> None:
    store = store_file(tmp_path)
    enc = BagEncoder()
    ready_edge(enc).bind(FactIndex.build(FACTS), store)
    cache = vectors_path(store, enc.model_id)
    before = cache.read_bytes()
    cache.unlink()
    again = BagEncoder()
    edge = ready_edge(again)
    edge.bind(FactIndex.build(FACTS), store)
    assert again.calls == [len(FACTS)]  # re-embedded from the store of record
    assert cache.read_bytes() == before  # the same derived data, in the same order
    index = FactIndex.build(FACTS)
    semantic, _ = edge.for_prompt("which weekday can we ship")
    assert semantic is not None
    assert max(semantic.similarities(index, (), 1).values()) > SEM_FLOOR


def test_corrupt_cache_record_is_ignored_re_embedded_and_rewritten(tmp_path: Path) -> None:
    store = store_file(tmp_path)
    enc = BagEncoder()
    ready_edge(enc).bind(FactIndex.build(FACTS), store)
    cache = vectors_path(store, enc.model_id)
    data = bytearray(cache.read_bytes())
    header = data.index(b"\n", len(MAGIC)) + 1
    data[header + 20] ^= 0xFF  # flip a byte inside the first record's vector
    cache.write_bytes(bytes(data))
    vf = VectorFile(cache, enc.model_id, enc.dim)
    vf.load()
    assert vf.dropped == 1
    assert vf.rewrite
    assert len(vf.vectors) == len(FACTS) - 1  # the bad record is not read as truth
    again = BagEncoder()
    ready_edge(again).bind(FactIndex.build(FACTS), store)
    assert again.calls == [1]  # only the corrupt row was re-embedded
    healed = VectorFile(cache, enc.model_id, enc.dim)
    healed.load()
    assert healed.dropped == 0
    assert not healed.rewrite
    want = {content_key(fact_text(f.text, f.tags)) for f in FACTS}
    assert set(healed.vectors) == want
    for key, vec in healed.vectors.items():
        text = next(f.text for f in FACTS if content_key(fact_text(f.text, f.tags)) == key)
        assert np.array_equal(vec, enc.encode([text])[0])


@pytest.mark.parametrize("damage", ["truncate", "garbage", "foreign-model"])
def test_unsound_cache_files_are_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    store = store_file(tmp_path)
    enc = BagEncoder()
    ready_edge(enc).bind(FactIndex.build(FACTS), store)
    cache = vectors_path(store, enc.model_id)
    data = cache.read_bytes()
    if damage == "truncate":
        cache.write_bytes(data[:-7])
    elif damage == "garbage":
        cache.write_bytes(b"\x00\xffnot a vector cache")
    else:
        cache.write_bytes(data.replace(b"bag-test-64", b"bag-test-65"))
    again = BagEncoder()
    ready_edge(again).bind(FactIndex.build(FACTS), store)
    assert sum(again.calls) >= 1
    healed = VectorFile(cache, enc.model_id, enc.dim)
    healed.load()
    assert (healed.dropped, healed.rewrite, len(healed.vectors)) == (0, False, len(FACTS))


def test_remembering_one_fact_appends_one_record(tmp_path: Path) -> None:
    store = store_file(tmp_path)
    enc = BagEncoder()
    edge = ready_edge(enc)
    index = FactIndex.build(FACTS)
    edge.bind(index, store)
    cache = vectors_path(store, enc.model_id)
    size = cache.stat().st_size
    new = fact(9, "Staging Postgres backups run nightly")
    updated = index.updated([*FACTS, new])
    assert updated is not None
    edge.bind(updated, store)
    assert enc.calls == [len(FACTS), 1]  # only the new fact was embedded
    assert cache.stat().st_size == size + 16 + 4 * enc.dim + 4  # one appended record


class _BrokenEdge:
    """A model edge whose vectors cannot be had (e.g. a bug or an unreadable disk)."""

    def bind(self, index: FactIndex, store: Path | None, *, wait: bool = True) -> bool:
        raise OSError("disk on fire")

    def for_prompt(self, prompt: str) -> tuple[None, RankerStatus]:
        raise AssertionError("not reached")

    def status(self) -> RankerStatus:
        return RankerStatus(hybrid=False, reason="broken")


@pytest.mark.asyncio
async def test_an_edge_failure_at_plan_time_costs_the_semantic_signal_not_the_turn(
    tmp_path: Path,
) -> None:
    async with real(tmp_path) as svc:
        await svc.remember("convention", "Deploys go out on Tuesdays", tier="project")
        svc.semantic = _BrokenEdge()
        p = await svc.injection("deploys")
        assert "Deploys go out on Tuesdays" in p.text
        assert any("semantic ranking failed" in d and "disk on fire" in d for d in p.disclosures)
        hits = await svc.recall("deploys")
        assert hits
        assert "Deploys" in hits[0].fact.text


def test_an_unwritable_cache_location_never_fails_ranking(tmp_path: Path) -> None:
    blocker = tmp_path / "memory"
    blocker.write_text("a file where the store's folder would be")
    store = blocker / "project" / "facts.json"  # its parent cannot be created
    edge = ready_edge()
    index = FactIndex.build(FACTS)
    edge.bind(index, store)  # embeds, fails to save (logged), keeps the vectors in memory
    assert not list(tmp_path.rglob("*.vec"))
    assert plan(edge, "which weekday can we ship", index) == ["m_0001"]
