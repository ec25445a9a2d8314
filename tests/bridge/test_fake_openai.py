"""The fake OpenAI-compatible server that end-to-end tests point Pi at (M-VERIFY-2)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from persona_mind.testing._fake_openai import FakeOpenAI, pi_agent_env


def _post(url: str, body: dict[str, Any]) -> tuple[int, str]:
    req = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read().decode()


def _events(sse: str) -> list[Any]:
    out: list[Any] = []
    for block in sse.split("\n\n"):
        if block.startswith("data: "):
            payload = block[len("data: ") :]
            out.append(payload if payload == "[DONE]" else json.loads(payload))
    return out


def _text(events: list[Any]) -> str:
    return "".join(
        e["choices"][0]["delta"].get("content", "")
        for e in events
        if isinstance(e, dict) and e["choices"]
    )


BODY: dict[str, Any] = {
    "model": "fake-model",
    "stream": True,
    "messages": [
        {"role": "system", "content": "SYSTEM-X"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ],
    "tools": [{"type": "function", "function": {"name": "memory", "parameters": {}}}],
}


def test_scripted_text_tool_calls_and_records() -> None:
    with FakeOpenAI(
        [
            {"text": "hello world", "chunks": 2},
            {"tool_calls": [{"name": "memory", "arguments": {"a": 1}}]},
        ]
    ) as fake:
        status, body = _post(fake.base_url, BODY)
        assert status == 200
        events = _events(body)
        assert events[-1] == "[DONE]"
        assert _text(events) == "hello world"
        assert events[-2]["usage"]["total_tokens"] > 0
        _, body2 = _post(fake.base_url, BODY)
        calls = [
            e["choices"][0]["delta"]["tool_calls"][0]
            for e in _events(body2)
            if isinstance(e, dict) and e["choices"] and "tool_calls" in e["choices"][0]["delta"]
        ]
        assert calls[0]["function"] == {"name": "memory", "arguments": '{"a": 1}'}
        finishes = [
            e["choices"][0]["finish_reason"]
            for e in _events(body2)
            if isinstance(e, dict) and e["choices"] and e["choices"][0]["finish_reason"]
        ]
        assert finishes == ["tool_calls"]
        assert fake.wait_for_requests(2, timeout=1)
        assert fake.system_prompt(0) == "SYSTEM-X"
        assert fake.tool_names(1) == ["memory"]
        assert fake.user_texts(0) == ["hi"]


def test_empty_script_echoes_last_tool_result_then_user_text() -> None:
    with FakeOpenAI() as fake:
        _, body = _post(fake.base_url, BODY)
        assert _text(_events(body)) == "ECHO: hi"
        with_tool = {**BODY, "messages": [*BODY["messages"], {"role": "tool", "content": "R1"}]}
        fake.push({"text_from_last_tool": "SAW "})
        _, body = _post(fake.base_url, with_tool)
        assert _text(_events(body)) == "SAW R1"


def test_http_error_step_and_bad_body() -> None:
    with FakeOpenAI([{"http_error": 500, "body": "boom"}]) as fake:
        status, body = _post(fake.base_url, BODY)
        assert status == 500
        assert json.loads(body)["error"]["message"] == "boom"
        req = urllib.request.Request(fake.base_url + "/chat/completions", data=b"{nope")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=10)
        info.value.close()
        assert info.value.code == 400
        assert len(fake.requests) == 1  # the malformed body is not a request of the script


def test_wait_for_requests_times_out() -> None:
    with FakeOpenAI() as fake:
        assert fake.wait_for_requests(1, timeout=0.01) is False


def test_pi_agent_env_writes_models_and_settings(tmp_path: Path) -> None:
    env = pi_agent_env(
        tmp_path / "agent",
        "http://127.0.0.1:1/v1",
        base_env={"PI_PERSONA_X": "1", "PERSONA_MIND_DISABLE": "1", "KEEP": "k"},
    )
    assert env["PI_CODING_AGENT_DIR"] == str(tmp_path / "agent")
    assert env["PI_OFFLINE"] == "1"
    assert env["PI_SKIP_VERSION_CHECK"] == "1"
    assert env["PI_TELEMETRY"] == "0"
    assert env["KEEP"] == "k"
    assert "PI_PERSONA_X" not in env  # M-VERIFY-1
    assert "PERSONA_MIND_DISABLE" not in env
    settings = json.loads((tmp_path / "agent" / "settings.json").read_text())
    assert settings["retry"] == {"enabled": False}
    models = json.loads((tmp_path / "agent" / "models.json").read_text())
    assert models["providers"]["fake"]["baseUrl"] == "http://127.0.0.1:1/v1"


def test_module_entry_point_prints_port_and_logs(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "from cli"}]))
    log = tmp_path / "req.jsonl"
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "persona_mind.testing._fake_openai",
            "--script",
            str(script),
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("PORT ")
            url = f"http://127.0.0.1:{int(line.split()[1])}/v1"
            _, body = _post(url, BODY)
            assert _text(_events(body)) == "from cli"
            assert json.loads(log.read_text().splitlines()[0])["model"] == "fake-model"
        finally:
            proc.terminate()
            assert proc.wait(timeout=10) == 0
