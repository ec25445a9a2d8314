"""Memory in and out: the bounded legacy import and JSON Lines export/import."""
