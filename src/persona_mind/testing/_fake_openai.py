"""A fake OpenAI-compatible chat-completions server (SSE) on 127.0.0.1, for offline Pi tests.

Pi reaches models through ``models.json`` providers; pointing one at this server lets an
end-to-end test run the real Pi without network, script what the "model" does, and assert on
exactly what Pi sent (system prompt, tools, messages). Stdlib only; one thread per request.

In-process (pytest)::

    with FakeOpenAI([{"tool_calls": [{"name": "memory", "arguments": {"action": "list"}}]},
                     {"text_from_last_tool": "SAW: "}]) as fake:
        env = pi_agent_env(tmp_path / "agent", fake.base_url)
        ...run pi --model fake/fake-model ... with env...
        assert "persona-memory" in fake.system_prompt(-1)

As a process: ``python -m persona_mind.testing._fake_openai --script steps.json --log req.jsonl``
prints ``PORT <n>`` on stdout once it listens, then serves until SIGTERM/SIGINT.

**Script format.** A JSON list of steps; each ``POST /v1/chat/completions`` consumes the next
step (``push()`` appends more at any time). A step is an object with any of:

* ``"text": str`` — stream this assistant text (split into ``"chunks": n`` deltas, default 3);
* ``"tool_calls": [{"name": str, "arguments": object|str, "id"?: str}, ...]`` — stream these
  tool calls (``finish_reason: "tool_calls"``); may be combined with ``text`` (text first);
* ``"text_from_last_tool": prefix`` — answer ``prefix + <content of the last tool message>``;
* ``"delay": seconds`` — wait before answering (headers included), e.g. to test aborts;
* ``"http_error": status`` (+ optional ``"body": str``) — answer with that HTTP error, no stream;
* ``"usage": {"prompt_tokens": int, "completion_tokens": int, "cached_tokens": int,
  "cache_write_tokens": int}`` — the usage chunk (default: the server's ``usage`` argument,
  else prompt ≈ request bytes / 4, completion ≈ reply chars / 4, no cache). Cached tokens
  go out as ``prompt_tokens_details`` (Pi counts them as cache read/write, and the rest of
  the prompt as input). Every usage the server reported is kept in ``reported`` beside
  the request it answered, so a test can add up what a session (and its children) spent.

When the script is empty the server answers ``"ECHO: "`` + the last tool result or user text,
so an unscripted run still finishes. Every request body is recorded (``requests``; and as
JSON lines in ``log_path`` when given) before the step is chosen.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import math
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_mind.testing._pi_env import pi_agent_env  # its home; tests import it from here

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from types import TracebackType

__all__ = ("FakeOpenAI", "message_text", "pi_agent_env")

Step = dict[str, Any]


def message_text(message: Mapping[str, Any]) -> str:
    """The text of one chat message whether ``content`` is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
        )
    return ""


class FakeOpenAI:
    """The server; a context manager that starts it on an ephemeral loopback port."""

    def __init__(
        self,
        script: Iterable[Step] = (),
        *,
        model: str = "fake-model",
        log_path: Path | None = None,
        port: int = 0,
        usage: Mapping[str, int] | None = None,
    ) -> None:
        self.model = model
        self.log_path = log_path
        self.usage = dict(usage or {})
        self.requests: list[dict[str, Any]] = []
        self.reported: list[tuple[dict[str, Any], dict[str, Any]]] = []
        """``(request body, the usage chunk's usage)`` for every streamed answer."""
        self._steps: collections.deque[Step] = collections.deque(script)
        self._arrived = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _make_handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What ``models.json`` needs as the provider's ``baseUrl``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAI:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.02},  # stop() returns within one poll
                name="fake-openai",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- script and records ----------------------------------------------------------
    def push(self, *steps: Step) -> None:
        """Append steps to the script (safe from any thread)."""
        self._steps.extend(steps)

    @property
    def pending_steps(self) -> int:
        return len(self._steps)

    def wait_for_requests(self, count: int, timeout: float = 30.0) -> bool:
        """Block until at least ``count`` requests arrived; False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            self._arrived.clear()
            if len(self.requests) >= count:
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._arrived.wait(remaining)

    def system_prompt(self, index: int = -1) -> str:
        """The system message(s) of request ``index``, joined."""
        messages = self.requests[index].get("messages", [])
        return "\n".join(
            message_text(m) for m in messages if m.get("role") in {"system", "developer"}
        )

    def tool_names(self, index: int = -1) -> list[str]:
        """Names of the tools declared in request ``index``."""
        return [
            str(t.get("function", {}).get("name"))
            for t in self.requests[index].get("tools", []) or []
        ]

    def tool_results(self, index: int = -1) -> list[str]:
        """Contents of the ``tool`` messages of request ``index``."""
        messages = self.requests[index].get("messages", [])
        return [message_text(m) for m in messages if m.get("role") == "tool"]

    def user_texts(self, index: int = -1) -> list[str]:
        messages = self.requests[index].get("messages", [])
        return [message_text(m) for m in messages if m.get("role") == "user"]

    # -- internals -------------------------------------------------------------------
    def _record(self, body: dict[str, Any]) -> Step:
        self.requests.append(body)
        if self.log_path is not None:
            with self.log_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(body) + "\n")
        step = self._steps.popleft() if self._steps else {}
        self._arrived.set()
        return step


def _default_text(body: Mapping[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") in {"tool", "user"}:
            return "ECHO: " + message_text(message)
    return "ECHO: (nothing)"


def _last_tool(body: Mapping[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "tool":
            return message_text(message)
    return "(no tool result)"


def _chunks(text: str, n: int) -> list[str]:
    if not text:
        return []
    size = max(1, math.ceil(len(text) / max(1, n)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _sse_events(
    step: Step, body: Mapping[str, Any], model: str, raw_len: int, default: Mapping[str, int]
) -> list[Any]:
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    text = step.get("text")
    if "text_from_last_tool" in step:
        text = str(step["text_from_last_tool"]) + _last_tool(body)
    calls = step.get("tool_calls") or []
    if text is None and not calls:
        text = _default_text(body)
    events: list[Any] = [chunk({"role": "assistant", "content": ""})]
    for piece in _chunks(text or "", int(step.get("chunks", 3))):
        events.append(chunk({"content": piece}))
    for i, call in enumerate(calls):
        args = call.get("arguments", {})
        args_s = args if isinstance(args, str) else json.dumps(args)
        fn = {"name": call["name"], "arguments": args_s}
        call_id = call.get("id", f"call_{len(body.get('messages', []))}_{i}")
        events.append(
            chunk({"tool_calls": [{"index": i, "id": call_id, "type": "function", "function": fn}]})
        )
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    usage = {**default, **(step.get("usage") or {})}
    prompt = int(usage.get("prompt_tokens", raw_len // 4))
    completion = int(usage.get("completion_tokens", len(text or "") // 4 + 1))
    reported: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    cached, written = int(usage.get("cached_tokens", 0)), int(usage.get("cache_write_tokens", 0))
    if cached or written:
        reported["prompt_tokens_details"] = {
            "cached_tokens": cached,
            "cache_write_tokens": written,
        }
    events.append({**base, "choices": [], "usage": reported})
    return events


def _make_handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "fake-openai/1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read ``requests``, not access logs."""

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": fake.model, "object": "model"}]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._json(400, {"error": {"message": "request body is not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            step = fake._record(body)
            if step.get("delay"):
                time.sleep(float(step["delay"]))
            if "http_error" in step:
                msg = str(step.get("body", "scripted error"))
                self._json(int(step["http_error"]), {"error": {"message": msg, "type": "fake"}})
                return
            events = _sse_events(step, body, fake.model, len(raw), fake.usage)
            fake.reported.append((body, events[-1]["usage"]))
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in events:
                    self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return  # the client aborted; nothing to answer

        def _json(self, status: int, payload: object) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT; print ``PORT <n>`` once listening."""
    parser = argparse.ArgumentParser(prog="python -m persona_mind.testing._fake_openai")
    parser.add_argument("--script", help="JSON file with the list of steps ('-' = stdin)")
    parser.add_argument("--log", type=Path, help="append every request body here (JSON lines)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model", default="fake-model")
    args = parser.parse_args(argv)
    steps: list[Step] = []
    if args.script:
        text = sys.stdin.read() if args.script == "-" else Path(args.script).read_text("utf-8")
        steps = json.loads(text)
    fake = FakeOpenAI(steps, model=args.model, log_path=args.log, port=args.port)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    fake.start()
    print(f"PORT {fake.port}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        done.wait()
    fake.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
