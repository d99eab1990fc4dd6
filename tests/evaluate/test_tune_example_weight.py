"""``skillsift tune`` choosing ``[search] example_weight`` from known requests, without leakage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from skillsift.cli import main
from skillsift.evaluate import tune
from tests.support.cli import load_schema

# Skills whose own text says nothing about what they are asked: only their known requests do.
TEAMS = {
    "team-amber": ("the printer on the third floor keeps jamming", "paper is stuck in the printer upstairs again"),
    "team-birch": ("book a meeting room for thursday afternoon", "reserve a conference room on thursday after lunch"),
    "team-cedar": ("my laptop battery drains in an hour", "the notebook battery is empty after sixty minutes"),
    "team-delta": ("order more coffee beans for the kitchen", "we ran out of coffee in the kitchen, buy more"),
    "team-ember": ("the parking garage gate will not open", "the car park barrier does not lift for my badge"),
    "team-fjord": ("translate the brochure into german", "we need the leaflet in german"),
    "team-grove": ("water the plants in the lobby while I am away", "someone must look after the lobby plants"),
    "team-heron": ("the air conditioning is far too cold", "it is freezing in the office, turn the cooling down"),
    "team-iris": ("ship a package to our office in tokyo", "send a parcel to the tokyo branch"),
    "team-juniper": ("renew the domain name before it expires", "our web address registration runs out soon"),
    "team-kestrel": ("plan the summer party for the whole company", "organise the company picnic in july"),
    "team-linden": ("the elevator is stuck between floors", "the lift stopped between two levels"),
}


def _repo(root: Path, *, mode: str = "hybrid", weight: float | None = None, examples: bool = True) -> Path:
    for name in TEAMS:
        folder = root / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        title = name.split("-")[1].capitalize()
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Helper of the {title} group. Use when "
                                         f"the {title} group is asked for help.\n---\n\n# {title}\n")
    lines = ["[search]", f'mode = "{mode}"']
    if weight is not None:
        lines.append(f"example_weight = {weight}")
    if examples:
        lines.append('examples = ["known.yaml"]')
        known = ["version: 1", "cases:"]
        for name, (request, _para) in TEAMS.items():
            known += [f"  - id: known-{name}", f'    query: "{request}"', f"    expect: [{name}]"]
        (root / "known.yaml").write_text("\n".join(known) + "\n")
    (root / "skillsift.toml").write_text("\n".join(lines) + "\n")
    cases = ["version: 1", "cases:"]
    for name, (_request, para) in TEAMS.items():
        cases += [f"  - id: {name}", f'    query: "{para}"', f"    expect: [{name}]"]
    (root / "cases.yaml").write_text("\n".join(cases) + "\n")
    return root


@pytest.fixture
def local_model():
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")


def _tune(root: Path, cases: str, capsys, *extra: str) -> tuple[int, str]:
    code = main(["tune", str(root / cases), "--root", str(root), *extra])
    return code, capsys.readouterr().out


# -- the pure parts -------------------------------------------------------------------------------


def test_a_case_is_never_its_own_evidence():
    from skillsift.evaluate.holdout import plan

    # two skills, one request each; case 0's query is skill 0's request and case 0 expects skill 0
    cos = np.array([[1.0, 0.2], [0.9, 0.3]])
    owner = np.array([0, 1])
    keys = ["deploy the app", "rotate a key"]
    names = ["deploy", "rotate"]
    requests = [("deploy", "deploy the app"), ("rotate", "rotate a key")]
    cases = [("deploy the app", ["deploy"]), ("ship it", ["deploy"])]
    rule = plan(cases, requests, folds=2)
    assert rule.overlap == 1 and rule.folds == 2
    best, has = tune.example_evidence(cos, owner, keys, ["deploy the app", "ship it"], 2, rule=rule, names=names)
    assert not has[0, 0] and best[0, 0] == 0.0  # its own request is left out for case 0
    assert has[0, 1] and best[0, 1] == pytest.approx(0.2)
    assert has[1, 0] and best[1, 0] == pytest.approx(0.9)  # a case of the other fold may use it
    # the same text as a request of a skill the case does not expect is not its evidence: it counts,
    # as a live search counts it (a pull request steering the gated queries is measured as production ranks)
    steer = plan([("deploy the app", ["rotate"]), ("ship it", ["deploy"])], requests, folds=2)
    assert steer.overlap == 0
    best, has = tune.example_evidence(cos, owner, keys, ["deploy the app", "ship it"], 2, rule=steer, names=names)
    assert has[0, 0] and best[0, 0] == pytest.approx(1.0)
    # one fold: both cases' own evidence is left out for both
    both = plan([("deploy the app", ["deploy"]), ("rotate a key", ["rotate"])], requests, folds=1)
    best, has = tune.example_evidence(cos, owner, keys, ["deploy the app", "rotate a key"], 2, rule=both,
                                      names=names)
    assert not has.any()


def test_tune_and_eval_hold_out_by_one_rule():
    """The evaluation's held-out ranker and tune's evidence take the same decision for every (case, request)."""
    from skillsift.evaluate.holdout import plan
    from skillsift.ranker.examples import normalised

    rng = np.random.default_rng(5)
    for _ in range(40):
        skills = [f"s{i}" for i in range(4)]
        texts = ["deploy the app", "rotate a key", "page the on call", "refund it"]
        requests = [(str(rng.choice(skills)), str(rng.choice(texts))) for _ in range(6)]
        cases = [(str(rng.choice(texts)), [str(rng.choice(skills))]) for _ in range(7)]
        rule = plan(cases, requests, folds=3)
        for query, _expect in cases:
            kept = rule.kept(rule.fold(normalised(query)), requests)
            held = [(s, t) for s, t in requests if rule.held(normalised(query), s, normalised(t))]
            assert sorted(kept + held) == sorted(requests)
            own = [(s, t) for s, t in requests
                   if normalised(t) == normalised(query) and s in {e for q, ex in cases if q == query for e in ex}]
            assert all(r in held for r in own)  # a case's own evidence is always held out
            assert all(normalised(t) in rule.own and s in rule.own[normalised(t)] for s, t in held)


def test_the_weight_is_chosen_by_held_out_folds_and_ties_keep_the_current_one():
    # four cases, three skills; the expected skill's own cosine is below another one's, its requests are close
    cos = np.array([[0.5, 0.6, 0.1], [0.5, 0.6, 0.1], [0.6, 0.5, 0.1], [0.1, 0.6, 0.5]] * 3)
    expected = [[0], [0], [1], [2]] * 3
    names = ["a", "b", "c"]
    sig = tune.signals_from(np.zeros_like(cos), {tune.ALL_FIELDS: np.eye(3)}, cos, names, expected)
    auto = tune.Setting("auto", tune.ALL_FIELDS)
    best = np.where(np.eye(3)[[e[0] for e in expected]] > 0, 0.95, 0.0)
    has = best > 0
    result = tune.tune_example_weight(auto, sig, best, has, 0.0, folds=3)
    assert result.weights[0] == 0.0 and result.current == 0
    assert result.weights[result.winner] > 0 and result.change()
    assert result.series[0].rr.mean() < result.held_out.rr.mean() == 1.0
    # requests that never lift anything: every weight ties and the current one is kept
    flat = tune.tune_example_weight(auto, sig, best, np.zeros_like(has), 0.6, folds=3)
    assert flat.weights[flat.winner] == 0.6 and not flat.change()
    assert flat.weights == [0.6, 0.0, 0.2, 0.4, 0.8, 1.0]


# -- the command ----------------------------------------------------------------------------------


def test_tune_chooses_and_writes_the_weight_of_known_requests(tmp_path, capsys, local_model):
    jsonschema = pytest.importorskip("jsonschema")
    root = _repo(tmp_path / "repo", weight=0.0)
    code, first = _tune(root, "cases.yaml", capsys, "--format", "json")
    assert code == 0
    assert _tune(root, "cases.yaml", capsys, "--format", "json")[1] == first  # same bytes
    doc = json.loads(first)
    jsonschema.validate(doc, load_schema("tune.v1.json"))
    w = doc["example_weight"]
    assert w["tuned"] and w["known_requests"] == len(TEAMS) and w["current"] == 0.0
    assert [row["weight"] for row in w["candidates"]] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert w["winner"] > 0 and w["change"] and w["cross_validated"]["dmrr_vs_current"][1] > 0
    assert "own text is never its evidence" in w["note"]
    text = _tune(root, "cases.yaml", capsys)[1]
    assert f"decision: example_weight = {w['winner']:g}" in text
    assert "paired vs current 0:" in text
    toml = root / "skillsift.toml"
    assert main(["tune", str(root / "cases.yaml"), "--root", str(root), "--write"]) == 0
    capsys.readouterr()
    from skillsift.config import load_config

    assert load_config(str(root)).search.example_weight == w["winner"]
    assert 'examples = ["known.yaml"]' in toml.read_text()
    # the weight written is now the current one: nothing more to write
    before = toml.read_bytes()
    assert main(["tune", str(root / "cases.yaml"), "--root", str(root), "--write"]) == 0
    assert "nothing written" in capsys.readouterr().err
    assert toml.read_bytes() == before


def test_cases_that_are_known_requests_are_scored_by_folds_not_by_themselves(tmp_path, capsys, local_model):
    root = _repo(tmp_path / "repo", weight=0.0)
    code, out = _tune(root, "known.yaml", capsys, "--format", "json")
    assert code == 0
    w = json.loads(out)["example_weight"]
    assert w["tuned"] and w["note"].startswith(f"{len(TEAMS)} case queries are known requests")
    # with its own request as evidence weight 1 would put every case first; held out, it cannot
    # (each skill has one request, the case's own: it is left out, and the other folds' requests lift
    # other skills, so the weight can only hurt; a leak would put every case first at weight 1)
    full = [row for row in w["candidates"] if row["weight"] == 1.0][0]
    assert full["mrr"] < 0.5 and full["dmrr_vs_current"][0] < 0
    assert w["winner"] == 0.0 and not w["change"]


def test_tune_says_why_the_weight_was_not_tuned(tmp_path, capsys, local_model):
    bare = _repo(tmp_path / "bare", examples=False)
    code, out = _tune(bare, "cases.yaml", capsys)
    assert code == 0
    assert ("example_weight: not tuned (the repository has no known requests ([search] examples files or "
            "frontmatter examples)); it stays 0.6") in out
    lexical = _repo(tmp_path / "lexical", mode="lexical")
    code, out = _tune(lexical, "cases.yaml", capsys, "--format", "json")
    w = json.loads(out)["example_weight"]
    assert code == 0 and not w["tuned"] and "lexical mode, which does not use known requests" in w["note"]
    assert "candidates" not in w
    assert main(["tune", str(lexical / "cases.yaml"), "--root", str(lexical), "--write"]) == 0
    assert "example_weight" not in (lexical / "skillsift.toml").read_text()


def test_the_example_repository_ranking_lexically_does_not_tune_the_weight(acme, capsys, local_model):
    code, out = _tune(acme, "search-cases.yaml", capsys)
    assert code == 0
    assert "example_weight: not tuned (the repository ranks in lexical mode" in out
    hybrid = acme.parent / "acme-hybrid"
    shutil.copytree(acme, hybrid)
    toml = hybrid / "skillsift.toml"
    toml.write_text(toml.read_text().replace('mode = "lexical"', 'mode = "hybrid"', 1))
    code, out = _tune(hybrid, "search-cases.yaml", capsys)
    assert code == 0
    assert "example_weight (weight of known requests; 15 requests" in out
    assert "0.6  (current)" in out
