"""Capture: deterministic direct-user cues, and which relayed reports may suggest a backlog item."""
