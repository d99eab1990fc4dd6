"""Embedding providers: one interface, several sources of vectors."""
