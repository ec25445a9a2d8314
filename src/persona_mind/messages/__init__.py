"""persona-mind."""
