"""Consult and round-table rules (pure): prompts, checks, selection schema, synthesis check,
progress, a persona's declared model and skills, the team as children see it.
"""
