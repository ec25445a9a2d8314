"""Argument types for CLI flags that name things on disk: checked before anything runs.

A CLI flag is user input like any other (issue 15, item 10): ``--cwd /nonexistent`` must not
become a project whose memory files get created, and ``--persona ""`` must not become a
persona scope with an empty name. argparse turns the ``ArgumentTypeError`` into a usage
error (exit 2) that names the flag.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

__all__ = ("existing_dir", "persona_ref")

_CONTROL = re.compile("[\x00-\x1f\x7f]")


def existing_dir(text: str) -> Path:
    """A directory that exists (``--cwd``): memory is scoped to a real place."""
    path = Path(text).expanduser()
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give a directory (default: .)")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text!r} does not exist; give an existing directory")
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a directory")
    return path


def persona_ref(text: str) -> str:
    """A persona name such as ``official/pack/name``: non-empty segments, printable."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; name a persona, e.g. official/pack/name")
    if text != text.strip() or _CONTROL.search(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} has surrounding spaces or control characters; name a persona as `pack/name`"
        )
    if any(not part for part in text.split("/")):
        raise argparse.ArgumentTypeError(f"{text!r} has an empty path segment; use pack/name")
    return text
