"""The secret scanner reads a file and its values apart (scan_many: one reading of the file, one of its
values together, no joined copy) and keeps each reading's answer by the set entries it found: its
findings are those of the old reading (tests/support/secret_readings_reference.py: the file and its
values joined and read at once, the values again when the file called for a rule).  Compared on seeded
random SKILL.md files made of every needle and prefilter, their near misses and planted secrets (in the
body, in plain and folded YAML values, in lists and keys), on lists of texts for scan_many (empty texts,
NULs, a configured pattern) and on every file of the corpus of real skills."""

from __future__ import annotations

import random

import pytest

from skillsift.catalog.embedtext import embedded_text
from skillsift.catalog.load import parse_skill
from skillsift.checks import secrets as check
from skillsift.secrets import scan
from skillsift.validators.workspace import Workspace
from tests.conftest import corpora
from tests.support import secret_readings_reference as reference
from tests.support.secret_samples import GENERATORS, HEX, sample
from tests.support.set_gates import read_with_sets

FIELDS = ("name", "description", "triggers", "keywords")
EXTRA = (("custom-token", r"zz[0-9]{4}[a-f]{4}"),)


def _pieces(rng: random.Random) -> list[str]:
    """Every needle (a folded one in several cases and foldings), a planted secret of each kind and near
    misses of it (cut short, a character changed, its needle alone), runs that the second set counts,
    separators and characters of two to four bytes."""
    out = []
    for rule in scan.PATTERNS:
        for needle in rule.needles:
            out.append(needle)
            if rule.folded:
                out += [needle.upper(), needle.capitalize(), needle.replace("s", "\u017f"),
                        needle.replace("k", "\u212a"), needle.replace("ss", "\u00df")]
    for kind in sorted(GENERATORS):
        line, value = sample(kind, rng)
        cut = rng.randrange(1, len(value))
        out += [line, value, value[:-1], value[1:], value[:cut] + rng.choice(" -.\u00e9") + value[cut + 1:],
                line.upper(), line.lower()]
    runs = "".join(rng.choice("ABCdef0189+/") for _ in range(40))
    out += [runs, runs[:39], "".join(rng.choice(HEX) for _ in range(32)) + "-us7", ".abcdef." + "x" * 27,
            "123456:" + "A" * 35, "scheme://user:Zq8vN2mKp4Lx7Rt1@host", "Basic dXNlcjpwYXNzd29yZA=="]
    out += [" ", " ", "\n", "\n", ": ", " = ", "\"", "'", "\t", "://", "@", ".", "_", "-", "\u00e9", "\u20ac",
            "\U0001f600", "\u0130", "\u212a", "\u017f", "\ufb01", "words and more words", "zz1234abcd"]
    return out


def _text(rng: random.Random, pieces: list[str], n: int) -> str:
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, n)))


def _value(rng: random.Random, pieces: list[str]) -> str:
    """A YAML double-quoted string of a few pieces."""
    value = _text(rng, pieces, 4).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + value + '"'


def _skill_text(rng: random.Random, pieces: list[str]) -> str:
    front = [f"name: skill-{rng.randrange(100)}", "description: " + _value(rng, pieces)]
    if rng.random() < 0.5:
        front.append("triggers:\n  - " + _value(rng, pieces) + "\n  - deploy")
    if rng.random() < 0.4:
        front.append("metadata:\n  " + _value(rng, pieces) + ": " + _value(rng, pieces))
    if rng.random() < 0.3:
        front.append("keywords: [deploy, " + _value(rng, pieces) + "]")
    return "---\n" + "\n".join(front) + "\n---\n" + _text(rng, pieces, 30) + "\n"


def test_random_skills_made_of_needles_and_near_misses(monkeypatch):
    rng = random.Random(4546)
    pieces = _pieces(rng)
    texts = [_skill_text(rng, pieces) for _ in range(400)]
    parsed = []
    for number, text in enumerate(texts):
        skill, _problems = parse_skill(text, f"s{number}", path=f"s{number}/SKILL.md")
        parsed.append((text, skill, embedded_text(skill, FIELDS, True, 2000) if skill else ""))
    want = [reference.skill_findings(text, skill=skill, embedded=embedded) for text, skill, embedded in parsed]
    assert sum(1 for found in want if found) > 200
    assert sum(1 for _text, skill, _embedded in parsed if skill is not None) > 320
    for sets in (True, False):
        read_with_sets(monkeypatch, scan.NEEDLE_SETS, sets)
        for (text, skill, embedded), found in zip(parsed, want, strict=True):
            assert check.skill_findings(text, skill=skill, embedded=embedded) == found, text
            assert check.skill_findings(text, EXTRA, skill=skill, embedded=embedded) \
                == reference.skill_findings(text, EXTRA, skill=skill, embedded=embedded), text


def test_lists_of_texts_read_together(monkeypatch):
    """scan_many over lists of random texts (empty ones, NULs inside), with and without a configured
    pattern: each text's findings are the reference's."""
    rng = random.Random(4547)
    pieces = _pieces(rng) + ["\0", ""]
    groups = [[_text(rng, pieces, rng.choice((3, 12, 40))) for _ in range(rng.randint(1, 6))] for _ in range(600)]
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    found = 0
    for texts in groups:
        want = reference.scan_many(texts)
        assert scan.scan_many(texts) == want, texts
        assert scan.scan_many(texts, EXTRA) == reference.scan_many(texts, EXTRA), texts
        found += any(want)
    assert found > 300


@pytest.mark.parametrize("kind", reference.SEARCHED)
def test_rules_tried_where_a_match_begins(kind, monkeypatch):
    """A rule tried only where its matches begin (the scanner's _STARTS) finds what Python's search finds,
    match for match: texts of its needles in every case, word characters before them, runs of the
    characters a value holds, separators and characters of two to four bytes."""
    rng = random.Random(kind)
    pattern = next(c for c in scan._builtin() if c.kind == kind)
    pieces = ["ntn_", "secret_", "Secret_", "basic", "BASIC", "Basic", "ba\u017fic", "basi", "x", "_", "9", " ", "\t",
              "\n", "\u00e9", "\U0001f600", "\u212a", "=", ":", "dXNlcjpwYXNzd29yZA==", "Zq8vN2mKp4Lx7Rt1" * 3,
              "aB3dE5gH7jK9mN1pQ3rS5tU7"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    texts += [sample(kind, rng)[0] for _ in range(50)]
    value = "aB3dE5gH7jK9mN1pQ3rS5tU7wX9yZ1aB3dE5gH7jK9mN"
    texts += [before + start + value[:length] + after for before in ("", "x", " ", "\u00e9", "\u212a")
              for start in ("secret_", "ntn_", "Basic ", "bAſic\t") for length in (40, 43, 44)
              for after in ("", " ", "x")]
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    found = 0
    for text in texts:
        want = [(m.span(), m.groups()) for m in reference.finditer(pattern, text)]
        assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == want, text
        found += bool(want)
    assert found > 80


def test_every_file_of_the_corpus(monkeypatch, tmp_path):
    """validate's reading of the corpus of real skills: each SKILL.md with its parsed values and embedded
    text, each other file of a skill folder alone."""
    root = corpora()
    config = tmp_path / "corpus.toml"
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    ws = Workspace(str(root), config_file=str(config))
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    compared = called = 0
    for rel in check.skill_files(ws, ws.skill_paths):
        text = ws.read_text(rel)
        if text is None or "\0" in text:
            continue
        skill, embedded = check.parsed_parts(ws, rel, text, parse=True)
        want = reference.skill_findings(text, skill=skill, embedded=embedded)
        assert check.skill_findings(text, skill=skill, embedded=embedded) == want, rel
        compared += 1
        called += bool(reference._candidates(*reference._needles_held(text)))
    assert compared > 2000 and called > 300  # (the corpus holds no secret, but many files call for a rule)
