"""The backlog: pure item rules, the tool's operations on a scope's store, and due reminders."""
