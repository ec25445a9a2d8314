"""The features the Companion hosts: Persona, Mind and the child runs.

Each adapts host-neutral domain rules (``persona_mind.persona``, ``persona_mind.mind``;
for the children feature Persona's consult and round-table rules, run on the ChildRunner
and the RoundtableDesk actors) to :class:`persona_mind.feature.Feature`. Each is built by
the Companion from a :class:`Ports` value and the Companion's peers view; none imports the
runtime.
"""

from __future__ import annotations

from persona_mind.features._children import ChildrenFeature as ChildrenFeature
from persona_mind.features._mind import MindFeature as MindFeature
from persona_mind.features._persona import PersonaFeature as PersonaFeature
from persona_mind.features._ports import FeatureFactory as FeatureFactory
from persona_mind.features._ports import Ports as Ports

__all__ = (
    "ChildrenFeature",
    "FeatureFactory",
    "MindFeature",
    "PersonaFeature",
    "Ports",
    "product_features",
)


def product_features(*, children: bool) -> tuple[FeatureFactory, ...]:
    """The product's features, in the Companion's order: Persona, Mind, and consults and
    round-tables when children can run (a child backend is given)."""
    base: tuple[FeatureFactory, ...] = (PersonaFeature, MindFeature)
    return (*base, ChildrenFeature) if children else base
