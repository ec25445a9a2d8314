"""``persona-mind sidecar`` and ``persona-mind pi-extension path``: the Pi bridge's CLI.

``sidecar`` is what the Pi extension may start instead of ``python -m
persona_mind.runners.sidecar`` (same thing); ``pi-extension path`` prints the directory to
give ``pi install <path>`` or ``pi -e <path>``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ("add_parser", "extension_dir")


def extension_dir() -> Path | None:
    """Where ``pi-extension/`` is: packaged inside ``persona_mind`` (wheel), else the checkout.

    Editable installs and source checkouts find it next to ``src/``; a wheel is expected to
    carry it as ``persona_mind/pi_extension/`` (see docs/bridge.md, "Packaging").
    """
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "pi_extension", package.parents[1] / "pi-extension"):
        if (candidate / "package.json").is_file():
            return candidate
    return None


def _run_sidecar(args: argparse.Namespace) -> int:
    from persona_mind.runners.sidecar import main  # noqa: PLC0415 - keep CLI start fast

    return main()


def _extension_path(args: argparse.Namespace) -> int:
    found = extension_dir()
    if found is None:
        print(
            "persona-mind: pi-extension/ is not part of this installation; "
            "install persona-mind from a source checkout or a wheel that bundles it",
            file=sys.stderr,
        )
        return 1
    print(found)
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    side = subparsers.add_parser(
        "sidecar",
        help="run the Pi bridge sidecar (frames on stdin/stdout; started by the Pi extension)",
    )
    side.set_defaults(func=_run_sidecar)
    ext = subparsers.add_parser("pi-extension", help="where the Pi extension is")
    ext_sub = ext.add_subparsers(dest="pi_extension_action", required=True)
    path = ext_sub.add_parser("path", help="print the pi-extension/ directory (for pi install/-e)")
    path.set_defaults(func=_extension_path)
