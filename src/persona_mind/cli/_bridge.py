"""``persona-mind sidecar`` and ``persona-mind pi-extension path|install``: the Pi bridge's CLI.

``sidecar`` is what the Pi extension may start instead of ``python -m
persona_mind.bridge.sidecar`` (same thing); ``pi-extension path`` prints the directory to
give ``pi install <path>`` or ``pi -e <path>``; ``pi-extension install`` runs ``pi install``
with it (``pi`` from PATH, or ``--pi``).

Both record the interpreter that runs this command — the one that has persona-mind — in
``<extension dir>/python.json``. The extension starts the sidecar with it, so a virtualenv
or pipx install needs no ``PERSONA_MIND_PYTHON`` (which still wins when set).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from persona_mind.cli import _schema as out
from persona_mind.cli._output import emit, fail

__all__ = ("PYTHON_RECORD", "add_parser", "extension_dir", "record_python")

PYTHON_RECORD = "python.json"  # read by pi-extension/persona-mind/sidecar.ts


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


def record_python(ext: Path) -> Path:
    """Write ``python.json`` (this interpreter) next to the extension, atomically.

    ``sys.executable`` is kept as given (not resolved): a venv's ``bin/python`` is a symlink
    whose target lacks the venv's site-packages. ``extensionDir`` lets the extension ignore a
    record that travelled (a wheel built from a checkout where one was written).
    """
    record = ext / PYTHON_RECORD
    body = json.dumps(
        {
            "python": sys.executable,
            "extensionDir": str(ext.resolve()),
            "writtenBy": "persona-mind pi-extension",
        },
        indent=2,
    )
    tmp = record.with_name(f".{PYTHON_RECORD}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(body + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, record)
    finally:
        tmp.unlink(missing_ok=True)
    return record


def _run_sidecar(args: argparse.Namespace) -> int:
    from persona_mind.bridge.sidecar import main  # noqa: PLC0415 - keep CLI start fast

    return main()


def _located(args: argparse.Namespace) -> tuple[Path, Path | None] | int:
    found = extension_dir()
    if found is None:
        return fail(
            args,
            "pi-extension/ is not part of this installation; "
            "install persona-mind from a source checkout or a wheel that bundles it",
            1,
        )
    try:
        return found, record_python(found)
    except OSError as exc:
        print(
            f"persona-mind: could not record this Python in {found / PYTHON_RECORD} ({exc}); "
            f"start Pi with PERSONA_MIND_PYTHON={sys.executable}",
            file=sys.stderr,
        )
        return found, None


def _extension_path(args: argparse.Namespace) -> int:
    located = _located(args)
    if isinstance(located, int):
        return located
    emit(args, out.ExtensionPath(path=str(located[0])), str(located[0]))
    return 0


def _pi_command(given: str | None) -> list[str] | None:
    if given:
        return shlex.split(given)
    found = shutil.which("pi")
    return [found] if found else None


def _extension_install(args: argparse.Namespace) -> int:
    located = _located(args)
    if isinstance(located, int):
        return located
    path, record = located
    pi = _pi_command(args.pi)
    if pi is None:
        return fail(
            args,
            "`pi` is not on PATH; install Pi (Node >= 22.19) or run "
            '`eval "$(./scripts/install-pi.sh)"` from a checkout, then run this again '
            f'(or run `pi install "{path}"` yourself)',
            1,
        )
    print(f"persona-mind: running {shlex.join([*pi, 'install', str(path)])}", file=sys.stderr)
    # pi's own report goes to our stderr: stdout is the answer (text or --json) alone.
    done = subprocess.run(
        [*pi, "install", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    sys.stderr.write(done.stdout)
    if done.returncode != 0:
        return fail(args, f"`pi install` failed with status {done.returncode} (see above)", 1)
    text = (
        f"Installed the persona-mind extension from {path}\n"
        f"The sidecar will run {sys.executable}; start `pi` and look for "
        "'persona-mind ready' in the footer."
    )
    emit(
        args,
        out.ExtensionInstall(path=str(path), python=sys.executable, config=str(record or "")),
        text,
    )
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    side = subparsers.add_parser(
        "sidecar",
        help="run the Pi bridge sidecar (frames on stdin/stdout; started by the Pi extension)",
    )
    side.set_defaults(func=_run_sidecar)
    ext = subparsers.add_parser("pi-extension", help="install the Pi extension, or find it")
    ext_sub = ext.add_subparsers(dest="pi_extension_action", required=True, metavar="ACTION")
    path = ext_sub.add_parser(
        "path",
        help="print the pi-extension/ directory (for pi install/-e); records this Python",
    )
    path.set_defaults(func=_extension_path)
    inst = ext_sub.add_parser(
        "install",
        help="record this Python for the extension and run `pi install` with its directory",
    )
    inst.add_argument("--pi", help="the pi command to use (default: `pi` on PATH)")
    inst.set_defaults(func=_extension_install)
