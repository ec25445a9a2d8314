"""``persona-mind trace FILE``: read an actor trace and print a timeline, summary or diagram.

A damaged or missing file is the user's input, not our bug: it gets one clear line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, TextIO

import msgspec

from persona_mind.errors import TraceError
from persona_mind.trace import (
    EVENT_KINDS,
    TraceFilter,
    read_trace,
    render_mermaid,
    render_summary,
    render_timeline,
    summarize,
)

if TYPE_CHECKING:
    from persona_mind.trace import TraceEvent

__all__ = ("add_parser", "run", "run_trace")

EXIT_OK = 0
EXIT_BAD_INPUT = 2
_PROG = "persona-mind trace"


def _event_kinds(value: str) -> list[str]:
    """``--event`` accepts one kind or a comma-separated list, each checked against the schema."""
    kinds = [part.strip() for part in value.split(",") if part.strip()]
    unknown = [kind for kind in kinds if kind not in EVENT_KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(
            f"unknown event kind {', '.join(unknown) or repr(value)}; "
            f"choose from {', '.join(EVENT_KINDS)}"
        )
    return kinds


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``trace`` subcommand."""
    parser = subparsers.add_parser(
        "trace",
        help="print an actor trace as a timeline, summary or Mermaid diagram",
        description=(
            "Read an actor trace (JSON Lines written with PERSONA_MIND_TRACE=<file> or "
            "--trace <file>) and print it. Filters of different kinds combine with AND; "
            "repeating one option means OR. A malformed or missing file exits with status 2."
        ),
    )
    parser.add_argument("file", metavar="FILE", help="the trace file, or - for standard input")
    parser.add_argument(
        "--actor",
        action="append",
        default=[],
        metavar="A",
        help="keep events whose actor or sender is A (repeatable)",
    )
    parser.add_argument(
        "--corr",
        action="append",
        default=[],
        metavar="C",
        help="keep events with correlation id C (repeatable)",
    )
    parser.add_argument(
        "--gen",
        action="append",
        default=[],
        type=int,
        metavar="N",
        help="keep events sent under lifecycle generation N (repeatable)",
    )
    parser.add_argument(
        "--event",
        action="extend",
        default=[],
        type=_event_kinds,
        metavar="KIND",
        help=f"keep events of KIND, comma-separated or repeated ({', '.join(EVENT_KINDS)})",
    )
    view = parser.add_mutually_exclusive_group()
    view.add_argument(
        "--mermaid", action="store_true", help="print a Mermaid sequenceDiagram instead"
    )
    view.add_argument(
        "--summary",
        action="store_true",
        help="print counts per actor and event, drops by reason, restarts and anomalies",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the selected events as JSON Lines (with --summary: one JSON object)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The subcommand's entry point (``set_defaults(func=run)``)."""
    return run_trace(args, stdout=sys.stdout, stderr=sys.stderr)


def _render(args: argparse.Namespace, events: list[TraceEvent], origin: float) -> str:
    if args.summary:
        summary = summarize(events)
        if args.json:
            return msgspec.json.encode(summary).decode() + "\n"
        return render_summary(summary)
    if args.json:
        return "".join(msgspec.json.encode(event).decode() + "\n" for event in events)
    if args.mermaid:
        return render_mermaid(events)
    return render_timeline(events, origin=origin)


def run_trace(args: argparse.Namespace, *, stdout: TextIO, stderr: TextIO) -> int:
    """Read, filter and render; returns the exit status (0 ok, 2 bad input)."""
    if args.json and args.mermaid:
        stderr.write(f"{_PROG}: error: --json and --mermaid cannot be combined; choose one\n")
        return EXIT_BAD_INPUT
    try:
        everything = read_trace(args.file)
    except TraceError as exc:
        stderr.write(f"{_PROG}: error: {exc}\n")
        return EXIT_BAD_INPUT
    selection = TraceFilter(
        actors=frozenset(args.actor),
        corrs=frozenset(args.corr),
        gens=frozenset(args.gen),
        events=frozenset(args.event),
    )
    events = list(selection.apply(everything))
    if not everything:
        stderr.write(f"{_PROG}: {args.file} holds no events\n")
    elif not events:
        stderr.write(
            f"{_PROG}: no events match the filters ({len(everything)} events in {args.file})\n"
        )
    text = _render(args, events, everything[0].t if everything else 0.0)
    try:
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:
        # The reader (e.g. `| head`) left; silence the interpreter's flush at exit too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
    return EXIT_OK
