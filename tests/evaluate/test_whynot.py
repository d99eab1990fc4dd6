"""``skillsift eval --why``: why a case missed, and trigger proposals checked by ranking again."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
import yaml

from skillsift.catalog.load import catalog_from_skills
from skillsift.catalog.skill import Skill
from skillsift.config import Config
from skillsift.evaluate.case_change import worse
from skillsift.evaluate.cases import parse_cases
from skillsift.evaluate.metrics import CaseResult, NegativeResult
from skillsift.evaluate.run import evaluate
from skillsift.evaluate.whynot import (
    NON_LEXICAL_NOTE,
    bare_skills,
    why_not,
)
from skillsift.ranker.search import Ranker
from tests.conftest import ACME, ROOT
from tests.support.cli import load_schema, run


def validate(doc: dict) -> None:
    for name, part in (("search-eval.v1.json", doc), ("search-why.v4.json", doc["why"])):
        jsonschema.Draft202012Validator(load_schema(name)).validate(part)


# -- a small synthetic catalog ------------------------------------------------------------------

SKILLS = (
    Skill(name="refund-order", description="Give money back for an order",
          triggers=("refund an order",), keywords=("refund",), examples=("refund order 12",)),
    Skill(name="charge-dispute", description="Answer a bank dispute about duplicate charges",
          keywords=("chargeback", "dispute")),
    Skill(name="deploy-app", description="Ship the application to production"),
)

CASES = """\
version: 1
k: 1
cases:
  - id: dup
    query: "refund the duplicate charges"
    expect: [refund-order]
  - id: ship
    query: "ship the application"
    expect: [deploy-app]
  - id: dispute
    query: "bank dispute"
    expect: [charge-dispute]
"""


def _evaluate(skills, cases_text, k=None):
    catalog = catalog_from_skills(skills)
    config = Config(root=".")
    case_file = parse_cases(cases_text)
    ranker = Ranker(catalog, config)
    result = evaluate(case_file, ranker, k=k or case_file.effective_k(), modes=["lexical"])
    return catalog, config, case_file, ranker, result


def test_a_miss_is_explained_by_the_winner_s_terms_and_what_the_expected_skill_lacks():
    catalog, config, case_file, ranker, result = _evaluate(SKILLS, CASES)
    assert [m.id for m in result.primary.misses] == ["dup"]
    report = why_not(result, case_file.cases, catalog, config, ranker, proposals=False)
    (miss,) = report.misses
    assert miss.case_id == "dup" and miss.ranking == "lexical"
    # the ranker's own tokenizer and stemmer: "the" is a stopword, "charges" -> "charg"
    assert miss.query_terms == ("refund", "duplicat", "charg")
    winner = miss.winner
    assert winner.name == "charge-dispute" and winner.rank == 1
    assert [(t.term, t.fields) for t in winner.terms] == [("duplicat", ("description",)),
                                                          ("charg", ("name", "description"))]
    assert winner.score == pytest.approx(sum(t.points for t in winner.terms), abs=1e-6)
    (expected,) = miss.expected
    assert expected.standing.name == "refund-order" and expected.standing.rank == 2
    assert expected.lacks == ("duplicat", "charg")
    assert expected.holds == (("refund", ("name", "triggers", "keywords")),)
    assert [t.term for t in expected.standing.terms] == ["refund"]
    competitor = miss.competitor
    assert competitor.name == "charge-dispute" and competitor.rank == 1
    assert competitor.expected_lacks == ("duplicat", "charg")
    assert report.proposals == [] and report.bare_skills == ["charge-dispute", "deploy-app"]


def test_an_unretrieved_expected_skill_lacks_every_query_term():
    cases = CASES.replace('"ship the application"', '"release the build to prod"')
    catalog, config, case_file, ranker, result = _evaluate(SKILLS, cases)
    report = why_not(result, case_file.cases, catalog, config, ranker, proposals=False)
    ship = next(m for m in report.misses if m.case_id == "ship")
    assert ship.winner is None and ship.competitor is None
    assert ship.expected[0].standing.rank is None
    assert ship.expected[0].lacks == ("releas", "build", "prod")


def test_worse_rule():
    hit = CaseResult(id="c", query="q", expected=("x",), got=("x",), rank=1, hit=True, recall=1.0, ndcg=1.0)
    second = CaseResult(id="c", query="q", expected=("x",), got=("y", "x"), rank=2, hit=True, recall=1.0, ndcg=0.63)
    gone = CaseResult(id="c", query="q", expected=("x",), got=(), rank=None, hit=False)
    assert worse(hit, second, "s", 5) and worse(second, gone, "s", 5) and not worse(second, hit, "s", 5)
    assert not worse(hit, hit, "s", 5)
    avoided = CaseResult(id="c", query="q", expected=("x",), got=("x",), rank=1, hit=True, recall=1.0, ndcg=1.0,
                         has_avoid=True, avoid_violated=True)
    assert worse(hit, avoided, "s", 5)
    nothing = NegativeResult(id="n", top="")
    assert worse(nothing, NegativeResult(id="n", top="s"), "s", 5)
    assert not worse(nothing, NegativeResult(id="n", top="other"), "s", 5)
    assert worse(NegativeResult(id="n", top="a", avoid=("a",)), NegativeResult(id="n", top="a", avoid=("a",),
                                                                               avoid_violated=True), "s", 5)
    # past the cut-off a rank moving down changes no per-case metric: bounded by the MRR instead
    seventh = CaseResult(id="c", query="q", expected=("x",), got=(), rank=7, hit=False)
    eighth = CaseResult(id="c", query="q", expected=("x",), got=(), rank=8, hit=False)
    assert not worse(seventh, eighth, "s", 5) and worse(seventh, eighth, "s", 7)


def test_bare_skills_have_neither_triggers_nor_examples():
    assert bare_skills(catalog_from_skills(SKILLS)) == ["charge-dispute", "deploy-app"]


class _HybridDouble:
    """A ranker whose every mode answers like the real one in lexical mode, reported as hybrid."""

    def __init__(self, ranker, index=None, provider=None):
        self.ranker, self.index, self.provider = ranker, index, provider

    def search(self, query, limit=None, mode=None, *, role=None, explain=False):
        found = self.ranker.search(query, limit=limit, mode="lexical", role=role, explain=explain)
        return replace(found, ranking="hybrid")


class _RemoteProvider:
    networked = True

    def embed(self, texts):  # pragma: no cover - must never be called
        raise AssertionError("skill text sent to a remote provider")


@pytest.mark.parametrize(("index", "provider", "why"), [
    (None, None, "no usable index is attached"),
    (object(), None, "the embedding provider is unavailable"),
    (object(), _RemoteProvider(), "the configured provider sends text off this machine"),
])
def test_hybrid_mode_explains_but_proposes_only_with_a_provider_on_this_machine(index, provider, why):
    catalog, config, case_file, ranker, _ = _evaluate(SKILLS, CASES)
    double = _HybridDouble(ranker, index, provider)
    result = evaluate(case_file, double, k=1, modes=["hybrid"])
    report = why_not(result, case_file.cases, catalog, config, double)
    assert [m.case_id for m in report.misses] == ["dup"] and report.misses[0].ranking == "hybrid"
    assert report.proposals == [] and report.proposals_note == NON_LEXICAL_NOTE.format(mode="hybrid", why=why)


# -- the example repository ---------------------------------------------------------------------


def _eval_json(capsys, root: Path, *extra) -> dict:
    code, out, err = run(capsys, "eval", root / "search-cases.yaml", "--root", root, "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def _add_trigger(skill_md: Path, phrase: str) -> None:
    """Write ``phrase`` into the SKILL.md's triggers as an author would (a YAML list)."""
    from skillsift.catalog.load import list_value

    text = skill_md.read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    data = yaml.safe_load(front)
    data["triggers"] = [*list_value(data.get("triggers")), phrase]
    skill_md.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body,
                        encoding="utf-8")


def test_acme_text_report(acme, capsys):
    code, out, _ = run(capsys, "eval", acme / "search-cases.yaml", "--root", acme, "--why")
    assert code == 0
    why = out[out.index("why not (lexical, k=5):"):]
    assert "para-look-over-changes [missed]:" in why
    assert "ranked first: cloud-cost-report, score 3.8409: over 2.56 [description], chang 1.28 [description]" in why
    assert "expected code-review: rank 10" in why
    assert "competitor cloud-cost-report (rank 1) holds over [description], chang [description]" in why
    assert "trigger proposals (full view" in why
    assert "too few cases to check one on held-out cases" in why and "code-review" in why
    assert "skills with no triggers and no examples (3): code-review, git-workflow, onboard-engineer" in why
    code2, out2, _ = run(capsys, "eval", acme / "search-cases.yaml", "--root", acme, "--why")
    assert out2 == out  # same bytes on every run


def test_why_refuses_junit_and_markdown(acme, capsys):
    for fmt in ("junit", "markdown"):
        code, _, err = run(capsys, "eval", acme / "search-cases.yaml", "--root", acme, "--why", "--format", fmt)
        assert code == 1
        assert f"--why works with --format text or json, not {fmt}" in err


def test_without_why_the_json_has_no_why_key(acme, capsys):
    assert "why" not in _eval_json(capsys, acme)


def test_the_documented_example_is_what_the_example_prints(capsys):
    import re

    section = (ROOT / "docs" / "why-not.md").read_text(encoding="utf-8")
    lexical, _pager, hybrid = re.findall(r"```text\n(.*?)\n```", section, re.S)  # pager: test_proposals.py
    for argv, block in (((), lexical), (("--mode", "hybrid"), hybrid)):
        if argv:
            pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
        code, out, _ = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "--why", *argv)
        assert code == 0
        printed = out.splitlines()
        for line in block.splitlines():
            if line.strip() != "...":
                assert line in printed, line


def test_acme_hybrid_checks_a_skill_whose_vector_was_stale_with_its_vector_for_the_run(acme, capsys):
    """The local model embeds the edited skill for the run (docs/vector-index.md, "Stale vectors at search time"),
    so its proposals are checked like every other skill's, not skipped."""
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    skill_md = acme / ".claude" / "skills" / "code-review" / "SKILL.md"
    text = skill_md.read_text(encoding="utf-8")
    skill_md.write_text(text.replace("\ndescription: ", "\ndescription: PR etiquette. ", 1), encoding="utf-8")
    doc = _eval_json(capsys, acme, "--why", "--mode", "hybrid")
    validate(doc)
    assert doc["index"]["stale_items"] == 0
    assert doc["why"]["proposals"]
    assert not [sp for sp in doc["why"]["proposals"] if "stale vector" in sp.get("skipped", "")]


def test_a_role_case_is_explained_within_the_role():
    skills = (
        Skill(name="refund-order", description="Give money back", roles=("billing",)),
        Skill(name="invoice-fix", description="Correct an invoice total", roles=("billing",)),
        Skill(name="total-recall", description="Remember the total of everything"),
    )
    cases = """\
version: 1
k: 1
cases:
  - id: vat
    query: "wrong VAT total"
    role: billing
    expect: [refund-order]
"""
    catalog, config, case_file, ranker, result = _evaluate(skills, cases)
    report = why_not(result, case_file.cases, catalog, config, ranker)
    (miss,) = report.misses
    assert miss.role == "billing"
    assert miss.winner.name == "invoice-fix"  # total-recall holds "total" too, but is not in the role
    assert miss.expected[0].standing.rank is None and miss.expected[0].lacks == ("wrong", "vat", "total")
    (sp,) = report.proposals
    assert sp.proposals == () and "too few cases" in sp.skipped  # one case: nothing to hold out


def test_why_skills_bounds_the_skills_given_proposals_and_says_so(acme, capsys):
    every = _eval_json(capsys, acme, "--why", "--why-skills", "0")["why"]
    names = [sp["skill"] for sp in every["proposals"]]
    assert len(names) > 2 and names == sorted(names) and "proposals_note" not in every
    two = _eval_json(capsys, acme, "--why", "--why-skills", "2")["why"]
    assert [sp["skill"] for sp in two["proposals"]] == names[:2]
    assert two["proposals_note"] == (f"proposals for the first 2 of {len(names)} skills with cases not ranked first "
                                     "(name order; --why-skills N, 0 for all)")
