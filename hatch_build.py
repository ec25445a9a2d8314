"""Hatch build hook: ship ``pi-extension/`` inside the wheel as ``persona_mind/pi_extension``.

A plain ``force-include`` also applies to editable installs, where it shadows the source
tree; this hook adds the directory to standard (wheel) builds only. Editable installs find
the extension next to the source tree instead (``persona-mind pi-extension path``).
"""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc]  # hatchling lives in the build env only
    """Adds the Pi extension to standard wheels."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "standard":  # not "editable"
            build_data["force_include"]["pi-extension"] = "persona_mind/pi_extension"
