"""compiled/rules."""
