"""Build the *large store* variant of the coding-agent set: the 303 curated facts plus ≥ 1,200
distractor facts taken from other projects' public style and API guides.

Why: within 2,400 tokens the bundled coding set saturates because its store is tiny (the
budget holds about a fifth of it).  A real memory spanning many repositories holds thousands
of conventions that *sound* alike — naming, tests, docs, review — so the distractors here are
real guideline sentences from guides that are not among the coding set's sources, and the
prompts and expected facts are the coding set's, unchanged.

The distractor text belongs to its authors and is never committed: this module reads pinned
files (:data:`SOURCES`: repository, commit, path) from local copies and writes the combined
set to a path you give.  Deterministic: the same sources give the same file byte for byte
(document order, evenly spaced picks, recency interleaved by a hash of the fact id).

    python -m bench._bigcoding ROOT /tmp/coding_large.json [--distractors 1250]
    python bench/recall.py --dataset /tmp/coding_large.json

``ROOT`` holds the repositories either as checkouts (``ROOT/<owner>/<name>/``, at the pinned
commit) or as bare git directories (``ROOT/<owner>+<name>/repo``, read with ``git show
<commit>:<path>``).  Extraction: fenced/delimited code blocks, tables, headings, HTML and
AsciiDoc directives are dropped; links, inline code and emphasis are reduced to their text;
paragraphs and list items are split into sentences; a sentence of 8–60 words and 40–400
characters with no URL is a candidate; duplicates (case-folded) are dropped.  Each distractor
is a ``convention`` fact tagged with its guide's short name.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
BASE = DATA / "coding_memory.json"
DEFAULT_DISTRACTORS = 1_250

# (repo, commit, path, tag) — none of these files is a source of coding_memory.json.
_GS = ("google/styleguide", "8487c083e1faecb1259be8a8873618cfdb69d33d")
_AB = ("airbnb/javascript", "8ed19247bef145e3cc41b24a02dd1fe6d9b5e681")
_RA = ("rust-lang/api-guidelines", "97a0969cb07fe4cabb0eed8a56234053f47d83dc")
_MS = ("microsoft/api-guidelines", "011dd3c9d806e06230870151f2d1edcfec87a03d")
_ZA = ("zalando/restful-api-guidelines", "675058821db6daaa1dfc875b90594427778313d7")
_FL = ("pallets/flask", "2ac89889f4cc330eabd50f295dcef02828522c69")
_CL = ("rust-lang/rust-clippy", "e57f468d8f079a7b50627a95121fd16fff8e5bfa")
_PT = ("pytest-dev/pytest", "df87db7b0462fb764ef73fa00561adf8ad047572")
_EL = ("electron/electron", "96f3996d8d3ce6e2fcfb86326fc4b953b53936fb")
SOURCES: tuple[tuple[str, str, str, str], ...] = (
    (*_GS, "go/decisions.md", "go-style"),
    (*_GS, "go/best-practices.md", "go-style"),
    (*_GS, "go/guide.md", "go-style"),
    (*_GS, "shellguide.md", "shell-style"),
    (*_GS, "objcguide.md", "objc-style"),
    (*_GS, "csharp-style.md", "csharp-style"),
    (*_GS, "docguide/style.md", "markdown-style"),
    (*_AB, "README.md", "airbnb-js"),
    (*_AB, "react/README.md", "airbnb-react"),
    (*_RA, "src/naming.md", "rust-api"),
    (*_RA, "src/interoperability.md", "rust-api"),
    (*_RA, "src/documentation.md", "rust-api"),
    (*_RA, "src/predictability.md", "rust-api"),
    (*_RA, "src/type-safety.md", "rust-api"),
    (*_RA, "src/flexibility.md", "rust-api"),
    (*_RA, "src/future-proofing.md", "rust-api"),
    (*_MS, "azure/Guidelines.md", "azure-api"),
    (*_MS, "azure/ConsiderationsForServiceDesign.md", "azure-api"),
    (*_MS, "graph/GuidelinesGraph.md", "graph-api"),
    (*_ZA, "chapters/http-requests.adoc", "zalando-api"),
    (*_ZA, "chapters/http-status-codes-and-errors.adoc", "zalando-api"),
    (*_ZA, "chapters/http-headers.adoc", "zalando-api"),
    (*_ZA, "chapters/json-guidelines.adoc", "zalando-api"),
    (*_ZA, "chapters/compatibility.adoc", "zalando-api"),
    (*_ZA, "chapters/urls.adoc", "zalando-api"),
    (*_ZA, "chapters/events.adoc", "zalando-api"),
    # User and developer docs of four projects the coding set covers (not their contributor
    # guides, which are its sources): distractors that name the same project.
    (*_FL, "docs/quickstart.rst", "flask"),
    (*_FL, "docs/config.rst", "flask"),
    (*_FL, "docs/errorhandling.rst", "flask"),
    (*_FL, "docs/testing.rst", "flask"),
    (*_FL, "docs/cli.rst", "flask"),
    (*_FL, "docs/blueprints.rst", "flask"),
    (*_CL, "book/src/development/adding_lints.md", "clippy"),
    (*_CL, "book/src/development/emitting_lints.md", "clippy"),
    (*_CL, "book/src/development/common_tools_writing_lints.md", "clippy"),
    (*_CL, "book/src/development/writing_tests.md", "clippy"),
    (*_CL, "book/src/development/defining_lints.md", "clippy"),
    (*_PT, "doc/en/how-to/fixtures.rst", "pytest"),
    (*_PT, "doc/en/how-to/output.rst", "pytest"),
    (*_PT, "doc/en/example/markers.rst", "pytest"),
    (*_PT, "doc/en/example/parametrize.rst", "pytest"),
    (*_PT, "doc/en/how-to/assert.rst", "pytest"),
    (*_PT, "doc/en/how-to/writing_plugins.rst", "pytest"),
    (*_EL, "docs/tutorial/security.md", "electron"),
    (*_EL, "docs/tutorial/ipc.md", "electron"),
    (*_EL, "docs/breaking-changes.md", "electron"),
)

_FENCE = re.compile(r"^\s*(```|~~~)")
_ADOC_BLOCK = re.compile(r"^(----|\.\.\.\.|====|\|===|\+\+\+\+|____|\*\*\*\*)\s*$")
_SKIP_LINE = re.compile(
    r"^\s*(#|=|\||<|:[\w-]+:|\[|image::|include::|ifdef::|endif::|//|>|\.\. )"
    r"|^([-=~^*\"+`])\2{2,}\s*$"  # reStructuredText underlines
)
_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s+")
_INLINE = (
    (re.compile(r"!\[[^\]]*\]\([^)]*\)"), ""),  # images
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # [text](url)
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # [text][ref]
    (re.compile(r"<<[^,>]*,\s*([^>]+)>>"), r"\1"),  # <<anchor, text>>
    (re.compile(r"<<[^>]*>>"), ""),  # <<anchor>>
    (re.compile(r"https?://\S+\[([^\]]*)\]"), r"\1"),  # adoc url[text]
    (re.compile(r"\{(MUST|SHOULD|MAY)\}"), r"\1"),  # zalando's rule levels
    (re.compile(r"<[^>]+>"), ""),  # html tags
    (re.compile(r":[\w:+-]+:`([^`<]*?)\s*(<[^>]*>)?`"), r"\1"),  # rst roles
    (re.compile(r"``([^`]*)``"), r"\1"),
    (re.compile(r"`([^`]*)`_*"), r"\1"),
    (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),
    (re.compile(r"(?<![\w*])[*_](\S(?:.*?\S)?)[*_](?![\w*])"), r"\1"),
    (re.compile(r"\s+"), " "),
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


def paragraphs(text: str) -> list[str]:
    """Prose paragraphs and list items, with code, tables, headings and directives dropped."""
    out: list[str] = []
    cur: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if cur:
            out.append(" ".join(cur))
            cur.clear()

    for raw in text.splitlines():
        line = raw.rstrip()
        if fence is not None:
            closing = line.strip()
            if closing == fence or (fence in ("```", "~~~") and closing.startswith(fence)):
                fence = None
            continue
        if m := _FENCE.match(line):
            flush()
            fence = m.group(1)
            continue
        if _ADOC_BLOCK.match(line):
            flush()
            fence = line.strip()
            continue
        if not line.strip() or _SKIP_LINE.match(line) or line.startswith("    "):
            flush()
            continue
        if _ITEM.match(line):
            flush()
            line = _ITEM.sub("", line, count=1)
        cur.append(line.strip())
    flush()
    return out


def clean(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text.strip()


def sentences(text: str) -> list[str]:
    """Candidate distractor sentences of one guide, in document order, deduplicated."""
    seen: set[str] = set()
    out: list[str] = []
    for para in paragraphs(text):
        for piece in _SENTENCE.split(clean(para)):
            s = piece.strip()
            words = s.split()
            key = s.casefold()
            if (
                8 <= len(words) <= 60
                and 40 <= len(s) <= 400
                and "http" not in s
                and not s.endswith((":", ","))
                and s[0].isupper()
                and key not in seen
            ):
                seen.add(key)
                out.append(s)
    return out


def read_source(root: Path, repo: str, commit: str, path: str) -> str:
    owner, name = repo.split("/")
    checkout = root / owner / name / path
    if checkout.is_file():
        return checkout.read_text(encoding="utf-8")
    git_dir = root / f"{owner}+{name}" / "repo"
    if git_dir.is_dir():
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"],
            capture_output=True,
            check=False,
        )
        if done.returncode == 0:
            return done.stdout.decode("utf-8")
    raise ValueError(
        f"{repo} {path} not found under {root}: clone the repository to "
        f"{root / owner / name} and check out {commit}"
    )


def _quotas(sizes: list[int], total: int) -> list[int]:
    """Split ``total`` picks across documents as evenly as their sizes allow (water-filling)."""
    quota = [0] * len(sizes)
    left = total
    open_docs = [i for i, n in enumerate(sizes) if n]
    while left > 0 and open_docs:
        share = max(1, left // len(open_docs))
        for i in list(open_docs):
            take = min(share, sizes[i] - quota[i], left)
            quota[i] += take
            left -= take
            if quota[i] == sizes[i]:
                open_docs.remove(i)
            if not left:
                break
    if left:
        raise ValueError(f"the sources hold {sum(sizes)} candidate sentences, {total} asked")
    return quota


def distractors(root: Path, total: int) -> list[dict[str, Any]]:
    per_doc = [
        (repo, path, tag, sentences(read_source(root, repo, commit, path)))
        for repo, commit, path, tag in SOURCES
    ]
    quotas = _quotas([len(s) for *_, s in per_doc], total)
    out: list[dict[str, Any]] = []
    for (repo, path, tag, cands), q in zip(per_doc, quotas, strict=True):
        for k in range(q):
            text = cands[k * len(cands) // q]  # evenly spaced through the guide
            out.append(
                {
                    "id": f"x-{len(out) + 1:04d}",
                    "kind": "convention",
                    "text": text,
                    "tags": [tag],
                    "source": {"repo": repo, "path": path},
                }
            )
    return out


def build(root: Path, total: int = DEFAULT_DISTRACTORS) -> dict[str, Any]:
    base = json.loads(BASE.read_text(encoding="utf-8"))
    facts = [*base["facts"], *distractors(root, total)]
    order = sorted(facts, key=lambda f: hashlib.blake2b(f["id"].encode(), digest_size=8).digest())
    when = {f["id"]: float(i + 1) for i, f in enumerate(order)}  # recency interleaved
    for f in facts:
        f["recordedAt"] = when[f["id"]]
    return {
        "source": {
            "base": "bench/data/coding_memory.json",
            "distractors": [{"repo": r, "commit": c, "path": p} for r, c, p, _ in SOURCES],
        },
        "facts": facts,
        "prompts": base["prompts"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="coding set + distractors from other guides")
    ap.add_argument("root", type=Path, help="where the source repositories are")
    ap.add_argument("out", type=Path)
    ap.add_argument("--distractors", type=int, default=DEFAULT_DISTRACTORS)
    args = ap.parse_args(argv)
    try:
        doc = build(args.root, args.distractors)
    except ValueError as exc:
        print(f"bigcoding: {exc}", file=sys.stderr)
        return 2
    args.out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(doc['facts'])} facts, {len(doc['prompts'])} prompts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
