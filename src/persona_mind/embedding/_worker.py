"""The model edge's bind worker: one daemon thread running vector binds in order."""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ("BindWorker",)

T = TypeVar("T")


class BindWorker(Generic[T]):
    """One daemon thread running binds in order.

    Not a ``ThreadPoolExecutor``: its threads are joined at interpreter exit, so a sidecar
    asked to stop would wait out a multi-second cold bind.  Killed mid-job at exit, a bind
    loses nothing of record (the cache is derived data: a torn append fails its CRC, an
    unfinished rewrite leaves only its temporary file).
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[concurrent.futures.Future[T], Callable[[], T]]] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(
            target=self._run, name="persona-mind-embedding-binds", daemon=True
        )
        self._thread.start()

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((future, fn))
        return future

    def _run(self) -> None:
        while True:
            future, fn = self._jobs.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn())
                except BaseException as exc:  # handed to the loop, which logs it
                    future.set_exception(exc)
            del future, fn  # the job's references (the index) die here, not at the next get
