"""A session's team: binding and retained snapshots, the team view children consume, the
per-session Persona state.
"""
