"""The process backend: one child ``pi`` (real or fake) per request, one answer back.

Argv follows the verified child-session flags (notes/pi-host.md §2): ``--no-session``,
``-ne`` (no extensions, so our own bridge is not loaded again), ``--no-skills
--no-context-files --no-prompt-templates``, the persona prompt BY FILE through
``--append-system-prompt FILE``, read-only ``--tools`` and the *exact* session ``--model``
(M-OPTIMIZE-WORKER-2). The child
environment also carries the kill switch ``PERSONA_MIND_DISABLE=1`` (and pi-persona's
``PI_PERSONA_DISABLE=1``) plus the frozen leg identity (M-LEG-1, M-LEG-9).

``rpc`` mode (default) sends ``prompt`` and, when stopping, an ``abort`` frame first;
``json`` mode takes the prompt on stdin (no argv limit) and is stopped by signals only.

Why a file and never argv (issue 15 item 6): one argument is capped at 128 KiB by the kernel,
so a long persona made every child fail at spawn; and ``/proc/<pid>/cmdline`` shows argv to
every local user. The file lives in a fresh ``0700`` temp directory, is created ``0600`` with
``O_EXCL|O_NOFOLLOW``, and the directory is removed when the child is gone, on every path
(answer, failure, deadline, cancellation). Writing and removing it run on a worker thread,
not on the event loop.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Literal

import anyio
import msgspec

from persona_mind.child_errors import (
    ChildDeadlineExceeded,
    ChildDied,
    ChildExited,
    ChildSpawnFailed,
    ChildUnavailable,
)
from persona_mind.clock import Clock
from persona_mind.messages.child import ChildProgress, ChildReply, ChildRequest
from persona_mind.runners._child_backend import ProgressFn
from persona_mind.runners._child_events import EventState
from persona_mind.runners._child_process import (
    DEFAULT_FRAME_LIMIT,
    DEFAULT_STDERR_LIMIT,
    CancelLadder,
    ChildProcess,
    ProcessSpec,
    open_child,
    within,
)

__all__ = (
    "KILL_SWITCH_ENV",
    "MAX_SYSTEM_PROMPT_BYTES",
    "PiBackend",
    "PiMode",
    "child_env",
    "pi_argv",
    "prompt_file",
)

PiMode = Literal["rpc", "json"]
KILL_SWITCH_ENV = "PERSONA_MIND_DISABLE"
MAX_SYSTEM_PROMPT_BYTES = 4 * 1024 * 1024
"""Largest system prompt a child is started with. Not an argv limit (the prompt goes by
file); a bound so a runaway pack cannot make every child send megabytes per turn. Pack
validation keeps every persona far below it (``persona/packs/_validate.py``)."""
_PROMPT_FILE = "system-prompt.md"
_TOOL_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}$")
"""One Pi tool name (the rule pack validation applies, persona/packs/_runnable.py)."""
_ABORT = b'{"type":"abort","id":"pm-abort"}'
_encoder = msgspec.json.Encoder()


def pi_argv(
    command: Sequence[str], request: ChildRequest, mode: PiMode, prompt_path: str | None
) -> list[str]:
    """The full argv of one child. Neither the task prompt (stdin or an RPC frame) nor the
    system prompt (``prompt_path``, a file; ``None`` when it is empty) is ever on argv."""
    argv = [*command, "--mode", mode]
    if mode == "json":
        argv.append("-p")
    persona = request.persona
    argv += ["--no-session", "-ne"]
    # Skills (P-RESOLVER-21, P-CHILD-13): exactly the persona's resolved skills; when the
    # host did not report its skills, the child's own Pi discovers them (never a prompt
    # listing skills on a child started with --no-skills).
    worker = request.kind == "worker"
    if worker or persona.skill_paths or not persona.skills:
        argv.append("--no-skills")
    if not worker:
        for path in persona.skill_paths:
            argv += ["--skill", path]
    argv += ["--no-context-files", "--no-prompt-templates"]
    if prompt_path is not None:
        argv += ["--append-system-prompt", prompt_path]
    tools = persona.tools if not worker else ()
    argv += ["--tools", ",".join(tools)] if tools else ["--no-tools"]
    argv += ["--model", request.child_model]
    return argv


def child_env(
    request: ChildRequest, base: Mapping[str, str], extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: the parent's (P-CHILD-10) minus our own namespace, plus the
    kill switch and the frozen, scrubbed leg payload (M-LEG-9)."""
    env = {k: v for k, v in base.items() if not k.startswith("PERSONA_MIND_")}
    env.update(extra or {})
    env[KILL_SWITCH_ENV] = "1"
    env["PI_PERSONA_DISABLE"] = "1"
    env["PERSONA_MIND_LEG"] = request.kind
    env["PERSONA_MIND_LEG_PERSONA"] = request.persona.qualified_id
    return env


class _PromptDir:
    """The private directory of one prompt file, made and removed on worker threads.

    :func:`prompt_file` orders the two: the removal starts only once the creation has ended,
    however it ended, so they never overlap and need no lock.
    """

    def __init__(self) -> None:
        self._directory: str | None = None

    def create(self, text: str) -> str:
        # mkdtemp: 0700, unpredictable name; the file 0600, exclusive, never through a
        # pre-planted symlink or another user's file
        self._directory = tempfile.mkdtemp(prefix="pm-child-")
        path = os.path.join(self._directory, _PROMPT_FILE)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(path, flags, 0o600)
        try:
            view = memoryview(text.encode())
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        return path

    def remove(self) -> None:
        directory, self._directory = self._directory, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)


@asynccontextmanager
async def prompt_file(text: str) -> AsyncIterator[str]:
    """A private file holding ``text``; it and its directory are removed on exit, always.

    The file IO runs on a worker thread, never on the event loop (issue 10 scope 6). The
    caller keeps the context open until the child has exited. Removal runs on every path —
    answer, failure, deadline, cancellation, a cancellation that lands mid-write (the
    creation is shielded, so it runs to its end and the removal waits for it) — and is
    shielded; if even the shielded wait is interrupted, the removal runs when the creation
    has ended, on the loop.
    """
    directory = _PromptDir()
    creating = asyncio.ensure_future(anyio.to_thread.run_sync(directory.create, text))
    try:
        yield await asyncio.shield(creating)
    finally:
        try:
            with anyio.CancelScope(shield=True):
                await asyncio.wait([creating])  # the write has ended, however it ended
                if not creating.cancelled():
                    creating.exception()  # raised above if it was ours; never logged twice
                await anyio.to_thread.run_sync(directory.remove)
        except BaseException:
            creating.add_done_callback(lambda _: directory.remove())
            raise


class PiBackend:
    """Runs each request as a fresh ``pi`` process; no retry after launch (P-CHILD-8)."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        clock: Clock,
        mode: PiMode = "rpc",
        env: Mapping[str, str] | None = None,
        base_env: Mapping[str, str] | None = None,
        ladder: CancelLadder | None = None,
        exit_grace: float = 5.0,
        frame_limit: int = DEFAULT_FRAME_LIMIT,
        stderr_limit: int = DEFAULT_STDERR_LIMIT,
        name: str = "pi",
    ) -> None:
        if not command:
            raise ChildSpawnFailed("", "empty pi command")
        self._command = tuple(command)
        self._clock = clock
        self._mode: PiMode = mode
        self._env = dict(env or {})
        self._base_env = base_env
        self._ladder = ladder or CancelLadder()
        self._exit_grace = exit_grace
        self._frame_limit = frame_limit
        self._stderr_limit = stderr_limit
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def mode(self) -> PiMode:
        return self._mode

    def check(self, request: ChildRequest) -> None:
        """Refuse, before anything is written or spawned, what no child should be given: a
        prompt over the limit, a tool name that would change the ``--tools a,b`` list, or a
        persona whose declared skill or model this Pi does not have (P-CHILD-13)."""
        if request.persona.unavailable is not None and request.kind != "worker":
            raise ChildUnavailable(request.persona.name, request.persona.unavailable)
        bad = [t for t in request.persona.tools if not _TOOL_RE.fullmatch(t)]
        if bad:
            raise ChildSpawnFailed(
                self._command[0],
                f"persona {request.persona.name} declares tool name(s) {bad!r} that are not "
                "one tool name each; fix its tools list",
            )
        size = len(request.system_prompt.encode())
        if size > MAX_SYSTEM_PROMPT_BYTES:
            raise ChildSpawnFailed(
                self._command[0],
                f"the system prompt of {request.persona.name} is {size} bytes, over the "
                f"{MAX_SYSTEM_PROMPT_BYTES}-byte child limit; shorten the persona or its "
                "injection",
            )

    def spec(self, request: ChildRequest, prompt_path: str | None) -> ProcessSpec:
        """The process to start; ``prompt_path`` is the file from :func:`prompt_file`."""
        self.check(request)
        rpc = self._mode == "rpc"
        return ProcessSpec(
            argv=pi_argv(self._command, request, self._mode, prompt_path),
            env=child_env(
                request, os.environ if self._base_env is None else self._base_env, self._env
            ),
            cwd=request.cwd,
            stdin_data=None if rpc else request.prompt.encode(),
            keep_stdin_open=rpc,
            abort_frame=_ABORT if rpc else None,
            frame_limit=self._frame_limit,
            stderr_limit=self._stderr_limit,
            label=request.label,
        )

    async def run(self, request: ChildRequest, on_progress: ProgressFn) -> ChildReply:
        self.check(request)
        if not request.system_prompt:
            return await self._run(request, None, on_progress)
        async with prompt_file(request.system_prompt) as path:
            return await self._run(request, path, on_progress)

    async def _run(
        self, request: ChildRequest, prompt_path: str | None, on_progress: ProgressFn
    ) -> ChildReply:
        spec = self.spec(request, prompt_path)
        started = self._clock.monotonic()
        state = EventState(request)
        outcome: dict[str, int | str] = {}

        def exited(proc: ChildProcess) -> None:
            outcome["rc"] = proc.returncode if proc.returncode is not None else -9
            outcome["stderr"] = proc.stderr_text()
            steps = ",".join(proc.stop_steps) or "none"
            on_progress(_event(request, "exited", f"rc={outcome['rc']} stop={steps}", proc.pid))

        async def body() -> None:
            async with open_child(spec, self._clock, self._ladder, exited) as proc:
                state.pid = proc.pid
                on_progress(_event(request, "spawned", spec.argv[0], proc.pid))
                await self._converse(proc, request, state, on_progress)

        if not await within(self._clock, request.deadline, body):
            raise ChildDeadlineExceeded(request.label, request.deadline)
        text, stop = self._classify(request, state, outcome)
        return ChildReply(
            request_id=request.request_id,
            persona=request.persona.name,
            text=text,
            usage=state.usage,
            model=request.child_model,
            duration=self._clock.monotonic() - started,
            stop_reason=stop,
            backend=self._name,
        )

    async def _converse(
        self, proc: ChildProcess, request: ChildRequest, state: EventState, on_progress: ProgressFn
    ) -> None:
        if self._mode == "rpc":
            await proc.send(
                _encoder.encode({"id": "pm-retry", "type": "set_auto_retry", "enabled": False})
            )
            await proc.send(
                _encoder.encode({"id": "pm-prompt", "type": "prompt", "message": request.prompt})
            )
        while (frame := await proc.read_frame()) is not None:
            progress = state.feed(frame)
            if progress is not None:
                on_progress(progress)
            if state.run_done:
                await proc.close_stdin()
        # Output closed: the child is exiting. Give it a bounded moment, then the ladder.
        await proc.wait_for(self._exit_grace)

    def _classify(
        self, request: ChildRequest, state: EventState, outcome: dict[str, int | str]
    ) -> tuple[str, str]:
        rc = int(outcome.get("rc", -9))
        stderr = str(outcome.get("stderr", ""))
        if rc < 0:
            raise ChildDied(request.label, f"killed by signal {-rc}", stderr)
        if rc > 0:
            raise ChildExited(request.label, rc, stderr)
        if state.final_text is None:
            raise ChildDied(request.label, "exited without a final answer", stderr)
        return state.result()


def _event(request: ChildRequest, event: str, detail: str, pid: int) -> ChildProgress:
    return ChildProgress(
        request_id=request.request_id,
        persona=request.persona.name,
        event=event,  # type: ignore[arg-type]
        detail=detail,
        pid=pid,
    )
