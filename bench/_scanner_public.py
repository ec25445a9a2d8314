"""Convert public prompt-injection, jailbreak, secret and developer-prose data into the
scanner corpus format (``bench/scanner.py --corpus DIR``).

The own corpus (``tests/mind/scanner_corpus``) is hand-written, so a perfect score on it
proves little about data nobody here wrote.  This converter builds a second corpus from
pinned public repositories — read from local copies, never committed (their texts belong to
their authors; see ``bench/data/README.md``) — with one JSON object per line: ``label``
attack|benign, ``class``, ``source`` (repository and path) and ``text``.

Attack classes (what a memory scanner is for — content that would steer a future session
or leak a secret — is kept apart from what it is not):

* ``override`` — an instruction-override / goal-hijack text: Tensor Trust hijacking
  attacks, promptmap ``distraction`` rules, the injections of llm-guard's scanner tests;
* ``prompt-extraction`` — a text that asks the model for its instructions: Tensor Trust
  extraction attacks, promptmap ``prompt_stealing`` rules;
* ``jailbreak-roleplay`` — generic jailbreak templates (DAN, developer mode, fictional
  villains): Giskard's prompt-injection set, GPTFuzzer's templates, promptmap ``jailbreak``;
* ``secret`` — fake credentials in test files: the literal true positives in gitleaks'
  rule definitions and trufflehog's detector tests (``validPattern``).

Benign classes: ``dev-prose`` (the 1,250 style-guide sentences of ``bench/_bigcoding.py``),
``memory`` (MADial-Bench's 160 episodic memories), ``prompt`` (llm-guard's benign test
prompts and LangKit's archived chat prompts and answers) and ``secret-lookalike`` (the
literal false positives of gitleaks' rules: text that looks like a secret and is not).

Deterministic (pinned commits, sorted file lists, input order) and strict: a file that is
missing, a malformed JSON line, a CSV or YAML record without its text raises
:class:`ValueError` naming the repository, file and line.  Run::

    python -m bench._scanner_public ROOT /tmp/scanner_public
    python bench/scanner.py --corpus /tmp/scanner_public

``ROOT`` holds checkouts ``ROOT/<owner>/<name>/`` at the pinned commits, or bare git
directories ``ROOT/<owner>+<name>/repo``.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

if __package__ in (None, ""):  # run as `python bench/_scanner_public.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _bigcoding

# fmt: off
TENSOR_TRUST = ("HumanCompatibleAI/tensor-trust-data", "e2385ea9cf448c9641b96e2e39f113ed4979a5b0")
PROMPTMAP = ("utkusen/promptmap", "d305132e38f28b4cdca5c5b4586f11904ed1836d")
GISKARD = ("Giskard-AI/prompt-injections", "ce50a549dadc46b48c931250d2dd71d5f003c0c2")
GPTFUZZ = ("sherdencooper/GPTFuzz", "1eddeb565740ae311b5f4950492b011a6f866fe7")
LLM_GUARD = ("protectai/llm-guard", "53af270c69316ed82cb71ba7b19d11b55bda3151")
LANGKIT = ("whylabs/langkit", "5d6cab1e2ff32181ba5c514aaa2a4473421dc413")
GITLEAKS = ("gitleaks/gitleaks", "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b")
TRUFFLEHOG = ("trufflesecurity/trufflehog", "3ab759fef4bb5935d4fe9ac68b503d05346b8364")
MADIAL = ("hejunqing/MADial-Bench", "572e3a10d6d01852a65e4508e0b3ab2a00d0710c")
# fmt: on
PROMPTMAP_CLASSES = {
    "distraction": "override",
    "prompt_stealing": "prompt-extraction",
    "jailbreak": "jailbreak-roleplay",
}
"""promptmap's ``harmful``, ``hate`` and ``social_bias`` rules ask for harmful output; they
try to steer nothing and leak nothing, so they are no memory-scanner case."""

Row = dict[str, str]


class Source:
    """One pinned repository: a checkout ``ROOT/owner/name`` or a bare ``ROOT/owner+name/repo``."""

    def __init__(self, root: Path, repo: str, commit: str) -> None:
        owner, name = repo.split("/")
        self.repo, self.commit = repo, commit
        self.checkout = root / owner / name
        self.git_dir = root / f"{owner}+{name}" / "repo"
        if not self.checkout.is_dir() and not self.git_dir.is_dir():
            raise ValueError(
                f"{repo} not found under {root}: clone it to {self.checkout} and check out {commit}"
            )

    def files(self, under: str, suffix: str) -> list[str]:
        """Paths under ``under`` ending in ``suffix``, sorted."""
        if self.checkout.is_dir():
            base = self.checkout / under
            found = [str(p.relative_to(self.checkout)) for p in base.rglob(f"*{suffix}")]
        else:
            done = subprocess.run(
                ["git", f"--git-dir={self.git_dir}", "ls-tree", "-r", "--name-only",
                 self.commit, "--", under],
                capture_output=True, check=False, text=True,
            )  # fmt: skip
            if done.returncode != 0:
                raise ValueError(f"{self.repo}@{self.commit}: cannot list {under}")
            found = [p for p in done.stdout.splitlines() if p.endswith(suffix)]
        if not found:
            raise ValueError(f"{self.repo}: no *{suffix} file under {under}")
        return sorted(found)

    def read(self, path: str) -> str:
        return _bigcoding.read_source(self.checkout.parent.parent, self.repo, self.commit, path)

    def where(self, path: str, line: int | None = None) -> str:
        return f"{self.repo}:{path}" + (f":{line}" if line is not None else "")


def _row(label: str, cls: str, src: Source, path: str, text: str) -> Row:
    return {"label": label, "class": cls, "source": f"{src.repo} {path}", "text": text}


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: no text")
    return value.strip()


def tensor_trust(root: Path) -> Iterator[Row]:
    """Hijacking attacks are ``override``, extraction attacks ``prompt-extraction``."""
    src = Source(root, *TENSOR_TRUST)
    for cls, path in (
        ("override", "benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl"),
        ("prompt-extraction",
         "benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl"),
    ):  # fmt: skip
        for n, line in enumerate(src.read(path).splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{src.where(path, n)}: not a JSON line ({exc.msg})") from exc
            if not isinstance(record, dict):
                raise ValueError(f"{src.where(path, n)}: not a JSON object")
            yield _row("attack", cls, src, path, _text(record.get("attack"), src.where(path, n)))


def promptmap(root: Path) -> Iterator[Row]:
    src = Source(root, *PROMPTMAP)
    for path in src.files("rules", ".yaml"):
        try:
            rule = yaml.safe_load(src.read(path))
        except yaml.YAMLError as exc:
            raise ValueError(f"{src.where(path)}: not YAML ({exc})") from exc
        if not isinstance(rule, dict) or "type" not in rule:
            raise ValueError(f"{src.where(path)}: needs a type and a prompt")
        cls = PROMPTMAP_CLASSES.get(str(rule["type"]))
        if cls is not None:
            yield _row("attack", cls, src, path, _text(rule.get("prompt"), src.where(path)))


def _csv(src: Source, path: str, column: str) -> Iterator[tuple[int, str]]:
    reader = csv.DictReader(io.StringIO(src.read(path), newline=""))
    if reader.fieldnames is None or column not in reader.fieldnames:
        raise ValueError(f"{src.where(path, 1)}: no {column!r} column")
    for record in reader:
        yield reader.line_num, _text(record.get(column), src.where(path, reader.line_num))


def giskard(root: Path) -> Iterator[Row]:
    src = Source(root, *GISKARD)
    for _, text in _csv(src, "prompt_injections.csv", "prompt"):
        yield _row("attack", "jailbreak-roleplay", src, "prompt_injections.csv", text)


def gptfuzz(root: Path) -> Iterator[Row]:
    src = Source(root, *GPTFUZZ)
    path = "datasets/prompts/GPTFuzzer.csv"
    for _, text in _csv(src, path, "text"):
        yield _row("attack", "jailbreak-roleplay", src, path, text)


def llm_guard(root: Path) -> Iterator[Row]:
    """The ``(match_type, prompt, expected_valid, score)`` cases of its injection tests:
    valid prompts are benign ``prompt``, invalid ones ``override``."""
    src = Source(root, *LLM_GUARD)
    path = "tests/input_scanners/test_prompt_injection.py"
    try:
        tree = ast.parse(src.read(path))
    except SyntaxError as exc:
        raise ValueError(f"{src.where(path, exc.lineno)}: not Python ({exc.msg})") from exc
    seen = 0
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Tuple) and len(node.elts) == 4):
            continue
        prompt, valid = node.elts[1], node.elts[2]
        try:
            text = ast.literal_eval(prompt)
        except ValueError:
            continue
        if not (isinstance(valid, ast.Constant) and isinstance(valid.value, bool)):
            continue
        seen += 1
        text = _text(text, src.where(path, node.lineno))
        if valid.value:
            yield _row("benign", "prompt", src, path, text)
        else:
            yield _row("attack", "override", src, path, text)
    if not seen:
        raise ValueError(f"{src.where(path)}: no (match_type, prompt, valid, score) case")


def langkit(root: Path) -> Iterator[Row]:
    src = Source(root, *LANGKIT)
    path = "langkit/whylogs/reference_chats.json"
    try:
        chats = json.loads(src.read(path))["archived_chats"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{src.where(path)}: needs an archived_chats list ({exc})") from exc
    for i, chat in enumerate(chats):
        for key in ("prompt", "response"):
            text = chat.get(key) if isinstance(chat, dict) else None
            yield _row("benign", "prompt", src, path, _text(text, f"{src.where(path)}[{i}]"))


_GO_LITERAL = re.compile(r'^\s*(?:`([^`]*)`|"((?:[^"\\]|\\.)*)")\s*,?\s*(?://.*)?$')
_GO_SAMPLE = re.compile(r'GenerateSampleSecrets?\(\s*"[^"]*"\s*,\s*"((?:[^"\\]|\\.)+)"\s*\)')
_BLOCK_START = re.compile(r"^\s*(tps|fps)\s*:?=\s*(?:\[\]string\{|append\(\s*tps\s*,)\s*$")


def _go_string(raw: str | None, quoted: str | None) -> str:
    if raw is not None:
        return raw
    assert quoted is not None
    return str(json.loads(f'"{quoted}"'))


def gitleaks(root: Path) -> Iterator[Row]:
    """Literal strings in the rules' ``tps`` (secrets) and ``fps`` (look-alikes) lists, and
    the literal tokens given to ``GenerateSampleSecret(s)``; generated ones are skipped."""
    src = Source(root, *GITLEAKS)
    for path in src.files("cmd/generate/config/rules", ".go"):
        block: str | None = None
        for n, line in enumerate(src.read(path).splitlines(), 1):
            for m in _GO_SAMPLE.finditer(line):
                token = _go_string(None, m.group(1))
                yield _row("attack", "secret", src, f"{path}:{n}", token)
            start = _BLOCK_START.match(line)
            if start:
                block = start.group(1)
                continue
            if block and re.match(r"^\s*[})]", line):
                block = None
                continue
            lit = _GO_LITERAL.match(line) if block else None
            if lit and lit.group(1) is None and lit.group(2) is None:
                raise ValueError(f"{src.where(path, n)}: unreadable Go string")
            if lit:
                text = _go_string(lit.group(1), lit.group(2)).strip()
                if text:
                    label, cls = (
                        ("attack", "secret") if block == "tps" else ("benign", "secret-lookalike")
                    )
                    yield _row(label, cls, src, f"{path}:{n}", text)


_VALID = re.compile(r'^\s*validPattern\s*=\s*(?:`([^`]*)`|"((?:[^"\\]|\\.)*)")', re.M)


def trufflehog(root: Path) -> Iterator[Row]:
    """The ``validPattern`` of each detector's unit test: a fake key in the context the
    detector expects (a keyword, a config line, a JSON blob)."""
    src = Source(root, *TRUFFLEHOG)
    for path in src.files("pkg/detectors", "_test.go"):
        if path.endswith("_integration_test.go"):
            continue
        body = src.read(path)
        m = _VALID.search(body)
        if m is None:
            continue
        text = _go_string(m.group(1), m.group(2)).strip()
        if text:
            yield _row("attack", "secret", src, path, text)


def dev_prose(root: Path) -> Iterator[Row]:
    for fact in _bigcoding.distractors(root, _bigcoding.DEFAULT_DISTRACTORS):
        src = fact["source"]
        yield {"label": "benign", "class": "dev-prose",
               "source": f"{src['repo']} {src['path']}", "text": fact["text"]}  # fmt: skip


def madial(root: Path) -> Iterator[Row]:
    src = Source(root, *MADIAL)
    path = "data/en/MADial-Bench-en-memory.json"
    for n, line in enumerate(src.read(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            record: Any = json.loads(line)
            (memory,) = record.values()
            event = memory["event"]
        except (json.JSONDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{src.where(path, n)}: needs {{id: {{event}}}} ({exc})") from exc
        yield _row("benign", "memory", src, path, _text(event, src.where(path, n)))


Producer = Callable[[Path], Iterator[Row]]
PRODUCERS: tuple[Producer, ...] = (
    tensor_trust, promptmap, giskard, gptfuzz, gitleaks, trufflehog, llm_guard,
    dev_prose, madial, langkit,
)  # fmt: skip


def build(root: Path, producers: tuple[Producer, ...] = PRODUCERS) -> tuple[list[Row], list[Row]]:
    """(attacks, benign) rows; a text seen before (in either file) is kept once."""
    seen: set[str] = set()
    attacks: list[Row] = []
    benign: list[Row] = []
    for produce in producers:
        for row in produce(root):
            if row["text"] in seen:
                continue
            seen.add(row["text"])
            (attacks if row["label"] == "attack" else benign).append(row)
    return attacks, benign


def write(rows: list[Row], path: Path) -> None:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows),
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="directory of checkouts or bare git copies")
    parser.add_argument("out", type=Path, help="directory to write attacks/benign .jsonl to")
    args = parser.parse_args(argv)
    attacks, benign = build(args.root)
    args.out.mkdir(parents=True, exist_ok=True)
    write(attacks, args.out / "attacks.jsonl")
    write(benign, args.out / "benign.jsonl")
    print(f"{len(attacks)} attacks, {len(benign)} benign texts -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
