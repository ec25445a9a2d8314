"""The lock wait's libc comes from the process's own symbols: ``ctypes.util.find_library``
runs ``ldconfig -p`` in a child process, which every command that locks a store paid."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_libc_loads_without_find_library() -> None:
    code = (
        "import ctypes.util\n"
        "def refuse(name):\n"
        "    raise AssertionError('find_library ran ' + name)\n"
        "ctypes.util.find_library = refuse\n"
        "from persona_mind.storage import _lockwait\n"
        "assert _lockwait._LIBC is not None\n"
        "assert _lockwait._LIBC.inotify_init1 is not None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
