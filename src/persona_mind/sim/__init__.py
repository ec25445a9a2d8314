"""The simulated host and the fake ``pi``: product features, not test helpers.

The design card promises "a test harness driving simulated sessions"; ``persona-mind demo``
and ``persona-mind roundtable --fake`` run on it, and users drive it in their own tests of a
persona pack. So it lives here, outside ``testing/``, and product code (the CLI, the demo)
may import it; ``persona_mind.testing`` re-exports these names for existing tests. An
import-linter contract keeps this package free of ``testing/``: what ships never depends
on test-only helpers.

* :class:`SimHost` / :class:`Turn` — a simulated Pi-like session around a real runtime.
* :func:`fake_pi_command` / :func:`write_fake_pi` — a stdlib-only fake ``pi`` executable for
  children, scripted through ``$FAKE_PI_SCRIPT`` (:data:`SCRIPT_ENV`) and logging each run
  to ``$FAKE_PI_LOG`` (:data:`LOG_ENV`).
"""

from __future__ import annotations

from persona_mind.sim._fake_pi import LOG_ENV as LOG_ENV
from persona_mind.sim._fake_pi import SCRIPT_ENV as SCRIPT_ENV
from persona_mind.sim._fake_pi import fake_pi_command as fake_pi_command
from persona_mind.sim._fake_pi import write_fake_pi as write_fake_pi
from persona_mind.sim._host import SimHost as SimHost
from persona_mind.sim._host import Turn as Turn

__all__ = ("LOG_ENV", "SCRIPT_ENV", "SimHost", "Turn", "fake_pi_command", "write_fake_pi")
