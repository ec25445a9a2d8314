"""``python -m persona_mind.cli`` runs the CLI (the same as ``python -m persona_mind``)."""

import sys

from persona_mind.cli import main

sys.exit(main())
