"""The features the Companion hosts: Persona, Mind and the child runs.

Each adapts host-neutral domain rules (``persona_mind.persona``, ``persona_mind.mind``;
for the children feature Persona's consult and round-table rules, run on the ChildRunner
and the RoundtableDesk actors) to :class:`persona_mind.feature.Feature`.
"""

from __future__ import annotations

from persona_mind.features._children import ChildrenFeature as ChildrenFeature
from persona_mind.features._mind import MindFeature as MindFeature
from persona_mind.features._persona import PersonaFeature as PersonaFeature

__all__ = ("ChildrenFeature", "MindFeature", "PersonaFeature")
