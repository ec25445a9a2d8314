"""How every ``persona-mind`` command answers: text for people, one JSON document for scripts.

``--json`` is accepted at every level of the command tree (``persona-mind --json memory
list`` and ``persona-mind memory list --json`` mean the same; :func:`accept_json_everywhere`
adds it after the areas registered their parsers). In JSON mode stdout carries exactly one
JSON document whose shape is in ``docs/cli-schema.json`` — an answer, or ``{"error": …}``
when the command failed (the one-line message also goes to stderr). Progress and warnings
always go to stderr, so ``… | head -1`` or ``… | jq`` see the answer only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from typing import Any

import msgspec

__all__ = (
    "ErrorOut",
    "Message",
    "accept_json_everywhere",
    "all_parsers",
    "cli_hints",
    "emit",
    "fail",
    "iso",
    "wants_json",
)


class ErrorOut(msgspec.Struct, kw_only=True):
    """The JSON answer of a command that failed (exit status is non-zero too)."""

    message: str
    exitCode: int  # noqa: N815 - JSON field names are camelCase, like the stores
    rule: str | None = None


class _ErrorDoc(msgspec.Struct):
    error: ErrorOut


class Message(msgspec.Struct, kw_only=True):
    """A command whose answer is a report for people (plans, checks) plus what it did."""

    message: str
    changed: bool = False


_SLASH_PACK = re.compile(r"/persona pack (?=[a-z])")
_SLASH_PERSONA = re.compile(r"/persona (?=(?:list|resolve|doctor|default|migrate|onboard)\b)")
# Session-only commands with a CLI counterpart: the CLI binds no session, it sets the default
# team for new ones; `/persona-list` (the session's roster) is `persona list` (installed packs).
_SLASH_TEAM_SELECT = re.compile(r"`/persona team select ([^`]+)`(?! in Pi)")
_SLASH_ROSTER = re.compile(r"`/persona-list`")


def cli_hints(text: str) -> str:
    """Point hints written for the session (``/persona pack install x``) at the CLI.

    Only commands the CLI has are rewritten; session-only ones (``/persona use``) stay.
    """
    text = _SLASH_PACK.sub("persona-mind pack ", text)
    text = _SLASH_TEAM_SELECT.sub(
        r"`persona-mind persona default set \1` (the team for new sessions)", text
    )
    text = _SLASH_ROSTER.sub("`persona-mind persona list`", text)
    return _SLASH_PERSONA.sub("persona-mind persona ", text)


def iso(timestamp: float | None) -> str | None:
    """Epoch seconds as ISO 8601 UTC (``2026-12-01T15:00:00Z``), ``None`` stays ``None``."""
    if timestamp is None:
        return None
    moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")


def wants_json(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "json", False))


def emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    """Print the answer: ``payload`` as JSON with ``--json``, else ``text`` (no trailing \\n)."""
    if wants_json(args):
        sys.stdout.write(msgspec.json.encode(payload).decode() + "\n")
    elif text:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()


def fail(args: argparse.Namespace, message: str, code: int, rule: str | None = None) -> int:
    """Report a failure: one line on stderr; with ``--json`` also the error document on stdout."""
    print(f"persona-mind: {message}", file=sys.stderr, flush=True)
    if wants_json(args):
        doc = _ErrorDoc(ErrorOut(message=message, exitCode=code, rule=rule))
        sys.stdout.write(msgspec.json.encode(doc).decode() + "\n")
        sys.stdout.flush()
    return code


def _walk(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share a parser
                found += _walk(child)
    return found


def all_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parser and every nested subcommand parser, depth first."""
    return _walk(parser)


def accept_json_everywhere(root: argparse.ArgumentParser) -> None:
    """Give every (sub)command a ``--json`` flag that never resets one given earlier.

    argparse copies a subparser's defaults over the parent's namespace, so nested flags
    default to ``SUPPRESS``; only the root sets ``json=False``.
    """
    for parser in _walk(root):
        existing = [a for a in parser._actions if "--json" in a.option_strings]
        if parser is root:
            if not existing:
                root.add_argument(
                    "--json",
                    action="store_true",
                    help="print one JSON document (shape: docs/cli-schema.json) instead of text",
                )
            continue
        if existing:
            for action in existing:
                action.default = argparse.SUPPRESS
            continue
        parser.add_argument(
            "--json",
            action="store_true",
            default=argparse.SUPPRESS,
            help="print one JSON document (shape: docs/cli-schema.json) instead of text",
        )
