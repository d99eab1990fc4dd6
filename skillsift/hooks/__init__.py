"""pre-commit entry points (thin wrappers over the validators)."""
