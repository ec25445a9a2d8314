"""The ``persona-mind`` console script: Ctrl-C from the first moment is exit 130, one line.

``persona_mind.cli`` imports most of the product before its ``main`` can catch anything, and
a SIGINT during those imports printed a traceback from the import chain. This module imports
nothing of the product (``import persona_mind`` itself is lazy). Loading it installs a SIGINT
handler that ends the process at once with 130, which covers the console script's own lines
between this import and the call of :func:`main`; :func:`main` puts Python's usual handler
back and imports the CLI inside the ``try`` that turns ``KeyboardInterrupt`` into 130.
``python -m persona_mind`` comes here too. What runs before any code of ours is outside:
the interpreter's start-up (``site``) and the first lines of the script pip generates (it
imports ``re``) — about the first 20 ms on a 2-core machine; a SIGINT there ends the
process as Python does, sometimes with a traceback from ``site`` or ``re``.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ("INTERRUPTED", "main")

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it
_NOTICE = "persona-mind: interrupted\n"


def _before_main(_signum: int, _frame: object) -> None:
    """Nothing has run yet: say so in one line and leave (no cleanup is owed)."""
    os.write(2, _NOTICE.encode())
    os._exit(INTERRUPTED)


signal.signal(signal.SIGINT, _before_main)


def main() -> int:
    """Run the command line; an interrupt at any point is one line on stderr and 130."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from persona_mind.cli import main as cli_main  # noqa: PLC0415  (the point of this module)

        return cli_main()
    except KeyboardInterrupt:
        sys.stderr.write(_NOTICE)
        return INTERRUPTED
