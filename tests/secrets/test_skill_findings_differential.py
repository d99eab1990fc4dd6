"""AR001's findings in a SKILL.md (skill_findings: its raw text and its parsed values, read by the needle
sets together, the values apart when the file calls for a rule) are those of the reference
(tests/support/secrets_reference.py: each text scanned on its own, each rule's needles tested one by
one): seeded random SKILL.md files holding planted secrets in the body, in plain and escaped YAML
values (``\\x41``, ``\\u0041``, ``\\"``, a ``\\``-continued line), in lists and tables, in keys and on
allowed lines; the example skills; a quarter of the corpus of real skills."""

from __future__ import annotations

import random
from pathlib import Path

from skillsift.catalog.embedtext import embedded_text
from skillsift.catalog.load import parse_skill
from skillsift.checks import secrets as check
from skillsift.secrets import scan
from tests.conftest import corpora
from tests.support import secrets_reference
from tests.support.secret_samples import GENERATORS, sample
from tests.support.set_gates import read_with_sets

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("name", "description", "triggers", "keywords")


def _escaped(value: str, rng: random.Random) -> str:
    """``value`` as a double-quoted YAML string, some characters escaped, maybe broken over two lines."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isascii() and rng.random() < 0.2:
            out.append(rng.choice((f"\\x{ord(ch):02x}", f"\\u{ord(ch):04x}")))
        else:
            out.append(ch)
    if len(out) > 4 and rng.random() < 0.3:
        cut = rng.randrange(1, len(out))
        out[cut:cut] = ["\\\n    "]  # an escaped line break: nothing is inserted
    return '"' + "".join(out) + '"'


def _skill_text(rng: random.Random) -> str:
    kinds = sorted(GENERATORS)
    line, value = sample(rng.choice(kinds), rng)
    other_line, other_value = sample(rng.choice(kinds), rng)
    description = rng.choice((f"Deploys {value} things", "Deploys the service", other_line, f"a\n  {value}"))
    front = [f"name: skill-{rng.randrange(100)}"]
    form = rng.randrange(5)
    if form == 0:
        front.append("description: " + _escaped(description, rng))
    elif form == 1:
        front.append("description: >\n  " + description.replace("\n", "\n  "))
    elif form == 2:
        front.append(f"description: '{description.replace(chr(39), chr(39) * 2)}'")
    elif form == 3:
        front.append("description: |\n  " + description.replace("\n", "\n  "))
    else:
        front.append("description: " + _escaped(rng.choice((line, value, "plain words")), rng))
    if rng.random() < 0.5:
        front.append("triggers:\n  - " + _escaped(rng.choice((value, other_value, "run it")), rng) + "\n  - deploy")
    if rng.random() < 0.4:
        front.append("metadata:\n  " + _escaped(other_value, rng) + ": " + _escaped(rng.choice((value, "x")), rng))
    if rng.random() < 0.3:
        front.append("keywords: [deploy, " + _escaped(other_value, rng) + "]")
    if rng.random() < 0.2:
        front.append(f"api_key: {value}  # skillsift: allow-secret")
    body = rng.choice(("Body text.", line, f"Use {other_value} here.", "token: abc\n" + other_line, ""))
    return "---\n" + "\n".join(front) + "\n---\n" + body + "\n"


def _compare(texts, monkeypatch) -> int:
    """Assert both ways agree on each text (the sets on for the new one, off for the reference); the
    number of texts with findings."""
    parsed = []
    for number, text in enumerate(texts):
        skill, _problems = parse_skill(text, f"s{number}", path=f"s{number}/SKILL.md")
        parsed.append((text, skill, embedded_text(skill, FIELDS, True, 2000) if skill else ""))
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, False)
    want = [secrets_reference.skill_findings(text, skill=skill, embedded=embedded)
            for text, skill, embedded in parsed]
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    got = [check.skill_findings(text, skill=skill, embedded=embedded) for text, skill, embedded in parsed]
    for (text, _skill, _embedded), mine, theirs in zip(parsed, got, want, strict=True):
        assert mine == theirs, text
    return sum(1 for found in want if found)


def test_random_skills_with_planted_and_escaped_secrets(monkeypatch):
    rng = random.Random(4545)
    texts = [_skill_text(rng) for _ in range(600)]
    assert _compare(texts, monkeypatch) > 300


def test_the_examples_and_a_quarter_of_the_corpus(monkeypatch):
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").rglob("SKILL.md"))]
    for path in sorted(corpora().rglob("SKILL.md"))[1::4]:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" not in text:
            texts.append(text)
    assert len(texts) > 500
    _compare(texts, monkeypatch)
