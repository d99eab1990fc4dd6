"""A parsed skill's digest is computed when it is first read, and reads as it did when parse_skill hashed
at once: ``sha256:`` of the UTF-8 bytes (of the text given, or of the bytes it was decoded from)."""

from __future__ import annotations

import copy
import hashlib
import pickle

from skillsift.catalog import skill as skill_module
from skillsift.catalog.load import parse_skill
from skillsift.records import replace

TEXTS = ("---\nname: x\n---\nbody\n", "\ufeff---\r\nname: \u00e9\r\n---\r\n", "", "lone \udc80 surrogate")


def _expected(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def test_the_digest_is_computed_on_first_read_only(monkeypatch):
    computed = []
    real = skill_module.Digest.value
    monkeypatch.setattr(skill_module.Digest, "value", lambda self: computed.append(1) or real(self))
    skill, _problems = parse_skill(TEXTS[0], "d")
    assert computed == []
    assert skill.digest == _expected(TEXTS[0]) and skill.digest == _expected(TEXTS[0])
    assert computed == [1]
    assert type(skill.__dict__["digest"]) is str


def test_the_digest_reads_as_before_from_the_text_or_the_bytes():
    for text in TEXTS:
        skill, _problems = parse_skill(text, "d")
        assert skill.digest == _expected(text)
        if text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") == text:
            from_bytes, _problems = parse_skill(text, "d", data=text.encode("utf-8"))
            assert from_bytes.digest == skill.digest and from_bytes == skill


def test_copies_pickles_and_replacements_carry_the_digest():
    skill, _problems = parse_skill(TEXTS[1], "d")
    for other in (copy.copy(skill), copy.deepcopy(skill), pickle.loads(pickle.dumps(skill)),
                  replace(skill, plugin="p")):
        assert other.digest == _expected(TEXTS[1])
        assert type(other.__dict__["digest"]) is str
