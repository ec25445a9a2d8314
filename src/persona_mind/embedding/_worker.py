"""The model edge's one thread: it loads the model, then runs vector binds, in order.

Why a thread of its own and not the Store's IO thread (the process's blocking executor):
the load imports numpy and reads the model (seconds, mostly holding the GIL) and a cold
bind of a large store embeds for seconds more; on the Store's single IO thread either would
queue every durable write and uncached read of every session behind it — a ``remember``
would wait seconds. The edge is also process-wide (one model however many runtimes a
process opens), so no one runtime's actor can own it. It is owned by its
:class:`~persona_mind.embedding.SemanticEdge` and ended by :meth:`EdgeWorker.close` (the
shared edge's at interpreter exit): the current job stops at its next step and the thread
is joined, within a bound.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ("EdgeWorker",)

T = TypeVar("T")

_STOP: Any = object()


class EdgeWorker:
    """One daemon thread running submitted jobs in order, started at the first job.

    Daemon, and not a ``ThreadPoolExecutor``: an executor's threads are joined at
    interpreter exit *without a bound*, so a sidecar asked to stop would wait out a
    multi-second cold bind; :meth:`close` joins within its bound instead. Killed mid-job at
    exit, a bind loses nothing of record (the cache is derived data: a torn append fails its
    CRC, an unfinished rewrite leaves only its temporary file).
    """

    def __init__(self, name: str = "persona-mind-embedding") -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.closing = threading.Event()
        """Set by :meth:`close`: jobs check it between their steps and stop."""

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Queue ``fn``; its future settles on the worker (cancelled once closed)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if self.closing.is_set():
            future.cancel()
            return future
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()
        self._jobs.put((future, fn))
        return future

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                break
            future, fn = job
            if not self.closing.is_set() and future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn())
                except BaseException as exc:  # handed to the loop, which logs it
                    future.set_exception(exc)
            else:
                future.cancel()
            del job, future, fn  # the job's references (the index) die here, not at the next get

    def close(self, timeout: float = 2.0) -> bool:
        """Stop taking jobs, let the current one stop at its next step, join the thread.

        ``True`` once the thread has ended (or never started); ``False`` when a step that
        cannot be interrupted (the numpy import) outlasted ``timeout``: the daemon thread
        then ends with the process."""
        self.closing.set()
        thread = self._thread
        if thread is None:
            return True
        self._jobs.put(_STOP)
        if thread is not threading.current_thread():
            thread.join(timeout)
        return not thread.is_alive()
