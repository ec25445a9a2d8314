"""Test helpers shipped with persona-mind, for its own tests and for users testing packs.

* :class:`ManualClock` — virtual time; ``advance()`` fires timers in order.
* :class:`TestProbe` — a recording actor with ``expect()``.
* :class:`SimHost` — a simulated Pi-like session around a real runtime.
* :class:`ScriptedModel` — an in-process child backend with scripted replies.
* :func:`fake_pi_command` / :func:`write_fake_pi` — a fake ``pi`` executable for children.
* :class:`FaultyFileSystem` / :class:`PowerLoss` — fail the k-th file-system call, drop or
  garble unsynced writes (crash-safety tests of the storage engine).
* :class:`MemoryStore` — an in-memory StorePort for unit tests of domain code.
* :func:`write_pack` — write a valid (or deliberately broken) persona pack for a test.
"""

from __future__ import annotations

from persona_mind.testing._clock import ManualClock as ManualClock
from persona_mind.testing._fake_pi import fake_pi_command as fake_pi_command
from persona_mind.testing._fake_pi import write_fake_pi as write_fake_pi
from persona_mind.testing._faultfs import FaultyFileSystem as FaultyFileSystem
from persona_mind.testing._faultfs import PowerLoss as PowerLoss
from persona_mind.testing._memstore import MemoryStore as MemoryStore
from persona_mind.testing._packs import write_pack as write_pack
from persona_mind.testing._probe import TestProbe as TestProbe
from persona_mind.testing._scripted import ScriptedModel as ScriptedModel
from persona_mind.testing._scripted import ScriptedReply as ScriptedReply
from persona_mind.testing._simhost import SimHost as SimHost
from persona_mind.testing._simhost import Turn as Turn

__all__ = (
    "FaultyFileSystem",
    "ManualClock",
    "MemoryStore",
    "PowerLoss",
    "ScriptedModel",
    "ScriptedReply",
    "SimHost",
    "TestProbe",
    "Turn",
    "fake_pi_command",
    "write_fake_pi",
    "write_pack",
)
