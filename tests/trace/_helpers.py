"""Small builders for trace tests: write raw lines to a file, make events tersely."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from persona_mind.trace import EventKind, TraceEvent

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path


def write_trace(path: Path, lines: Iterable[str | bytes | TraceEvent]) -> Path:
    """Write one line per item (events are encoded as the kernel's writer would)."""
    chunks: list[bytes] = []
    for line in lines:
        if isinstance(line, TraceEvent):
            chunks.append(msgspec.json.encode(line))
        elif isinstance(line, str):
            chunks.append(line.encode())
        else:
            chunks.append(line)
    path.write_bytes(b"\n".join(chunks) + b"\n")
    return path


def _msg(
    t: float, ev: EventKind, actor: str, sender: str | None, type_: str, id_: int, corr: str
) -> TraceEvent:
    gen = 2 if id_ == 4 else 1
    return TraceEvent(
        t=t, ev=ev, actor=actor, sender=sender, type=type_, id=id_, corr=corr, gen=gen
    )


def sample_events() -> list[TraceEvent]:
    """A small run: host→owner, owner→store with a reply, a stale drop, a crash and
    restart, a child process, and a send that was never delivered."""
    return [
        TraceEvent(t=100.000, ev="start", actor="owner", reason="incarnation 1"),
        _msg(100.001, "send", "owner", None, "SessionStart", 1, "c1"),
        _msg(100.002, "deliver", "owner", None, "SessionStart", 1, "c1"),
        _msg(100.003, "send", "store", "owner", "Mutate", 2, "c1"),
        _msg(100.004, "deliver", "store", "owner", "Mutate", 2, "c1"),
        _msg(100.005, "reply", "store", "owner", "Mutate", 2, "c1"),
        _msg(100.006, "send", "store", "scheduler", "Mutate", 3, "c3"),
        TraceEvent(
            t=100.007, ev="drop", actor="store", sender="scheduler", type="Mutate", id=3,
            corr="c3", gen=1, reason="stale-generation",
        ),
        TraceEvent(t=100.010, ev="crash", actor="store", reason="OSError: disk full"),
        TraceEvent(t=100.011, ev="restart", actor="store", reason="OSError: disk full"),
        TraceEvent(
            t=100.020, ev="child", actor="child-runner", reason="exit",
            detail={"pid": 4242, "argv0": "pi", "code": 0},
        ),
        _msg(100.030, "send", "reminder", None, "Arm", 4, "c4"),
    ]  # fmt: skip
