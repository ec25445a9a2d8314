"""The pi backend against the fake pi: argv, env, both modes, every typed failure, no orphans."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from persona_mind.children import (
    CancelLadder,
    ChildCancelled,
    ChildDeadlineExceeded,
    ChildDied,
    ChildExited,
    ChildModelError,
    ChildProgress,
    ChildProtocolError,
    ChildReply,
    PiBackend,
    group_members,
    pi_argv,
)
from persona_mind.clock import MonotonicClock
from persona_mind.testing import ManualClock
from tests.children._helpers import fake_env, fake_log, pid_alive, request
from tests.children.test_process import ticking

MODES = ["rpc", "json"]


def backend(
    cmd: tuple[str, ...],
    tmp_path: Path,
    script: Any = None,
    *,
    mode: str = "rpc",
    clock: Any = None,
) -> PiBackend:
    return PiBackend(
        cmd,
        clock=clock or MonotonicClock(),
        mode=mode,  # type: ignore[arg-type]
        env=fake_env(tmp_path, script),
        ladder=CancelLadder(abort_grace=2, term_grace=2, kill_grace=5),
    )


async def run(b: PiBackend, **kw: Any) -> tuple[ChildReply, list[ChildProgress]]:
    seen: list[ChildProgress] = []
    reply = await b.run(request(**kw), seen.append)
    return reply, seen


def test_argv_has_every_child_flag_and_no_prompt() -> None:
    """P-CHILD-11, M-OPTIMIZE-WORKER-2/-3: flags verified in notes/pi-host.md §2; the
    system prompt is a file path, never its text (issue 15 item 6)."""
    req = request(prompt="SECRET-PROMPT")
    argv = pi_argv(("pi",), req, "json", "/tmp/pm-child-x/system-prompt.md")
    assert argv[:4] == ["pi", "--mode", "json", "-p"]
    for flag in (
        "--no-session",
        "-ne",
        "--no-skills",
        "--no-context-files",
        "--no-prompt-templates",
    ):
        assert flag in argv
    assert argv[argv.index("--append-system-prompt") + 1] == "/tmp/pm-child-x/system-prompt.md"
    assert "--system-prompt" not in argv
    assert req.persona.system_prompt not in " ".join(argv)
    assert argv[argv.index("--tools") + 1] == "read,grep,ls"
    assert argv[argv.index("--model") + 1] == "fake/fake-model"
    assert "SECRET-PROMPT" not in " ".join(argv)
    worker = pi_argv(("pi",), request(kind="worker"), "rpc", None)
    assert "--append-system-prompt" not in worker
    assert "--no-tools" in worker
    assert "--tools" not in worker
    assert "-p" not in worker


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_reply_usage_and_what_the_child_was_given(
    fake_pi: tuple[str, ...], tmp_path: Path, mode: str
) -> None:
    b = backend(
        fake_pi,
        tmp_path,
        {"default": {"reply": "the answer", "usage": {"input": 7, "output": 3}}},
        mode=mode,
    )
    reply, seen = await run(b, prompt="Why?")
    assert reply.text == "the answer"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (7, 3)
    assert reply.model == "fake/fake-model"
    events = [p.event for p in seen]
    assert events[0] == "spawned"
    assert events[-1] == "exited"
    assert "usage" in events
    (entry,) = fake_log(tmp_path)
    assert entry["prompt"] == "Why?"
    assert entry["system_prompt"] == "You are ARCHITECT-PERSONA."
    assert entry["tools"] == ["read", "grep", "ls"]
    assert entry["model"] == "fake/fake-model"
    # M-LEG-1/-9 and the kill switch: the bridge is never loaded again in a child.
    assert entry["env"] == {
        "PERSONA_MIND_DISABLE": "1",
        "PI_PERSONA_DISABLE": "1",
        "PERSONA_MIND_LEG": "consult",
        "PERSONA_MIND_LEG_PERSONA": "custom/editorial/architect",
    }
    assert not pid_alive(entry["pid"])


@pytest.mark.asyncio
async def test_injection_is_appended_to_the_persona_prompt(
    fake_pi: tuple[str, ...], tmp_path: Path
) -> None:
    """M-LEG-3: the lean objective/LTM injection reaches the child's system prompt."""
    b = backend(fake_pi, tmp_path)
    req = request().__class__(**{**_fields(request()), "injection": "OBJECTIVE: ship v1"})
    await b.run(req, lambda _: None)
    (entry,) = fake_log(tmp_path)
    assert entry["system_prompt"] == "You are ARCHITECT-PERSONA.\n\nOBJECTIVE: ship v1"


def _fields(obj: Any) -> dict[str, Any]:
    return {f: getattr(obj, f) for f in obj.__struct_fields__}


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_model_error_is_a_failure_even_with_exit_0(
    fake_pi: tuple[str, ...], tmp_path: Path, mode: str
) -> None:
    """Pitfall 7: json mode exits 0 on stopReason error; we still fail, typed."""
    b = backend(fake_pi, tmp_path, {"default": {"error": "rate limited"}}, mode=mode)
    with pytest.raises(ChildModelError, match="rate limited"):
        await run(b)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_nonzero_exit_is_child_exited_with_stderr(
    fake_pi: tuple[str, ...], tmp_path: Path, mode: str
) -> None:
    b = backend(fake_pi, tmp_path, {"default": {"exit": 3}}, mode=mode)
    with pytest.raises(ChildExited, match="scripted exit 3") as info:
        await run(b)
    assert info.value.returncode == 3


@pytest.mark.asyncio
async def test_killed_child_is_child_died(fake_pi_direct: tuple[str, ...], tmp_path: Path) -> None:
    b = backend(fake_pi_direct, tmp_path, {"default": {"signal": 9}})
    with pytest.raises(ChildDied, match="signal 9"):
        await run(b)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_garbage_on_stdout_is_a_protocol_error_and_no_process_is_left(
    fake_pi_direct: tuple[str, ...], tmp_path: Path, mode: str
) -> None:
    b = backend(fake_pi_direct, tmp_path, {"default": {"garbage": True, "delay": 30}}, mode=mode)
    with pytest.raises(ChildProtocolError, match="not JSON"):
        await run(b)
    (entry,) = fake_log(tmp_path)
    assert group_members(entry["pid"]) == []


@pytest.mark.asyncio
async def test_a_huge_answer_frame_is_read_whole(fake_pi: tuple[str, ...], tmp_path: Path) -> None:
    """An 8 MiB answer in one JSON line (far beyond 64 KiB) arrives intact."""
    b = backend(fake_pi, tmp_path, {"default": {"huge": 8 * 1024 * 1024}})
    reply, _ = await run(b)
    assert len(reply.text) == 8 * 1024 * 1024


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("mode", "rule", "steps"),
    [
        ("rpc", {}, "abort"),
        ("rpc", {"ignore_abort": True}, "abort,term"),
        ("rpc", {"ignore_abort": True, "ignore_sigterm": True}, "abort,term,kill"),
        ("json", {}, "term"),
        ("json", {"ignore_sigterm": True}, "term,kill"),
    ],
)
async def test_deadline_climbs_the_ladder_and_leaves_nothing(
    fake_pi_direct: tuple[str, ...], tmp_path: Path, mode: str, rule: dict[str, Any], steps: str
) -> None:
    """P-CHILD supervision: deadline → abort → SIGTERM → SIGKILL; no process survives."""
    clock = ManualClock()
    b = backend(
        fake_pi_direct,
        tmp_path,
        {"default": {"hang": True, "grandchild": True, **rule}},
        mode=mode,
        clock=clock,
    )
    # The rung expected to succeed gets a generous grace, the ones expected to be ignored a
    # short one, so the outcome never depends on how fast this machine is.
    last = steps.rsplit(",", maxsplit=1)[-1]
    b._ladder = CancelLadder(
        abort_grace=50 if last == "abort" else 1,
        term_grace=50 if last == "term" else 1,
        kill_grace=50,
    )
    started = anyio.Event()
    seen: list[ChildProgress] = []

    def progress(p: ChildProgress) -> None:
        seen.append(p)
        if p.event == "turn":
            started.set()

    async def drive() -> None:
        await started.wait()
        clock.advance(30.0)  # the deadline passes, exactly
        async with ticking(clock, step=0.1):
            await anyio.sleep_forever()

    errors: list[BaseException] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(drive)
        try:
            await b.run(request(deadline=30.0), progress)
        except ChildDeadlineExceeded as exc:
            errors.append(exc)
        finally:
            tg.cancel_scope.cancel()
    assert len(errors) == 1
    assert "within 30s" in str(errors[0])
    exited = [p for p in seen if p.event == "exited"]
    assert exited
    assert exited[0].detail.endswith(f"stop={steps}")
    (entry,) = fake_log(tmp_path)
    assert group_members(entry["pid"]) == []
    assert not pid_alive(entry["grandchild"])


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_cancelling_the_caller_stops_the_child(
    fake_pi_direct: tuple[str, ...], tmp_path: Path, mode: str
) -> None:
    """Cancel by the caller runs the ladder before the cancellation propagates."""
    b = backend(fake_pi_direct, tmp_path, {"default": {"hang": True}}, mode=mode)
    with anyio.CancelScope() as scope:

        def progress(p: ChildProgress) -> None:
            if p.event == "turn":
                scope.cancel()

        await b.run(request(), progress)
    assert scope.cancelled_caught
    (entry,) = fake_log(tmp_path)
    assert group_members(entry["pid"]) == []


@pytest.mark.asyncio
async def test_aborted_stop_reason_is_child_cancelled(tmp_path: Path) -> None:
    """A child whose model run reports stopReason aborted is a typed cancellation."""
    from persona_mind.runners._child_events import EventState  # noqa: PLC0415

    state = EventState(request())
    state.feed(
        b'{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"aborted"}}'
    )
    with pytest.raises(ChildCancelled):
        state.result()


def _prompt_file_of(entry: dict[str, Any]) -> dict[str, Any]:
    (info,) = entry["prompt_files"]
    return dict(info)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_system_prompt_goes_by_a_private_file_never_argv(
    fake_pi: tuple[str, ...], tmp_path: Path, mode: str
) -> None:
    """Issue 15 item 6: a 200 KiB persona prompt (over the 128 KiB per-argument limit that
    made every child fail) reaches the child whole, through a 0600 file in a 0700 directory
    of this user, is absent from argv (``/proc/<pid>/cmdline``), and is gone after exit."""
    big = "You are ARCHITECT-PERSONA.\n" + "x" * (200 * 1024)
    b = backend(fake_pi, tmp_path, mode=mode)
    base = request()
    req = msgspec.structs.replace(
        base, persona=msgspec.structs.replace(base.persona, system_prompt=big)
    )
    reply = await b.run(req, lambda _: None)
    assert reply.text
    (entry,) = fake_log(tmp_path)
    assert entry["system_prompt"] == big
    assert big[:40] not in " ".join(entry["argv"])
    info = _prompt_file_of(entry)
    assert info["path"] in entry["argv"]
    assert entry["argv"][entry["argv"].index(info["path"]) - 1] == "--append-system-prompt"
    assert info["mode"] == 0o600
    assert info["dir_mode"] == 0o700
    assert info["uid"] == os.getuid()
    assert not Path(info["path"]).exists()
    assert not Path(info["path"]).parent.exists()


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_prompt_file_is_removed_when_the_caller_cancels(
    fake_pi_direct: tuple[str, ...], tmp_path: Path, mode: str
) -> None:
    """Issue 15 item 6: cancel mid-run (ladder up to SIGKILL) still removes the prompt file."""
    b = backend(
        fake_pi_direct,
        tmp_path,
        {"default": {"hang": True, "ignore_abort": True, "ignore_sigterm": True}},
        mode=mode,
    )
    b._ladder = CancelLadder(abort_grace=0.2, term_grace=0.2, kill_grace=5)
    seen_file: list[bool] = []
    with anyio.CancelScope() as scope:

        def progress(p: ChildProgress) -> None:
            if p.event == "turn":
                (entry,) = fake_log(tmp_path)
                seen_file.append(Path(_prompt_file_of(entry)["path"]).exists())
                scope.cancel()

        await b.run(request(), progress)
    assert scope.cancelled_caught
    assert seen_file == [True]  # it existed while the child ran
    (entry,) = fake_log(tmp_path)
    assert group_members(entry["pid"]) == []
    assert not Path(_prompt_file_of(entry)["path"]).parent.exists()


@pytest.mark.asyncio
async def test_prompt_file_is_removed_when_the_child_is_killed(
    fake_pi_direct: tuple[str, ...], tmp_path: Path
) -> None:
    b = backend(fake_pi_direct, tmp_path, {"default": {"signal": 9}})
    with pytest.raises(ChildDied):
        await run(b)
    (entry,) = fake_log(tmp_path)
    assert not Path(_prompt_file_of(entry)["path"]).parent.exists()


@pytest.mark.asyncio
async def test_a_prompt_over_the_child_limit_is_refused_before_spawn(
    fake_pi: tuple[str, ...], tmp_path: Path
) -> None:
    """A typed refusal naming the limit, no file written and no child started."""
    from persona_mind.children import ChildSpawnFailed  # noqa: PLC0415
    from persona_mind.runners._child_pi import MAX_SYSTEM_PROMPT_BYTES  # noqa: PLC0415

    b = backend(fake_pi, tmp_path)
    req = msgspec.structs.replace(request(), injection="y" * (MAX_SYSTEM_PROMPT_BYTES + 1))
    with pytest.raises(ChildSpawnFailed, match="child limit"):
        await b.run(req, lambda _: None)
    assert fake_log(tmp_path) == []


@pytest.mark.asyncio
async def test_a_tool_name_that_would_widen_the_tool_list_is_refused(
    fake_pi: tuple[str, ...], tmp_path: Path
) -> None:
    """``--tools read,bash`` from one entry "read,bash": refused before spawn."""
    from persona_mind.children import ChildSpawnFailed  # noqa: PLC0415

    b = backend(fake_pi, tmp_path)
    base = request()
    req = msgspec.structs.replace(
        base, persona=msgspec.structs.replace(base.persona, tools=("read,bash",))
    )
    with pytest.raises(ChildSpawnFailed, match="not one tool name"):
        await b.run(req, lambda _: None)
    assert fake_log(tmp_path) == []
