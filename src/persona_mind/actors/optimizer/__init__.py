"""The Optimizer role: consolidation plans, explicit review batches, file-backed apply.

``_actor`` is the actor and its client; ``_review`` runs one explicit review batch (one
worker child per target, strict validation); ``_consolidator`` is consolidation against
real files (strict reads, receipt-guarded apply, undo, history).
"""

from __future__ import annotations

from persona_mind.actors.optimizer._actor import OptimizerActor, OptimizerClient, spawn_optimizer

__all__ = ("OptimizerActor", "OptimizerClient", "spawn_optimizer")
