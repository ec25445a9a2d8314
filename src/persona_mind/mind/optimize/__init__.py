"""Consolidation: inspect, stage, plans, explicit reviews, the Optimizer port, the automatic
review schedule and the activity payload.
"""
