"""Chat-first management: the operation table, the persona_pack tool, prepared changes and
single-use chat plans.
"""
