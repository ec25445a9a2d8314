"""The typed errors of the trace reader, leaves under :class:`persona_mind.errors.TraceError`.

Both carry the path so the CLI can print one line that says which file, where and what to
do; neither is ever swallowed into "an empty trace".
"""

from __future__ import annotations

from persona_mind.errors import TraceError

__all__ = ("TraceFileError", "TraceLineError")


class TraceFileError(TraceError):
    """The trace file could not be opened or read (missing, a directory, no permission).

    Raised before any event is yielded, or mid-file if the read itself fails.
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(
            f"cannot read trace file {path!r}: {problem}; check the path (the runtime writes "
            "a trace only when PERSONA_MIND_TRACE=<file> or --trace <file> is given)"
        )


class TraceLineError(TraceError):
    """One line of a trace file is not a valid :class:`~persona_mind.trace.TraceEvent`.

    Raised for malformed JSON, a non-object line, a wrong field type, an unknown event
    kind, a missing required field or an invalid schema version. ``line`` is 1-based.
    """

    def __init__(self, path: str, line: int, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        super().__init__(
            f"{path}:{line}: not a valid trace event: {problem}; each line must be one JSON "
            "object of the trace schema (docs/trace.md) — fix or delete that line "
            "(a truncated last line means the writer was killed mid-write)"
        )
