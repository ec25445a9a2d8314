"""The ``persona-mind`` command line.

Subcommands live in ``cli/_<area>.py`` modules that each expose ``add_parser``; this module
only assembles them, so an area adds a command without touching the others. Every
command returns an exit code; a ``PersonaMindError`` is printed as one clear line (exit 2),
never as a traceback. ``--json`` works on every command (``cli/_output.py``); a reader that
closes the pipe early (``| head -1``) ends the command quietly with status 0.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from persona_mind import __version__
from persona_mind.cli._output import accept_json_everywhere, all_parsers, cli_hints, fail
from persona_mind.errors import PersonaMindError

__all__ = ("build_parser", "main")

# Areas that contribute subcommands, in help order. A missing module is skipped so a
# partial checkout still runs; a module that fails to import for another reason is a bug.
_AREAS = (
    "_demo_command",
    "_memory",
    "_persona",
    "_children",
    "_bridge",
    "_storage",
    "_trace",
    "_mcp_command",
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
            module = importlib.import_module(f"persona_mind.cli.{area}")
        except ModuleNotFoundError as err:
            if err.name == f"persona_mind.cli.{area}":
                continue
            raise
        module.add_parser(sub)
    accept_json_everywhere(parser)
    return parser


def _quiet_stdout() -> None:
    """The reader left: point stdout at /dev/null so the exit-time flush cannot fail too."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


def _json_usage_errors(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """With ``--json`` a usage error (exit 2) also answers on stdout: ``{"error": …}``.

    argparse prints usage and the message on stderr and exits; scripts reading stdout would
    otherwise get nothing. Each parser's ``error`` writes the document first."""
    if "--json" not in argv:
        return
    for each in all_parsers(parser):

        def error(message: str, _p: argparse.ArgumentParser = each) -> NoReturn:
            text = f"{_p.prog}: error: {message}"
            _p.print_usage(sys.stderr)
            print(text, file=sys.stderr)
            doc = {"error": {"message": text, "exitCode": 2, "rule": None}}
            sys.stdout.write(json.dumps(doc) + "\n")
            raise SystemExit(2)

        each.error = error  # type: ignore[method-assign]


def main(argv: Sequence[str] | None = None) -> int:
    """The command; Ctrl-C at any point (even while the parser is built) is one line, 130."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("persona-mind: interrupted", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    _json_usage_errors(parser, sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
        func = getattr(args, "func", None)
        if func is None:
            parser.print_help()
            return 0
    except BrokenPipeError:  # `persona-mind --help | head -1`
        _quiet_stdout()
        return 0
    try:
        code: int = func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except PersonaMindError as err:
        return fail(args, cli_hints(str(err)), 2)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
