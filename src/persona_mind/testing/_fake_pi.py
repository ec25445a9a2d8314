"""Moved: the fake ``pi`` ships in :mod:`persona_mind.sim` (issue 10 scope 7).

This name stays so tests written against ``persona_mind.testing._fake_pi`` keep importing
and ``python -m persona_mind.testing._fake_pi`` keeps running the fake; the executable
itself is ``persona_mind/sim/_fake_pi.py`` (stdlib only, what :func:`fake_pi_command` runs).
"""

from __future__ import annotations

import sys

from persona_mind.sim._fake_pi import LOG_ENV, SCRIPT_ENV, fake_pi_command, main, write_fake_pi

__all__ = ("LOG_ENV", "SCRIPT_ENV", "fake_pi_command", "main", "write_fake_pi")

if __name__ == "__main__":
    sys.exit(main())
