"""The one rule of when a scan reads its texts with an RE2 set (skillsift.bytesets.SetGate): substring
tests for the first 64 KiB a process counts, the set after that, or from the first text on once opened;
one gate per scan, each counting its own texts."""

from __future__ import annotations

from skillsift.bytesets import SetGate, byte_set
from skillsift.checks import secrets as secrets_check
from skillsift.checks import security
from skillsift.secrets import scan
from skillsift.validators import parsed


def test_the_set_reads_the_texts_past_the_threshold():
    gate = SetGate(after=10)
    assert not gate.on
    assert [gate.count(4), gate.count(6), gate.count(1), gate.count(0)] == [False, False, True, True]
    assert gate.on and gate.scanned == 11


def test_an_opened_gate_sends_every_text_to_the_set():
    gate = SetGate()
    assert gate.after == 1 << 16 and not gate.count(100)
    gate.open()
    assert gate.on and gate.count(1) and gate.scanned == 101


def test_each_scan_has_its_own_gate(monkeypatch, tmp_path):
    """The marks, the security words and the secret needles count apart (a hook's texts reach none of
    the thresholds sooner for the others'); validate's secrets check opens the needles' gate alone."""
    gates = [parsed.MARK_SETS, security.WORD_SETS, scan.NEEDLE_SETS]
    assert len({id(gate) for gate in gates}) == 3 and secrets_check.NEEDLE_SETS is scan.NEEDLE_SETS
    for gate in gates:
        monkeypatch.setattr(gate, "always", False)
        monkeypatch.setattr(gate, "scanned", 0)
    (tmp_path / "skillsift.toml").write_text("", encoding="utf-8")
    from skillsift.validators.workspace import Workspace

    secrets_check.run(Workspace(str(tmp_path)))
    assert [gate.always for gate in gates] == [False, False, True]


def test_a_byte_set_reports_the_entries_found_in_the_bytes():
    found = byte_set([b"ab", b"c[de]", "\u00e9".encode()])
    assert sorted(found.Match(b"xxcdab")) == [0, 1]
    assert found.Match("caf\u00e9".encode()) == [2] and not found.Match(b"caf\xc3")
