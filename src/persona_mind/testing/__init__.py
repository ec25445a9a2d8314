"""Test helpers shipped with persona-mind, for its own tests and for users testing packs.

* :class:`ManualClock` — virtual time; ``advance()`` fires timers in order.
* :class:`TestProbe` — a recording actor with ``expect()``.
* :func:`wait_for_actor` / :func:`restarted` — wait on an actor's lifecycle steps.
* :func:`wait_all_tasks_blocked` — return once every other task is blocked.
* :class:`SimHost` — a simulated Pi-like session around a real runtime (from
  :mod:`persona_mind.sim`, where the product's demo finds it too).
* :class:`ScriptedModel` — an in-process child backend with scripted replies.
* :func:`fake_pi_command` / :func:`write_fake_pi` — a fake ``pi`` executable for children
  (from :mod:`persona_mind.sim`).
* :class:`FaultyFileSystem` / :class:`PowerLoss` — fail the k-th file-system call, drop or
  garble unsynced writes (crash-safety tests of the storage engine).
* :class:`MemoryStore` — an in-memory StorePort for unit tests of domain code;
  :func:`real_store` — the Store actor over real files, for domain tests on disk.
* :class:`FakeOpenAI` / :func:`pi_agent_env` — a scripted OpenAI-compatible SSE server on
  127.0.0.1 and an offline Pi agent dir pointing at it (end-to-end tests with the real Pi).
* :func:`find_pi` / :func:`require_pi` — the Node 22 + Pi installed by scripts/install-pi.sh.
* :func:`write_pack` — write a valid (or deliberately broken) persona pack for a test.
"""

from __future__ import annotations

# The simulated host and the fake pi are product code (the demo runs them); re-exported here
# so a test imports all its helpers from one place.
from persona_mind.sim import SimHost as SimHost
from persona_mind.sim import Turn as Turn
from persona_mind.sim import fake_pi_command as fake_pi_command
from persona_mind.sim import write_fake_pi as write_fake_pi
from persona_mind.testing._clock import ManualClock as ManualClock
from persona_mind.testing._clock import wait_all_tasks_blocked as wait_all_tasks_blocked
from persona_mind.testing._fake_openai import FakeOpenAI as FakeOpenAI
from persona_mind.testing._fake_openai import message_text as message_text
from persona_mind.testing._fake_openai import pi_agent_env as pi_agent_env
from persona_mind.testing._faultfs import FaultyFileSystem as FaultyFileSystem
from persona_mind.testing._faultfs import PowerLoss as PowerLoss
from persona_mind.testing._lifecycle import restarted as restarted
from persona_mind.testing._lifecycle import wait_for_actor as wait_for_actor
from persona_mind.testing._memstore import MemoryStore as MemoryStore
from persona_mind.testing._memstore import real_store as real_store
from persona_mind.testing._packs import write_pack as write_pack
from persona_mind.testing._pi import NODE_VERSION as NODE_VERSION
from persona_mind.testing._pi import PI_VERSION as PI_VERSION
from persona_mind.testing._pi import PiInstall as PiInstall
from persona_mind.testing._pi import PiNotFound as PiNotFound
from persona_mind.testing._pi import find_pi as find_pi
from persona_mind.testing._pi import pi_required as pi_required
from persona_mind.testing._pi import require_pi as require_pi
from persona_mind.testing._probe import TestProbe as TestProbe
from persona_mind.testing._scripted import ScriptedModel as ScriptedModel
from persona_mind.testing._scripted import ScriptedReply as ScriptedReply

__all__ = (
    "NODE_VERSION",
    "PI_VERSION",
    "FakeOpenAI",
    "FaultyFileSystem",
    "ManualClock",
    "MemoryStore",
    "PiInstall",
    "PiNotFound",
    "PowerLoss",
    "ScriptedModel",
    "ScriptedReply",
    "SimHost",
    "TestProbe",
    "Turn",
    "fake_pi_command",
    "find_pi",
    "message_text",
    "pi_agent_env",
    "pi_required",
    "real_store",
    "require_pi",
    "restarted",
    "wait_all_tasks_blocked",
    "wait_for_actor",
    "write_fake_pi",
    "write_pack",
)
