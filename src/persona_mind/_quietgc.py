"""Garbage-collector discipline for large loads on worker threads (issue 15, item 9).

Why: CPython's full (generation 2) collection walks every tracked object of the process
while holding the GIL, from whichever thread happened to allocate. Decoding a 16 MiB store
(19,000 facts) and building its index allocate millions of objects, so full collections
fire *during* that work, on the Store's IO thread or the index build's offload thread, and
the sidecar's event loop cannot run for 40–100 ms each time: a ping waits that long.

:func:`no_full_collections` raises the generation-2 threshold out of reach for the duration
of a block (young collections keep running, so garbage cycles from the block still die and
tuples of atoms still get untracked), and restores the thresholds the block found in a
``finally`` — after an exception too. Blocks may overlap across threads (the Store's IO
thread and the model edge's threads): the last one out restores the thresholds the first one
found (a ``gc.set_threshold`` made by other code while a block runs is undone then; nothing
in persona-mind makes one). No lock (ARCHITECTURE: the only locks are storage's file
locks): the blocks in progress are a set whose ``add``/``discard`` the GIL makes atomic, a
block that leaves last restores and then looks again, and a block that enters holds
collections off *after* joining the set — so whatever order two threads interleave in, the
thresholds end held off while any block runs and restored once none does (a leaving block's
restore can only precede an entering block's own hold-off by a few bytecodes).

:func:`freeze_survivors` moves every object the collector tracks into the permanent
generation (:func:`gc.freeze`, O(1)): a large store's snapshot and index are long-lived, and
a later full collection no longer walks them (nor the rest of the start-up heap), so the
deferred collection costs milliseconds instead of the pause this module exists to avoid.
The trade: a cycle that was alive at that moment and dies later is never collected (its
memory stays until exit). Only loads above a size threshold freeze, so this happens once per
large store load, not per write.

On CPython 3.14+, whose incremental collector ignores the third threshold, the block changes
nothing observable; the incremental collector already bounds its pauses.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ("freeze_survivors", "no_full_collections")

_FAR = 1 << 30
"""A generation-2 threshold that one block's young collections never reach."""

_inside: set[object] = set()
"""One token per block in progress, on any thread."""
_restore: tuple[int, int, int] = gc.get_threshold()
"""The thresholds to come back to: the last ones a block found not held off."""


@contextmanager
def no_full_collections() -> Iterator[None]:
    """No full collection while the block runs; thresholds restored however it ends."""
    global _restore  # noqa: PLW0603 - process-wide collector state, one owner
    found = gc.get_threshold()
    if found[2] != _FAR:  # not held off by another block: the thresholds to restore
        _restore = found
    token = object()
    _inside.add(token)
    gc.set_threshold(found[0], found[1], _FAR)
    try:
        yield
    finally:
        _inside.discard(token)
        if not _inside:
            gc.set_threshold(*_restore)
            if _inside:  # a block entered meanwhile: hold collections off again for it
                gc.set_threshold(_restore[0], _restore[1], _FAR)


def freeze_survivors() -> None:
    """Move every tracked object to the permanent generation (call after a large load)."""
    gc.freeze()
