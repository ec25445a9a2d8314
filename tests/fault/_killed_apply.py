"""Child process for ``test_apply_kill9``: stage one consolidation, then apply it on a file
system that SIGKILLs this process at the very first step of the store write — after the
prepared receipt is durable (its history file renamed and the directory fsynced), before a
byte of the new store exists. ``python _killed_apply.py <agent> <repo> <home> <id>...``.
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


class KillBeforeStoreWrite(FaultyFileSystem):
    """Dies (SIGKILL: no cleanup, no finally) when the store's temp is about to be opened,
    once the history file has been replaced (the prepared receipt is on disk)."""

    def __init__(self, store: Path) -> None:
        super().__init__()
        self.store = store
        self.history = Layout.history(store)
        self.receipt_written = False

    def replace(self, src: Path, dst: Path) -> None:
        super().replace(src, dst)
        if dst == self.history:
            self.receipt_written = True

    def open_new(self, path: Path) -> int:
        if self.receipt_written and path.name.startswith(f".{self.store.name}."):
            os.kill(os.getpid(), signal.SIGKILL)
        return super().open_new(path)


def main(agent: Path, repo: Path, home: Path, ids: list[str]) -> None:
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
    store = scope.fact_target("project").path
    engine = FileStore(Layout(agent), fs=KillBeforeStoreWrite(store), lock_timeout=5.0)
    engine.wall = lambda: 2.0  # within the plan's ten minutes
    Consolidator(engine).apply(plan, scope)
    print("NOT KILLED", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
