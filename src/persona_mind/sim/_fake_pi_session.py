"""The fake ``pi``'s one session: its script, its log and the Pi event records it prints.

Split from :mod:`persona_mind.sim._fake_pi` (the executable: flags, RPC loop, ``main``) so
each stays small. Stdlib only, like the executable: the fake runs as a plain file
(``python -S …/_fake_pi.py``), which imports this module from its own directory.

A rule's ``usage`` sets the assistant message's usage as Pi 1.x reports it: ``input``,
``output``, ``cacheRead``, ``cacheWrite`` (tokens) and ``cost`` (``cost.total``); the
defaults estimate tokens from the prompt and the reply. ``turns: n`` answers in ``n``
assistant messages (the first ``n - 1`` end with ``stopReason: toolUse``, each with the
same usage, printed before any ``delay``), as a tool-using child does, so a parent sums
usage over turns and sees it while the child still runs.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from typing import Any

__all__ = ("LOG_ENV", "SCRIPT_ENV", "Session")

SCRIPT_ENV = "FAKE_PI_SCRIPT"
LOG_ENV = "FAKE_PI_LOG"


class _Out:
    def emit(self, record: dict[str, Any]) -> None:
        os.write(1, json.dumps(record).encode() + b"\n")


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


class Session:
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
        self.earlier_turns(rule)
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

    def _usage(self, text: str, usage: dict[str, Any]) -> dict[str, Any]:
        u_in = int(usage.get("input", (len(self.system) + 40) // 4))
        u_out = int(usage.get("output", len(text) // 4))
        read, write = int(usage.get("cacheRead", 0)), int(usage.get("cacheWrite", 0))
        return {
            "input": u_in,
            "output": u_out,
            "cacheRead": read,
            "cacheWrite": write,
            "totalTokens": u_in + u_out + read + write,
            "cost": {"total": float(usage.get("cost", 0))},
        }

    def earlier_turns(self, rule: dict[str, Any]) -> None:
        """A tool-using child's earlier turns: each an assistant message with its usage,
        printed before the scripted delay, so a parent sees usage while the child runs."""
        for _ in range(max(1, int(rule.get("turns", 1))) - 1):
            step: dict[str, Any] = {"role": "assistant", "content": [], "stopReason": "toolUse"}
            step.update(model=self.model, usage=self._usage("", rule.get("usage", {})))
            self.out.emit({"type": "message_end", "message": step})
            self.out.emit({"type": "turn_end"})
            self.out.emit({"type": "turn_start"})

    def finish(self, text: str, stop: str, error: str | None, usage: dict[str, Any]) -> None:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}] if text else [],
            "stopReason": stop,
            "model": self.model,
            "usage": self._usage(text, usage),
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
