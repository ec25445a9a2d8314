"""``python -m persona_mind`` is the ``persona-mind`` command (same arguments, same exit codes)."""

import sys

from persona_mind.cli import main

sys.exit(main())
