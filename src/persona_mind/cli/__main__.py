"""``python -m persona_mind.runners`` runs the CLI."""

import sys

from persona_mind.runners.cli import main

sys.exit(main())
