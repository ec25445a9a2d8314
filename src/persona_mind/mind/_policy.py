"""The write policy: which model writes become memory at once and which wait for the user.

A Mind preference with the same lifetimes as capture and nudges (session snapshot of
``settings.json`` ``mind.writePolicy``, ``/mind policy`` for the running session, CLI and
MCP flags):

* ``auto`` — every write the scanner does not refuse is stored;
* ``confirm-untrusted`` (default) — a write that reproduces untrusted text
  (:class:`~persona_mind.mind.trust._taint.TaintLedger`) or that the detector calls
  suspicious (:func:`~persona_mind.mind.trust._verdict.verdict`) becomes a pending
  proposal the user approves or drops;
* ``confirm-all`` — every model write is a pending proposal;
* ``recall-only`` — the model may read memory but its writes are declined.

A refusing verdict is never a proposal: the scanner's refusal stands under every policy.
:func:`decide` is pure so the policy is testable without a session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from persona_mind.messages.memory import Origin
from persona_mind.mind.trust._taint import Taint
from persona_mind.mind.trust._verdict import Verdict

__all__ = ("DEFAULT_POLICY", "Decision", "WritePolicy", "decide", "parse_policy")

WritePolicy = Literal["auto", "confirm-untrusted", "confirm-all", "recall-only"]
DEFAULT_POLICY: WritePolicy = "confirm-untrusted"


def parse_policy(value: object) -> WritePolicy | None:
    """``value`` as a policy, or ``None`` when it is not one of the four names."""
    if isinstance(value, str) and value in get_args(WritePolicy):
        return value  # type: ignore[return-value]
    return None


@dataclass(frozen=True, slots=True)
class Decision:
    """What happens to one model write."""

    action: Literal["store", "pending", "decline"]
    reason: str = ""
    origin: Origin = "model"
    """The origin an accepted proposal is stored with (the taint source, else ``model``)."""


def decide(policy: WritePolicy, taint: Taint | None, found: Verdict) -> Decision:
    """The policy's answer for a write with this taint and this (non-refusing) verdict."""
    origin: Origin = taint.source if taint is not None else "model"
    if policy == "recall-only":
        return Decision("decline", "the write policy is recall-only: memory is read-only")
    if policy == "confirm-all":
        return Decision("pending", "the write policy confirm-all asks the user", origin)
    if policy == "auto":
        return Decision("store", origin=origin)
    if taint is not None:
        return Decision("pending", taint.reason(), origin)
    if found.suspicious:
        return Decision(
            "pending", "the detector finds it instruction-like (" + ", ".join(found.reasons) + ")"
        )
    return Decision("store")
