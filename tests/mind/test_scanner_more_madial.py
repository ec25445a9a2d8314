"""MADial-Bench rows of ``bench/_scanner_more.py``: English and Chinese dialogue turns and the
Chinese memories, on a tiny hand-made copy of the upstream layout (no upstream text here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench import _scanner_more as more
from bench import _scanner_public as public


def _put(root: Path, path: str, text: str) -> None:
    target = root / public.MADIAL[0] / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _dialogue(*turns: str) -> str:
    return json.dumps({"dialogue": ["<BOD>\n", *turns]}, ensure_ascii=False) + "\n"


def _fixture(root: Path) -> None:
    _put(root, "data/en/MADial-Bench-en-dialogue.json", _dialogue('<Kim>:"I fixed my bike."\n'))
    _put(root, "data/ch/MADial-Bench-zh-dialogue.json", _dialogue('<Kim>:"我修好了自行车。"\n'))
    memory = {"7": {"time": "2023-01-01", "event": "小金修好了自行车。", "id": "7"}}
    _put(root, "data/ch/MADial-Bench-zh-memory.json", json.dumps(memory, ensure_ascii=False))


def test_chinese_turns_and_memories_are_benign_test_rows(tmp_path: Path) -> None:
    _fixture(tmp_path)
    rows = list(more.madial_dialogues(tmp_path))
    got = [(r["label"], r["class"], r["split"], r["text"]) for r in rows]
    assert got == [
        ("benign", "memory-zh", "test", "小金修好了自行车。"),
        ("benign", "conversation", "test", "I fixed my bike."),
        ("benign", "conversation-zh", "test", "我修好了自行车。"),
    ]


def test_a_memory_without_its_event_is_an_error(tmp_path: Path) -> None:
    _fixture(tmp_path)
    _put(tmp_path, "data/ch/MADial-Bench-zh-memory.json", json.dumps({"7": {"time": "x"}}))
    with pytest.raises(ValueError, match="zh-memory"):
        list(more.madial_dialogues(tmp_path))
