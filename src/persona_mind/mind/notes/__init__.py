"""Session notes: save/forget events kept as host custom entries, and the session file reader."""
