"""Kill -9 helper for apply: a single-threaded process that forks one applying child per line.

``run <agent> <repo> <home> <k> <ackfile> <id>...`` -> ``<pid>``; ``reap <pid>`` ->
``reaped <status>``. The child stages one consolidation of the given fact ids on an ordinary
file system, then applies it on one that SIGKILLs the process at seam call ``k`` (naming
the call in the ack file first); a child that finishes writes ``DONE <outcome>``.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from persona_mind.actors.optimizer._consolidator import Consolidator
from persona_mind.mind import MindScope, find_project
from persona_mind.mind.optimize._plans import PlanRegistry
from persona_mind.storage import FileStore, Layout
from persona_mind.testing._faultfs import FaultyFileSystem

PERSONA = "official/software-team/architect"


class SelfKill(FaultyFileSystem):
    def __init__(self, k: int, ack: int) -> None:
        super().__init__()
        self.k, self.n, self.ack = k, 0, ack

    def _step(self, name: str) -> None:
        self.n += 1
        if self.n == self.k:
            os.write(self.ack, f"AT {name}\n".encode())
            os.kill(os.getpid(), signal.SIGKILL)


def child(agent: Path, repo: Path, home: Path, k: int, ack_path: str, ids: list[str]) -> None:
    ack = os.open(ack_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    scope = MindScope(agent, PERSONA, find_project(repo, home))
    staged = Consolidator(FileStore(Layout(agent))).stage(
        scope, "project", [{"sources": ids, "text": "consolidated rule"}], now=1.0
    )
    plan = PlanRegistry().add(
        owner="s",
        tier="project",
        store=staged.store,
        persona=PERSONA,
        fingerprint=staged.fingerprint,
        replacements=staged.replacements,
        now=1.0,
    )
    engine = FileStore(Layout(agent), fs=SelfKill(k, ack), lock_timeout=5.0)
    engine.wall = lambda: 2.0
    done = Consolidator(engine).apply(plan, scope)
    os.write(ack, f"DONE {done.outcome}\n".encode())


def main() -> None:
    for line in sys.stdin:
        parts = line.split()
        if parts[0] == "run":
            pid = os.fork()
            if pid == 0:
                try:
                    child(
                        Path(parts[1]),
                        Path(parts[2]),
                        Path(parts[3]),
                        int(parts[4]),
                        parts[5],
                        parts[6:],
                    )
                finally:
                    os._exit(0)
            print(pid, flush=True)
        elif parts[0] == "reap":
            _, status = os.waitpid(int(parts[1]), 0)
            print(f"reaped {status}", flush=True)


if __name__ == "__main__":
    main()
