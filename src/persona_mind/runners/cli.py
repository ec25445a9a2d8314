"""The ``persona-mind`` command line.

Subcommands live in ``_cli_<area>.py`` modules that each expose ``add_parser``; this module
only assembles them, so an area adds a command without touching the others. Every
command returns an exit code; a ``PersonaMindError`` is printed as one clear line (exit 2),
never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from persona_mind import __version__
from persona_mind.errors import PersonaMindError

__all__ = ("build_parser", "main")

# Areas that contribute subcommands, in help order. A missing module is skipped so a
# partial checkout still runs; a module that fails to import for another reason is a bug.
_AREAS = (
    "_cli_demo",
    "_cli_memory",
    "_cli_persona",
    "_cli_children",
    "_cli_bridge",
    "_cli_storage",
    "_cli_trace",
    "_cli_mcp",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="persona-mind",
        description="Personas and a memory a coding agent can trust.",
    )
    parser.add_argument("--version", action="version", version=f"persona-mind {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for area in _AREAS:
        try:
            module = importlib.import_module(f"persona_mind.runners.{area}")
        except ModuleNotFoundError as err:
            if err.name == f"persona_mind.runners.{area}":
                continue
            raise
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        code: int = func(args)
    except PersonaMindError as err:
        print(f"persona-mind: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("persona-mind: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
