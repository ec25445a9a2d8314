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
                "usage": {"input": 10, "output": 5}}],
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
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from typing import Any

# Start-up time is this fake's spawn overhead (bench/fanout.py): only cheap imports at the
# top; ``subprocess`` is imported where a grandchild is scripted and ``pathlib`` not at all.

__all__ = ("LOG_ENV", "SCRIPT_ENV", "fake_pi_command", "main", "write_fake_pi")

SCRIPT_ENV = "FAKE_PI_SCRIPT"
LOG_ENV = "FAKE_PI_LOG"
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


class _Out:
    def emit(self, record: dict[str, Any]) -> None:
        os.write(1, json.dumps(record).encode() + b"\n")


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


def _resolve_prompt(value: str, files: list[dict[str, Any]]) -> str:
    """Pi's rule: an existing path is read (BOM stripped), anything else is the text."""
    if not os.path.exists(value):
        return value
    st = os.stat(value)
    parent = os.stat(os.path.dirname(os.path.abspath(value)))
    files.append(
        {
            "path": value,
            "mode": st.st_mode & 0o777,
            "dir_mode": parent.st_mode & 0o777,
            "uid": st.st_uid,
        }
    )
    with open(value, encoding="utf-8") as fh:
        return fh.read().removeprefix("\ufeff")


def _system_prompt(opts: dict[str, Any], files: list[dict[str, Any]]) -> str:
    parts = []
    if "--system-prompt" in opts:
        parts.append(_resolve_prompt(str(opts["--system-prompt"]), files))
    for value in opts.get("--append-system-prompt", []):
        parts.append(_resolve_prompt(str(value), files))
    return "\n\n".join(p for p in parts if p)


def _load_script() -> dict[str, Any]:
    raw = os.environ.get(SCRIPT_ENV, "")
    if not raw:
        return {}
    if raw.lstrip().startswith(("{", "[")):
        text = raw
    else:
        with open(raw, encoding="utf-8") as fh:
            text = fh.read()
    data = json.loads(text)
    return {"rules": data} if isinstance(data, list) else dict(data)


def _choose(script: dict[str, Any], system: str, prompt: str, model: str) -> dict[str, Any]:
    for rule in script.get("rules", []):
        if "system_contains" in rule and rule["system_contains"] not in system:
            continue
        if "prompt_contains" in rule and rule["prompt_contains"] not in prompt:
            continue
        if "model" in rule and rule["model"] != model:
            continue
        return dict(rule)
    return dict(script.get("default", {}))


def _log(entry: dict[str, Any]) -> None:
    path = os.environ.get(LOG_ENV)
    if path:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, json.dumps(entry).encode() + b"\n")
        finally:
            os.close(fd)


class _Session:
    def __init__(self, opts: dict[str, Any]) -> None:
        self.opts = opts
        self.out = _Out()
        self.prompt_files: list[dict[str, Any]] = []
        self.system = _system_prompt(opts, self.prompt_files)
        self.model = str(opts.get("--model", ""))
        self.tools = [] if opts.get("--no-tools") else str(opts.get("--tools") or "").split(",")
        self.script = _load_script()
        self.stdin_buf = b""
        self.stdin_eof = False

    # -- stdin (rpc) -----------------------------------------------------------------------
    def next_command(self, timeout: float | None) -> dict[str, Any] | None:
        """The next stdin command, or None on timeout/EOF."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.stdin_buf:
            if self.stdin_eof:
                return None
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([0], [], [], wait)
            if not ready:
                return None
            chunk = os.read(0, 65536)
            if not chunk:
                self.stdin_eof = True
            self.stdin_buf += chunk
        line, self.stdin_buf = self.stdin_buf.split(b"\n", 1)
        try:
            value = json.loads(line)
        except ValueError:
            self.out.emit(
                {
                    "type": "response",
                    "command": "parse",
                    "success": False,
                    "error": "Failed to parse command",
                }
            )
            return {}
        return value if isinstance(value, dict) else {}

    # -- one answer ------------------------------------------------------------------------
    def answer(self, prompt: str, rpc: bool) -> None:
        rule = _choose(self.script, self.system, prompt, self.model)
        entry: dict[str, Any] = {
            "pid": os.getpid(),
            "argv": sys.argv[1:],
            "mode": self.opts["mode"],
            "system_prompt": self.system,
            "prompt_files": self.prompt_files,
            "tools": self.tools,
            "model": self.model,
            "prompt": prompt,
            "env": {
                k: os.environ.get(k)
                for k in (
                    "PERSONA_MIND_DISABLE",
                    "PI_PERSONA_DISABLE",
                    "PERSONA_MIND_LEG",
                    "PERSONA_MIND_LEG_PERSONA",
                )
            },
        }
        if rule.get("grandchild"):
            import subprocess  # noqa: PLC0415 - keep start-up cheap

            child = subprocess.Popen(["sleep", "600"])
            entry["grandchild"] = child.pid
        _log(entry)
        if rule.get("ignore_sigterm"):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if "exit" in rule:
            sys.stderr.write(f"fake pi: scripted exit {rule['exit']}\n")
            sys.stderr.flush()
            os._exit(int(rule["exit"]))
        if "signal" in rule:
            os.kill(os.getpid(), int(rule["signal"]))
        if rule.get("garbage"):
            os.write(1, b"this is not json\n")
        self.out.emit({"type": "agent_start"})
        self.out.emit({"type": "turn_start"})
        if rule.get("tool"):
            self.out.emit(
                {
                    "type": "tool_execution_start",
                    "toolName": rule["tool"],
                    "toolCallId": "t1",
                    "args": {},
                }
            )
            self.out.emit(
                {
                    "type": "tool_execution_end",
                    "toolName": rule["tool"],
                    "toolCallId": "t1",
                    "isError": False,
                }
            )
        wait = None if rule.get("hang") else float(rule.get("delay", 0.0))
        if not self.wait(wait, rpc, bool(rule.get("ignore_abort"))):
            self.finish("", "aborted", None, {})
            return
        if "error" in rule:
            self.finish("", "error", str(rule["error"]), rule.get("usage", {}))
            return
        text = self.reply_text(rule, prompt)
        self.finish(text, "stop", None, rule.get("usage", {}))

    def reply_text(self, rule: dict[str, Any], prompt: str) -> str:
        if "huge" in rule:
            return "H" * int(rule["huge"])
        if "reply" in rule:
            return str(rule["reply"])
        who = self.system.strip().splitlines()[0] if self.system.strip() else "fake"
        return f"[{who}] answer to: {prompt.strip()[:80]}"

    def wait(self, seconds: float | None, rpc: bool, ignore_abort: bool) -> bool:
        """Wait; False if an RPC abort arrived first (unless ignored)."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return True
            if not rpc or self.stdin_eof:
                time.sleep(left if left is not None else 3600)
                continue
            command = self.next_command(left)
            if command and command.get("type") == "abort" and not ignore_abort:
                self.abort_id = command.get("id")
                return False

    def finish(self, text: str, stop: str, error: str | None, usage: dict[str, Any]) -> None:
        u_in = int(usage.get("input", (len(self.system) + 40) // 4))
        u_out = int(usage.get("output", len(text) // 4))
        message: dict[str, Any] = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}] if text else [],
            "stopReason": stop,
            "model": self.model,
            "usage": {
                "input": u_in,
                "output": u_out,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": u_in + u_out,
                "cost": {"total": 0},
            },
        }
        if error:
            message["errorMessage"] = error
        if text:
            self.out.emit(
                {
                    "type": "message_update",
                    "assistantMessageEvent": {
                        "type": "text_delta",
                        "contentIndex": 0,
                        "delta": text[:16],
                    },
                }
            )
        self.out.emit({"type": "message_end", "message": message})
        self.out.emit({"type": "turn_end"})
        self.out.emit({"type": "agent_end", "messages": [], "willRetry": False})
        self.out.emit({"type": "agent_settled", "aborted": stop == "aborted"})
        if stop == "aborted":
            self.out.emit(
                {
                    "type": "response",
                    "command": "abort",
                    "success": True,
                    "id": getattr(self, "abort_id", None),
                }
            )


def _run_rpc(session: _Session) -> int:
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
    session = _Session(opts)
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
