"""bench/skills_devset.py: the rules that turn real skills into a labelled development set."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT, corpora

sys.path.insert(0, str(ROOT / "bench"))
import skills_devset  # noqa: E402

BODY = """# Tool

## When to Use This Skill

- Converting spreadsheets into charts for a report
- `plot` the weekly numbers
Do not use for:
- editing photos of the office party

```
- a bullet inside a fence is not a query
```

## When to use vs alternatives

- this heading compares, it is not a list of requests

Use this skill when the board wants a quarterly slide deck.
"""


def _skill(root, repo, folder, name, description, body=BODY):
    d = root / repo / folder
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}", encoding="utf-8")


def test_rules_queries_dedupe_and_leak_removal(tmp_path):
    _skill(tmp_path, "a-repo", "charts", "charts",
           "Make charts. Use it for converting spreadsheets into charts for a report. Exports PNG.")
    _skill(tmp_path, "b-repo", "charts", "charts", "A second copy with another text.")
    _skill(tmp_path, "b-repo", "other", "other", "Something else entirely.", body="# Other\n")
    ds = skills_devset.build(tmp_path)
    assert [s.name for s in ds.skills] == ["charts", "other"] and ds.dropped_duplicate_names == 1
    queries = [(c.query, c.source) for c in ds.cases]
    assert queries == [("Converting spreadsheets into charts for a report", "when-to-use"),
                       ("plot the weekly numbers", "when-to-use"),
                       ("the board wants a quarterly slide deck", "use-when")]
    charts = ds.skills[0]
    assert charts.description == "Make charts. Exports PNG."  # the sentence repeating a query is gone
    assert charts.body == "" and ds.stripped_description_sentences == 1
    assert skills_devset.build(tmp_path).digest() == ds.digest()


@pytest.mark.slow  # the whole corpus of real skills
def test_the_real_corpora_build_without_leaks():
    ds = skills_devset.build(corpora())
    assert len(ds.cases) > 1000 and len({s.name for s in ds.skills}) == len(ds.skills)
    by_name = {s.name: s for s in ds.skills}
    for case in ds.cases:
        skill = by_name[case.skill]
        words = " ".join(skills_devset._words(case.query))
        assert words not in " ".join(skills_devset._words(skill.description))
        assert all(words not in " ".join(skills_devset._words(t)) for t in skill.triggers)
