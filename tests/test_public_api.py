"""Every facade's ``__all__`` names exist, are public, and are re-exported (no drift)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

FACADES = (
    "persona_mind",
    "persona_mind.actors",
    "persona_mind.testing",
    "persona_mind.trace",
    "persona_mind.errors",
    "persona_mind.child_errors",
)


@pytest.mark.parametrize("name", FACADES)
def test_all_names_resolve(name: str) -> None:
    """Each name in __all__ is importable from the facade and not private."""
    module = importlib.import_module(name)
    exported = module.__all__
    assert isinstance(exported, tuple)
    assert len(set(exported)) == len(exported), "duplicate names in __all__"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.{attr} is in __all__ but missing"
        assert not attr.startswith("_") or attr == "__version__"


def test_import_of_the_facade_stays_light() -> None:
    """Importing persona_mind does not drag in the Pi bridge, the CLI or child runner modules."""
    code = (
        "import sys, persona_mind; "
        "faces = ('persona_mind.runners', 'persona_mind.cli', 'persona_mind.bridge'); "
        "print(','.join(m for m in sys.modules if m.startswith(faces)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""
