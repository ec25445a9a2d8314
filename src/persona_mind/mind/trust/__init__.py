"""What Mind trusts: the unsafe-content scanner (secrets, injected instructions, deception,
hidden characters), its learned layer, the normal forms it matches on, and the memory fence.

The public face for callers outside the trust domain is the verdict API: :func:`verdict`
(refuse / suspicious / clean with stable reasons, cached per text), :func:`needs_offload`,
:func:`verdict_async` (bounded steps on the event loop) and :func:`verdict_steps` for long
texts, and :func:`warm` to load the tables off the loop.
"""

from persona_mind.mind.trust._verdict import OFFLOAD_CHARS as OFFLOAD_CHARS
from persona_mind.mind.trust._verdict import Level as Level
from persona_mind.mind.trust._verdict import Verdict as Verdict
from persona_mind.mind.trust._verdict import needs_offload as needs_offload
from persona_mind.mind.trust._verdict import verdict as verdict
from persona_mind.mind.trust._verdict import verdict_async as verdict_async
from persona_mind.mind.trust._verdict import verdict_steps as verdict_steps
from persona_mind.mind.trust._verdict import warm as warm

__all__ = (
    "OFFLOAD_CHARS",
    "Level",
    "Verdict",
    "needs_offload",
    "verdict",
    "verdict_async",
    "verdict_steps",
    "warm",
)
