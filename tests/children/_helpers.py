"""Helpers for the child-runner tests: a team, the fake pi, and process-table checks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from persona_mind.children import ChildPersona, ChildRequest, ChildTeam

LEAD_PROMPT = "You are LEAD-G, the editorial room's generalist."


def persona(name: str, role: str = "specialist", prompt: str | None = None) -> ChildPersona:
    return ChildPersona(
        name=name,
        qualified_id=f"custom/editorial/{name}",
        role=role,  # type: ignore[arg-type]
        system_prompt=prompt or f"You are {name.upper()}-PERSONA.",
        description=f"the {name} specialist",
    )


def team(*specialists: str, lead: str = "lead") -> ChildTeam:
    names = specialists or ("architect", "critic", "tester")
    return ChildTeam(
        pack="custom/editorial",
        personas=(persona(lead, "generalist", LEAD_PROMPT), *(persona(n) for n in names)),
    )


def request(
    name: str = "architect",
    *,
    rid: str = "r1",
    prompt: str = "What should we build?",
    deadline: float = 30.0,
    kind: str = "consult",
) -> ChildRequest:
    return ChildRequest(
        request_id=rid,
        kind=kind,  # type: ignore[arg-type]
        persona=persona(name),
        prompt=prompt,
        model="fake/fake-model",
        deadline=deadline,
    )


def fake_env(tmp_path: Path, script: dict[str, Any] | list[Any] | None = None) -> dict[str, str]:
    """Env for a fake pi child: its script and its invocation log under ``tmp_path``."""
    log = tmp_path / "fake-pi.jsonl"
    env = {"FAKE_PI_LOG": str(log)}
    if script is not None:
        path = tmp_path / "fake-pi-script.json"
        path.write_text(json.dumps(script))
        env["FAKE_PI_SCRIPT"] = str(path)
    return env


def fake_log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "fake-pi.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, pgid) of a live process, or None when it does not exist."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return fields[0], int(fields[2])


def pid_alive(pid: int) -> bool:
    """True if ``pid`` is a running (non-zombie) process, read from /proc."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of process group ``pgid``, scanned from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[1] == pgid and stat[0] != "Z":
                out.append(int(entry))
    return out
