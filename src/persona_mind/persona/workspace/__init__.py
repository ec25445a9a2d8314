"""The workspace side: foundation files and declared paths, onboarding, and migration of
older project setups.
"""
