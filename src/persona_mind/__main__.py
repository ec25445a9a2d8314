"""``python -m persona_mind`` is the ``persona-mind`` command (same arguments, same exit codes).

It enters through :mod:`persona_mind._entry`, as the console script does, so a Ctrl-C while
the CLI is still importing is exit 130 without a traceback here too.
"""

import sys

from persona_mind._entry import main

sys.exit(main())
