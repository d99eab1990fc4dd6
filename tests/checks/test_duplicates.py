"""SK002 duplicate names and SK009 near-duplicate descriptions."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from skillsift.catalog.skill import Skill
from skillsift.checks.duplicates import (
    duplicate_names,
    lexical_partners,
    near_duplicates,
    one_word_apart,
    term_sets,
    vector_pairs,
)
from tests.conftest import corpora, write_skill
from tests.support.validators_support import check, codes


def similar_pairs(sets, threshold):
    """(i, j, value) with i < j of every pair :func:`lexical_partners` finds, sorted."""
    out = []
    for j, tiers in enumerate(lexical_partners(sets, threshold)):
        for value, mask in tiers.items():
            out.extend((i, j, value) for i in range(j) if mask >> i & 1)
    return sorted(out)


def skill(name, description, path=None):
    return Skill(name=name, description=description, path=path or f"skills/{name}/SKILL.md")


def test_duplicate_name_is_reported_on_both_files_at_the_name_line(tmp_path):
    write_skill(tmp_path, "deploy", "Deploy the app")
    write_skill(tmp_path, "deploy", "Deploy the other app", layout="skills")
    diags = check(tmp_path, select=["SK002"])
    assert [(d.file, d.line) for d in diags] == [(".claude/skills/deploy/SKILL.md", 2), ("skills/deploy/SKILL.md", 2)]
    assert diags[0].message == ('skill name "deploy" is also used by skills/deploy/SKILL.md; this one is served '
                                "(the first in path order)")
    assert diags[1].message == ('skill name "deploy" is also used by .claude/skills/deploy/SKILL.md; '
                                "only .claude/skills/deploy/SKILL.md is served (the first in path order)")


def test_distinct_names_are_fine():
    assert duplicate_names([skill("a", "x"), skill("b", "x")]) == []


def test_near_duplicate_descriptions_are_warned_on_both():
    skills = [skill("deploy-staging", "Deploy a service to the staging cluster"),
              skill("ship-staging", "Deploy the service to a staging cluster"),
              skill("git", "Branching and pull request conventions")]
    diags = near_duplicates(skills, threshold=0.9)
    assert [(d.file, d.code, d.severity) for d in diags] == [
        ("skills/deploy-staging/SKILL.md", "SK009", "warning"), ("skills/ship-staging/SKILL.md", "SK009", "warning")]
    assert diags[0].message == ('description of "deploy-staging" is nearly the same as that of "ship-staging" '
                                "(skills/ship-staging/SKILL.md; lexical 1.00); agents cannot tell them apart")


def test_threshold_decides_and_zero_turns_it_off():
    skills = [skill("a", "Deploy a service to the staging cluster"),
              skill("b", "Deploy a service to production cluster")]  # 3 of 4 terms shared: 0.75
    assert near_duplicates(skills, threshold=0.9) == []
    assert len(near_duplicates(skills, threshold=0.7)) == 2
    assert near_duplicates(skills, threshold=0) == []
    # one word apart is found below the threshold too (docs/checks-skills.md, "SK002, SK009 — across skills")
    one_word = [skill("a", "Deploy a service to the staging cluster"),
                skill("b", "Deploy a service to the production cluster")]
    assert len(near_duplicates(one_word, threshold=0.9)) == 2
    assert near_duplicates(one_word, threshold=0) == []


def test_short_descriptions_are_not_compared():
    assert similar_pairs(term_sets(["deploy app", "deploy app"]), 0.5) == []


def test_many_partners_are_summarised():
    skills = [skill(f"s{i}", "Automate the reports of the finance team weekly") for i in range(6)]
    diags = near_duplicates(skills, threshold=0.9)
    assert len(diags) == 6
    assert diags[0].message.count("skills/s") == 3 and "and 2 more" in diags[0].message


def test_prefix_filtering_finds_exactly_the_brute_force_pairs():
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(30)]
    texts = [" ".join(rng.sample(vocab, rng.randint(3, 9))) for _ in range(120)]
    sets = term_sets(texts)
    for threshold in (0.5, 0.7, 0.9):
        brute = []
        for i, j in itertools.combinations(range(len(sets)), 2):
            a, b = sets[i], sets[j]
            if len(a) < 3 or len(b) < 3:
                continue
            value = len(a & b) / math.sqrt(len(a) * len(b))
            if value >= threshold:
                brute.append((i, j))
        assert [(i, j) for i, j, _v in similar_pairs(sets, threshold)] == brute


def test_one_word_pairs_already_similar_are_described_as_lexical():
    """A pair both similar and one word apart is named as lexical; one below the threshold as one word apart."""
    rng = random.Random(11)
    vocab = [f"w{i}" for i in range(12)]
    texts = [" ".join(rng.sample(vocab, rng.randint(3, 8))) for _ in range(150)]
    texts += [text + " extra" for text in texts[:40]]  # one word added: some above 0.9, most below
    pairs = similar_pairs(term_sets(texts), 0.9)
    listed = {(i, j) for i, j, _v in pairs}
    one_word = one_word_apart(texts)
    assert len(pairs) > 30 and any(pair in listed for pair in one_word) and any(p not in listed for p in one_word)
    skills = [skill(f"s{n:03d}", text) for n, text in enumerate(texts)]
    diags = near_duplicates(skills, threshold=0.9)
    messages = " ".join(d.message for d in diags)
    assert "one word apart" in messages and "; lexical" in messages


def test_cosine_pairs_from_vectors_are_reported_with_both_measures():
    import numpy as np

    matrix = np.array([[1.0, 0.0], [0.995, 0.0998], [0.0, 1.0]], dtype=np.float32)
    pairs = vector_pairs(matrix, 0.97)
    assert [(i, j) for i, j, _ in pairs] == [(0, 1)]
    skills = [skill("a", "Roll out the new build to canary hosts"), skill("b", "Ship tonight's release gradually"),
              skill("c", "Something else entirely here")]
    diags = near_duplicates(skills, threshold=0.9, cosine_pairs=pairs)
    assert codes(diags) == ["SK009", "SK009"]
    assert "cosine 1.00" in diags[0].message and "lexical" not in diags[0].message


def test_cosine_from_a_committed_index(tmp_path):
    from skillsift.catalog.embedtext import embedded_text, text_digest
    from skillsift.config import load_config
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index, write_index

    write_skill(tmp_path, "canary", "Roll out the new build to canary hosts first")
    write_skill(tmp_path, "gradual", "Ship tonight's release to a few machines at a time")
    write_skill(tmp_path, "other", "Branching and pull request conventions")
    from skillsift.catalog.load import load_catalog

    config = load_config(tmp_path, env={}, user_config_path=tmp_path / "none.toml")
    skills = load_catalog(tmp_path, config).skills
    items = [ManifestItem(id=s.name, text_digest=text_digest(embedded_text(s)), item_digest=s.digest)
             for s in skills]
    vectors = {"canary": [1, 0, 0], "gradual": [0.99, 0.05, 0], "other": [0, 0, 1]}
    index = new_index(provider="test@local", model="m", items=items, vectors=[vectors[s.name] for s in skills],
                      fields=config.search.fields)
    write_index(tmp_path / ".skillsift/index", index)
    diags = check(tmp_path, select=["SK009"])
    assert [d.file for d in diags] == [".claude/skills/canary/SKILL.md", ".claude/skills/gradual/SKILL.md"]
    assert "cosine 1.00" in diags[0].message
    # a changed skill's stored vector no longer speaks for it
    write_skill(tmp_path, "gradual", "Ship tonight's release to a few machines at a time, slowly")
    assert check(tmp_path, select=["SK009"]) == []


@pytest.mark.slow  # the whole corpus of real skills
def test_corpus_pairs_are_fast_and_symmetric():
    real = corpora()
    import time

    from skillsift.catalog.load import parse_skill

    skills = []
    for path in sorted(real.rglob("SKILL.md")):
        parsed, _ = parse_skill(path.read_text("utf-8"), path.parent.name, path=path.as_posix())
        skills.append(parsed)
    start = time.perf_counter()
    pairs = similar_pairs(term_sets(s.description for s in skills), 0.9)
    assert time.perf_counter() - start < 5
    assert pairs and all(i < j and v >= 0.9 for i, j, v in pairs)


def _reference_near_duplicates(skills, threshold, cosine_pairs=()):
    """SK009 the plain way: every pair compared, partners ranked by (strength, name, path)."""
    sets = term_sets(s.description for s in skills)
    strength: dict[tuple[int, int], float] = {}
    lexical: dict[tuple[int, int], float] = {}
    for i, j in itertools.combinations(range(len(sets)), 2):
        a, b = sets[i], sets[j]
        if len(a) < 3 or len(b) < 3:
            continue
        value = len(a & b) / math.sqrt(len(a) * len(b))
        if value >= threshold - 1e-12:
            lexical[(i, j)] = strength[(i, j)] = value
    cosine = {(min(i, j), max(i, j)): v for i, j, v in cosine_pairs}
    for key, value in cosine.items():
        strength[key] = max(strength.get(key, 0.0), value)
    partners: dict[int, list[int]] = {}
    for (i, j), _value in strength.items():
        if skills[i].name != skills[j].name:
            partners.setdefault(i, []).append(j)
            partners.setdefault(j, []).append(i)
    out = []
    for i in sorted(partners):
        def rank(j, i=i):
            return (-strength[(min(i, j), max(i, j))], skills[j].name, skills[j].path)
        ranked = sorted(partners[i], key=rank)
        named = []
        for j in ranked[:3]:
            key = (min(i, j), max(i, j))
            how = ", ".join(([f"lexical {lexical[key]:.2f}"] if key in lexical else [])
                            + ([f"cosine {cosine[key]:.2f}"] if key in cosine else []))
            named.append(f'"{skills[j].name}" ({skills[j].path}; {how})')
        more = len(ranked) - len(named)
        out.append((skills[i].path, ", ".join(named) + (f" and {more} more" if more else "")))
    return out


@pytest.mark.slow  # the whole corpus of real skills
def test_corpus_near_duplicates_equal_the_all_pairs_reference(tmp_path):
    """The prefix filter and the ranking shortcuts give what comparing every pair gives (2,000+ real skills)."""
    from skillsift.validators.workspace import Workspace

    CORPORA = corpora()  # noqa: N806 - skips (or fails under CI=true) without the corpus
    config = tmp_path / "skillsift.toml"  # the corpus is read-only: name its layout in a config kept elsewhere
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    skills = list(Workspace(CORPORA, config_file=config).catalog.skills)
    cosine = [(i, i + 3, 0.93) for i in range(0, len(skills) - 3, 11)]
    for threshold, pairs in ((0.9, ()), (0.8, cosine)):
        got = [(d.file, d.message) for d in near_duplicates(skills, threshold=threshold, cosine_pairs=pairs)]
        want = _reference_near_duplicates(skills, threshold, pairs)
        assert len(got) == len(want) > 500
        for (file, message), (ref_file, listing) in zip(got, want, strict=True):
            assert file == ref_file and f"that of {listing}; agents" in message



def test_sk009_listings_come_from_the_cache_only_for_the_same_inputs(tmp_path, monkeypatch, capsys):
    from skillsift.checks import duplicates
    from skillsift.cli import main

    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    for n in range(5):
        write_skill(root, f"report-{n}", "Automate the weekly reports of the finance team" + " now" * (n % 2))
    write_skill(root, "other", "Branching and pull request conventions for the team")

    def validate():
        code = main(["validate", "--root", str(root), "--format", "json", "--select", "SK009"])
        return code, capsys.readouterr().out

    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    uncached = validate()
    monkeypatch.delenv("SKILLSIFT_CACHE")
    assert validate() == uncached and "SK009" in uncached[1]
    calls = []
    real = duplicates.near_duplicates
    monkeypatch.setattr(duplicates, "near_duplicates", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert validate() == uncached and calls == []
    write_skill(root, "report-0", "Automate the weekly reports of the finance team please")
    edited = validate()
    assert calls == [1] and edited != uncached
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    assert validate() == edited


def _line_of(found, key):
    return 1 + len(found.name) % 3 if key == "name" else None


def test_duplicate_names_equal_the_reference_on_random_catalogs():
    """SK002/SK014 with copies looked for within one name and one text length: the findings of the reference
    (every text hashed) on random catalogs of few names, texts of equal lengths that differ or not, unread
    texts, plugins and one skill listed twice."""
    from tests.support.copies_reference import duplicate_names as reference

    rng = random.Random(11)
    names = ["deploy", "Deploy", "ship", "de\u0440loy", "review"]
    texts = ["abc", "abd", "bca", "abc", "longer text", "longer texT", None, ""]
    findings = 0
    for _ in range(500):
        skills = [Skill(name=rng.choice(names), description="d",
                        path=rng.choice(("skills", ".claude/skills", "plugins/p/skills")) + f"/{n}/SKILL.md")
                  for n in range(rng.randint(0, 12))]
        if skills and rng.random() < 0.1:
            skills.append(skills[0])
        text_of = {id(s): rng.choice(texts) for s in skills}.__getitem__
        want = reference(skills, _line_of, lambda s, text_of=text_of: text_of(id(s)))
        assert duplicate_names(skills, _line_of, lambda s, text_of=text_of: text_of(id(s))) == want
        findings += sum(d.code == "SK014" for d in want)
    assert findings > 200


@pytest.mark.slow  # the whole corpus of real skills
def test_duplicate_names_equal_the_reference_on_the_corpus(tmp_path):
    from skillsift.validators.workspace import Workspace
    from tests.support.copies_reference import duplicate_names as reference

    config = tmp_path / "skillsift.toml"
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    ws = Workspace(corpora(), config_file=config)
    skills = ws.all_skills
    got = duplicate_names(skills, _line_of, lambda s: ws.read_text(s.path))
    assert got == reference(skills, _line_of, lambda s: ws.read_text(s.path))
    assert sum(d.code == "SK014" for d in got) > 10
