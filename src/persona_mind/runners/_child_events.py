"""Reading Pi's JSON/RPC event stream: progress for the parent, the final answer, usage.

Pi's ``--mode json`` and ``--mode rpc`` print the same session events (docs ``json.md``).
The authoritative answer is the last ``message_end`` whose message has
``role == "assistant"``; its ``stopReason`` decides success (``--mode json`` exits 0 even
when it is ``error``, notes/pi-host.md pitfall 7). Usage is summed over every assistant
message (one per turn), so tool-using children report their whole cost.
"""

from __future__ import annotations

from typing import Any

import msgspec

from persona_mind.child_errors import ChildCancelled, ChildModelError, ChildProtocolError
from persona_mind.messages.child import ChildProgress, ChildRequest, ChildUsage

__all__ = ("EventState",)

_decoder = msgspec.json.Decoder()


def _usage(raw: object) -> ChildUsage:
    if not isinstance(raw, dict):
        return ChildUsage()
    cost = raw.get("cost")
    total = cost.get("total", 0.0) if isinstance(cost, dict) else 0.0

    def num(key: str) -> int:
        value = raw.get(key, 0)
        return int(value) if isinstance(value, int | float) else 0

    return ChildUsage(
        input_tokens=num("input"),
        output_tokens=num("output"),
        cache_read_tokens=num("cacheRead"),
        cache_write_tokens=num("cacheWrite"),
        cost=float(total) if isinstance(total, int | float) else 0.0,
    )


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        part.get("text", "")
        for part in content
        if isinstance(part, dict) and part.get("type") == "text"
    ]
    return "".join(p for p in parts if isinstance(p, str))


class EventState:
    """Folds one child's event stream into progress callbacks and a final result."""

    def __init__(self, request: ChildRequest, *, pid: int | None = None) -> None:
        self.request = request
        self.pid = pid
        self.usage = ChildUsage()
        self.final_text: str | None = None
        self.stop_reason: str | None = None
        self.error_message: str | None = None
        self.settled = False
        self.agent_ended = False
        self.responses: dict[str, dict[str, Any]] = {}

    def _progress(
        self, event: str, detail: str = "", usage: ChildUsage | None = None
    ) -> ChildProgress:
        return ChildProgress(
            request_id=self.request.request_id,
            persona=self.request.persona.name,
            event=event,  # type: ignore[arg-type]
            detail=detail,
            pid=self.pid,
            usage=usage,
        )

    def feed(self, frame: bytes) -> ChildProgress | None:
        """Apply one stdout frame; returns a progress record worth forwarding, if any."""
        line = frame.rstrip(b"\r")
        if not line.strip():
            return None
        try:
            record = _decoder.decode(line)
        except msgspec.DecodeError as exc:
            preview = line[:80].decode("utf-8", "replace")
            raise ChildProtocolError(
                self.request.label, f"stdout frame is not JSON ({exc}): {preview!r}"
            ) from exc
        if not isinstance(record, dict):
            raise ChildProtocolError(self.request.label, "stdout frame is not a JSON object")
        kind = record.get("type")
        match kind:
            case "response":
                return self._response(record)
            case "agent_start":
                return self._progress("started")
            case "turn_start":
                return self._progress("turn")
            case "tool_execution_start":
                return self._progress("tool", str(record.get("toolName", "")))
            case "message_end":
                return self._message_end(record)
            case "agent_end":
                # Pi 0.7x has no agent_settled and no willRetry: its agent_end is final.
                self.agent_ended = "willRetry" not in record
                return None
            case "agent_settled":
                self.settled = True
                return self._progress("settled")
            case _:
                return None

    @property
    def run_done(self) -> bool:
        """Pi will not continue on its own (``agent_settled``, or a 0.7x final ``agent_end``)."""
        return self.settled or self.agent_ended

    def _response(self, record: dict[str, Any]) -> ChildProgress | None:
        rid = record.get("id")
        if isinstance(rid, str):
            self.responses[rid] = record
        if record.get("success") is False and record.get("command") in ("prompt", "parse"):
            raise ChildProtocolError(
                self.request.label,
                f"pi refused the {record.get('command')} command: {record.get('error')}",
            )
        return None

    def _message_end(self, record: dict[str, Any]) -> ChildProgress | None:
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") != "assistant":
            return None
        usage = _usage(message.get("usage"))
        self.usage = self.usage + usage
        self.final_text = _text(message)
        reason = message.get("stopReason")
        self.stop_reason = reason if isinstance(reason, str) else None
        err = message.get("errorMessage")
        self.error_message = err if isinstance(err, str) else None
        return self._progress("usage", self.stop_reason or "", usage)

    def result(self) -> tuple[str, str]:
        """The final answer and stop reason, or the typed failure the stream ended in."""
        label = self.request.label
        if self.final_text is None or self.stop_reason is None:
            raise ChildModelError(label, "the child finished without an assistant answer")
        if self.stop_reason == "error":
            raise ChildModelError(label, self.error_message or "stopReason error")
        if self.stop_reason == "aborted":
            raise ChildCancelled(label, "the model run was aborted")
        if not self.final_text.strip():
            raise ChildModelError(label, f"empty answer (stopReason {self.stop_reason})")
        return self.final_text, self.stop_reason
