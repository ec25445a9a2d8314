"""What Mind trusts: the unsafe-content scanner (secrets, injected instructions, deception,
hidden characters), the normal forms it matches on, and the memory fence.
"""
