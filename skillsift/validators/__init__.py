"""Validators: one module per check, each a pure function returning diagnostics."""
