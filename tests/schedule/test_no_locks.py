"""Single flight is mailbox order, not a lock (M-OPTIMIZE-AUTO-20, the design card).

The scheduler modules may not import or construct a lock, semaphore, condition, event or
any threading primitive, and keep no module-level mutable state another task could read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import persona_mind

SRC = Path(persona_mind.__file__).parent
MODULES = ("actors/scheduler.py", "mind/optimize/_schedule.py", "messages/scheduler.py")
FORBIDDEN = {"Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition", "Event", "Barrier"}


def test_scheduler_modules_use_no_lock_semaphore_or_shared_flag() -> None:
    for name in MODULES:
        tree = ast.parse((SRC / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(m.split(".")[0] in ("threading", "multiprocessing") for m in mods)
                assert not {a.name for a in node.names} & FORBIDDEN, name
            if isinstance(node, ast.Attribute):
                assert node.attr not in FORBIDDEN, f"{name}: {node.attr}"
            if isinstance(node, ast.Global | ast.Nonlocal):
                raise AssertionError(f"{name}: shared mutable state via {type(node).__name__}")
        for stmt in tree.body:  # module level: constants only, no mutable containers
            if isinstance(stmt, ast.Assign | ast.AnnAssign):
                value = stmt.value
                assert not isinstance(value, ast.List | ast.Dict | ast.Set), name
                if isinstance(value, ast.Call):
                    func = value.func
                    called = func.id if isinstance(func, ast.Name) else ""
                    assert called not in ("list", "dict", "set", "defaultdict"), name
