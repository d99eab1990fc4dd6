"""A test's choice of how a scan reads its texts: with its RE2 set or with substring tests
(:class:`skillsift.bytesets.SetGate`; the answers are the same, which the differential tests check)."""

from __future__ import annotations


def read_with_sets(monkeypatch, gate, sets: bool) -> None:
    """For the rest of the test, ``gate`` sends every text to its RE2 set (``sets``) or to the substring
    tests, whatever the process counted before."""
    monkeypatch.setattr(gate, "always", sets)
    monkeypatch.setattr(gate, "after", -1 if sets else 1 << 62)
