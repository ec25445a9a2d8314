"""The features the Companion hosts: Persona, Mind and the child runs.

Each adapts a host-neutral domain service (``persona_mind.persona``, ``persona_mind.mind``,
``persona_mind.runners.child``) to :class:`persona_mind.feature.Feature`.
"""

from __future__ import annotations

from persona_mind.features._children import ChildrenFeature as ChildrenFeature
from persona_mind.features._mind import MindFeature as MindFeature
from persona_mind.features._persona import PersonaFeature as PersonaFeature

__all__ = ("ChildrenFeature", "MindFeature", "PersonaFeature")
