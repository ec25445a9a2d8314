"""Load the Mind domain's heavy tables off the event loop, once per process.

Importing ``persona_mind.mind`` compiles the scanner's rule regexes, and the first verdict
or memory line builds TR39's confusables tables and reads the learned layer's weights:
about a second of CPU together on a small machine. Done lazily on the loop it stalled the
sidecar's pings by 200 ms on the first turn that injected memory (``bench/_bridge_limits.py``,
"ping during those turns"). The Mind feature runs :func:`warm_domain` on the Store's IO
thread at ``SessionStart``, which Pi awaits before it reads input anyway, so no turn pays.
"""

from __future__ import annotations

import threading

__all__ = ("warm_domain", "warmed")

_DONE = threading.Event()


def warm_domain() -> None:
    """Import Mind and build its scanner tables (idempotent; cheap once done)."""
    if _DONE.is_set():
        return
    from persona_mind.mind.trust import warm  # noqa: PLC0415 - the point is to import here

    warm()
    _DONE.set()


def warmed() -> bool:
    """Whether :func:`warm_domain` has finished in this process."""
    return _DONE.is_set()
