"""Convert MADial-Bench's English memory-recall data into ``bench/recall.py``'s ``facts`` format.

MADial-Bench (He et al., NAACL 2025; ``hejunqing/MADial-Bench``, MIT licence) is a public
memory-augmented dialogue benchmark with evidence labels: a memory archive of short
episodic memories and dialogues in which the assistant, at a marked *test turn*, should
recall the memories listed in ``relevant-id``.  Its memory-recall task ranks the archive
against the dialogue *before* the first test turn — the same thing Mind's injection does
with a user's prompt — so that is what is converted:

* every memory becomes one fact: ``id`` ``mem-<id>``, ``text`` its ``event``, ``tags`` its
  ``scene`` and ``emotion`` (lower-cased; the archive's own metadata, indexed alike by the
  in-benchmark BM25 and by Mind), ``recordedAt`` its ``time`` (UTC midnight), ``source``
  the upstream repository and path;
* every dialogue becomes one prompt: its turns before ``test-turn[0]`` (``<BOD>`` dropped,
  ``<Name>: "…"`` rendered as ``Name: …``), expecting ``mem-<id>`` for each ``relevant-id``.

The conversion is deterministic (input order, no randomness) and strict: a malformed line,
a memory without an event, a dialogue whose test turn leaves no context or that names an
unknown memory raises :class:`ValueError` naming the file and line.  The upstream data is
never committed here (see ``bench/data/README.md``); run::

    python -m bench._madial /path/to/MADial-Bench /tmp/madial_en.json
    python bench/recall.py --dataset /tmp/madial_en.json

``SRC`` is a checkout of the repository (its ``data/en/`` is used) or a directory holding the
two files themselves.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = "hejunqing/MADial-Bench"
MEMORY = "MADial-Bench-en-memory.json"
DIALOGUE = "MADial-Bench-en-dialogue.json"
_SPEAKER = re.compile(r"^<([^<>]+)>:\s*(.*)$", re.DOTALL)


def _lines(path: Path) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not a JSON line ({exc.msg})") from exc
    if not out:
        raise ValueError(f"{path}: empty")
    return out


def _turn(raw: str) -> str:
    """``<Bart>: "Hi!"`` → ``Bart: Hi!``; other lines are kept as they are, stripped."""
    text = raw.strip()
    m = _SPEAKER.match(text)
    if m is None:
        return text
    said = m.group(2).strip()
    if len(said) >= 2 and said[0] == said[-1] == '"':
        said = said[1:-1]
    return f"{m.group(1)}: {said}"


def _epoch(day: str, where: str) -> float:
    try:
        return datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
    except ValueError as exc:
        raise ValueError(f"{where}: time {day!r} is not YYYY-MM-DD") from exc


def facts(path: Path) -> list[dict[str, Any]]:
    """The memory archive as facts, in file order."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, doc in _lines(path):
        if not isinstance(doc, dict) or len(doc) != 1:
            raise ValueError(f"{path}:{n}: expected one {{id: memory}} object")
        ((mid, mem),) = doc.items()
        where = f"{path}:{n}"
        if not isinstance(mem, dict) or not str(mem.get("event", "")).strip():
            raise ValueError(f"{where}: memory {mid!r} has no event")
        if mid in seen:
            raise ValueError(f"{where}: duplicate memory id {mid!r}")
        seen.add(mid)
        tags = [str(mem[k]).strip().lower() for k in ("scene", "emotion") if mem.get(k)]
        out.append(
            {
                "id": f"mem-{mid}",
                "kind": "note",
                "text": str(mem["event"]).strip(),
                "tags": tags,
                "recordedAt": _epoch(str(mem.get("time", "")), where),
                "source": {"repo": REPO, "path": f"data/en/{MEMORY}"},
            }
        )
    return out


def prompts(path: Path, known: set[str]) -> list[dict[str, Any]]:
    """One prompt per dialogue: its turns before the first test turn."""
    out: list[dict[str, Any]] = []
    for i, (n, doc) in enumerate(_lines(path), 1):
        where = f"{path}:{n}"
        try:
            turns = list(doc["dialogue"])
            first = min(int(t) for t in doc["test-turn"])
            relevant = [f"mem-{r}" for r in doc["relevant-id"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{where}: expected dialogue, test-turn and relevant-id") from exc
        context = [_turn(t) for t in turns[:first]]
        context = [t for t in context if t and t not in ("<BOD>", "<EOD>")]
        if not context:
            raise ValueError(f"{where}: the first test turn ({first}) leaves no context")
        if not relevant or not set(relevant) <= known:
            raise ValueError(f"{where}: relevant-id names unknown memories {relevant}")
        out.append(
            {
                "id": f"d{i:03d}",
                "prompt": "\n".join(context),
                "expected": list(dict.fromkeys(relevant)),
            }
        )
    return out


def convert(src: Path) -> dict[str, Any]:
    """The ``facts``-format document for the checkout or directory ``src``."""
    base = src / "data" / "en" if (src / "data" / "en" / MEMORY).is_file() else src
    for name in (MEMORY, DIALOGUE):
        if not (base / name).is_file():
            raise ValueError(f"{base / name} not found: give a MADial-Bench checkout")
    fs = facts(base / MEMORY)
    return {
        "source": {
            "repo": REPO,
            "license": "MIT",
            "files": [f"data/en/{MEMORY}", f"data/en/{DIALOGUE}"],
        },
        "facts": fs,
        "prompts": prompts(base / DIALOGUE, {f["id"] for f in fs}),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="MADial-Bench (en) → bench/recall.py facts format")
    ap.add_argument("src", type=Path, help="a MADial-Bench checkout, or its data/en directory")
    ap.add_argument("out", type=Path, help="where to write the converted JSON")
    args = ap.parse_args(argv)
    try:
        doc = convert(args.src)
    except ValueError as exc:
        print(f"madial: {exc}", file=sys.stderr)
        return 2
    args.out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(doc['facts'])} facts, {len(doc['prompts'])} prompts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
