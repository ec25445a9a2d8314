"""A fake ``pi`` executable that speaks the child protocol subset, with scripted behaviour.

Run it as ``python -m persona_mind.sim._fake_pi [pi flags]`` or, faster (no package
imports: it is stdlib-only on purpose), as ``python path/to/_fake_pi.py``;
:func:`fake_pi_command` returns the latter and :func:`write_fake_pi` writes a wrapper
script usable as ``--pi``. It accepts the flags the child runner passes, answers in
``--mode json -p`` (prompt on stdin) and ``--mode rpc`` (``prompt``, ``abort``,
``set_auto_retry``; EOF on stdin = shutdown) with Pi's event records.

Behaviour comes from ``FAKE_PI_SCRIPT`` (inline JSON or a file path)::

    {"rules": [{"system_contains": "architect", "prompt_contains": "…", "model": "…",
                "reply": "text", "delay": 0.5, "error": "provider said no", "hang": true,
                "ignore_abort": true, "ignore_sigterm": true, "exit": 3, "signal": 9,
                "garbage": true, "huge": 1000000, "grandchild": true, "tool": "read",
                "usage": {"input": 10, "output": 5, "cacheRead": 2, "cost": 0.01},
                "turns": 2}],
     "default": {...}}

The first rule whose conditions all hold wins, else ``default``. Every invocation is logged
as one JSON line to ``FAKE_PI_LOG`` when set (argv, system prompt, tools,
model, prompt, kill-switch env, pid and any grandchild pid) so tests can assert on them.

``--system-prompt`` and ``--append-system-prompt`` (repeatable) are read as Pi 1.x reads
them: a value naming an existing file is that file's content, anything else is literal
text. The logged ``system_prompt`` is the resolved text (the ``--system-prompt`` part and
the appended parts joined by blank lines); ``prompt_files`` lists each file that was read
with its mode, its directory's mode and its owner, so tests can check a child got its
prompt by a private file and never on argv.

The session (script, log, event records, usage) is :mod:`._fake_pi_session`.
"""

from __future__ import annotations

import os
import sys
from typing import Any

if __package__:
    from persona_mind.sim._fake_pi_session import LOG_ENV, SCRIPT_ENV, Session
else:  # run as a file (fake_pi_command): Python put this file's directory on sys.path
    from _fake_pi_session import (  # type: ignore[import-not-found,no-redef]
        LOG_ENV,
        SCRIPT_ENV,
        Session,
    )

# Start-up time is this fake's spawn overhead (bench/fanout.py): only cheap imports at the
# top; ``subprocess`` is imported where a grandchild is scripted and ``pathlib`` not at all.

__all__ = ("LOG_ENV", "SCRIPT_ENV", "fake_pi_command", "main", "write_fake_pi")

_NO_ARG = {
    "-p",
    "--print",
    "--no-session",
    "-ne",
    "--no-extensions",
    "--no-skills",
    "--no-context-files",
    "--no-prompt-templates",
    "--no-tools",
    "--no-mcp",
}
_WITH_ARG = {
    "--mode",
    "--system-prompt",
    "--append-system-prompt",
    "--tools",
    "--model",
    "--provider",
    "--thinking",
    "--session-dir",
    "-e",
    "--extension",
}


def fake_pi_command() -> tuple[str, ...]:
    """Argv prefix that runs this fake without importing the persona_mind package."""
    return (sys.executable, "-S", os.path.realpath(__file__))


def write_fake_pi(directory: str | os.PathLike[str]) -> str:
    """Write an executable ``pi`` wrapper script into ``directory`` and return its path."""
    path = os.path.join(directory, "pi")
    args = " ".join(f"'{a}'" for a in fake_pi_command())
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f'#!/bin/sh\nexec {args} "$@"\n')
    os.chmod(path, 0o755)  # noqa: S103 - an executable test wrapper
    return path


def _parse(argv: list[str]) -> dict[str, Any]:
    opts: dict[str, Any] = {"mode": "text", "tools": None, "positional": []}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in _NO_ARG:
            opts[arg] = True
        elif arg in _WITH_ARG:
            if i + 1 >= len(argv):
                sys.stderr.write(f"fake pi: {arg} needs a value\n")
                sys.exit(2)
            if arg == "--append-system-prompt":
                opts.setdefault(arg, []).append(argv[i + 1])
            else:
                opts[arg] = argv[i + 1]
            i += 1
        elif arg.startswith("-"):
            sys.stderr.write(f"fake pi: unknown option {arg}\n")
            sys.exit(2)
        else:
            opts["positional"].append(arg)
        i += 1
    opts["mode"] = opts.get("--mode", "text")
    return opts


def _run_rpc(session: Session) -> int:
    while True:
        command = session.next_command(None)
        if command is None:
            return 0
        kind = command.get("type")
        rid = command.get("id")
        if kind == "prompt":
            session.out.emit(
                {
                    "id": rid,
                    "type": "response",
                    "command": "prompt",
                    "success": True,
                    "data": {"disposition": "started"},
                }
            )
            session.answer(str(command.get("message", "")), rpc=True)
        elif kind in ("set_auto_retry", "abort"):
            session.out.emit({"id": rid, "type": "response", "command": kind, "success": True})
        elif kind:
            session.out.emit(
                {
                    "id": rid,
                    "type": "response",
                    "command": kind,
                    "success": False,
                    "error": f"Unknown command: {kind}",
                }
            )


def main(argv: list[str] | None = None) -> int:
    opts = _parse(list(sys.argv[1:] if argv is None else argv))
    session = Session(opts)
    if opts["mode"] == "rpc":
        return _run_rpc(session)
    if opts["mode"] != "json":
        sys.stderr.write("fake pi: only --mode json and --mode rpc are supported\n")
        return 2
    prompt = " ".join(opts["positional"]) or sys.stdin.read()
    session.stdin_eof = True
    session.out.emit({"type": "session", "version": 3, "id": "fake", "cwd": os.getcwd()})
    session.answer(prompt, rpc=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
