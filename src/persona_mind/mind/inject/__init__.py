"""Injection: which memories go into the system prompt (plan, candidate order, byte budget,
block lines, shown ids).
"""
