"""The public Python API (``skillsift/__init__.py``), as the README's "Python API" section shows it."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

import skillsift
from tests.conftest import ROOT as REPO

ACME = REPO / "examples" / "acme"

PUBLIC = ["__version__", "load_catalog", "load_config", "Ranker", "Catalog", "Config", "Skill", "SearchResult", "Hit"]
FUNCTIONS = {"load_catalog": "skillsift.catalog.load", "load_config": "skillsift.config"}
CLASSES = {"Ranker": "skillsift.ranker.search", "Catalog": "skillsift.catalog.load",
           "Config": "skillsift.config.model", "Skill": "skillsift.catalog.skill",
           "SearchResult": "skillsift.ranker.result", "Hit": "skillsift.ranker.result"}


def test_all_is_exactly_the_documented_names():
    assert skillsift.__all__ == PUBLIC


def test_version_is_the_package_version():
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert skillsift.__version__ == project["version"]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_are_callable(name):
    value = getattr(skillsift, name)
    assert inspect.isfunction(value)
    assert value.__module__ == FUNCTIONS[name]


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_classes_are_classes(name):
    value = getattr(skillsift, name)
    assert inspect.isclass(value)
    assert value.__module__ == CLASSES[name]


def test_every_public_name_is_importable_with_from():
    namespace: dict = {}
    exec("from skillsift import *", namespace)  # the names __all__ promises resolve
    assert sorted(name for name in namespace if name != "__builtins__") == sorted(PUBLIC)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'rank'"):
        skillsift.rank  # noqa: B018
    assert not hasattr(skillsift, "Index")


def test_the_documented_signatures():
    params = inspect.signature(skillsift.load_catalog).parameters
    assert list(params)[:2] == ["root", "config"] and params["config"].default is None
    params = inspect.signature(skillsift.load_config).parameters
    assert "root" in params and params["mode"].kind is inspect.Parameter.KEYWORD_ONLY
    params = inspect.signature(skillsift.Ranker).parameters
    assert list(params)[:2] == ["catalog", "config"] and params["config"].default is None
    params = inspect.signature(skillsift.Ranker.search).parameters
    assert list(params)[:3] == ["self", "query", "limit"] and params["limit"].default == 5
    assert params["explain"].kind is inspect.Parameter.KEYWORD_ONLY
    assert inspect.ismethod(skillsift.Ranker.open)  # a classmethod: Ranker.open(catalog, config)


def test_import_is_lazy():
    code = ("import json, sys, skillsift; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('skillsift'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert json.loads(out.stdout) == ["skillsift", "skillsift._version"]


def test_the_readme_example_runs():
    catalog = skillsift.load_catalog(str(ACME))
    assert isinstance(catalog, skillsift.Catalog)
    assert catalog.skills and all(isinstance(skill, skillsift.Skill) for skill in catalog.skills)
    ranker = skillsift.Ranker(catalog)
    result = ranker.search("deploy to staging", limit=5)
    assert isinstance(result, skillsift.SearchResult)
    assert result.ranking == "lexical" and not result.degraded
    assert 0 < len(result.hits) <= 5
    for hit in result.hits:
        assert isinstance(hit, skillsift.Hit)
        assert isinstance(hit.name, str) and isinstance(hit.score, float) and hit.lexical_rank >= 1
    assert result.names == [hit.name for hit in result.hits]
    everything = ranker.search("deploy to staging", limit=None, explain=True)
    assert [h.name for h in everything.hits[:len(result.hits)]] == result.names
    assert all(type(hit.explanation).__name__ == "LexicalExplanation" for hit in everything.hits)
    config = skillsift.load_config(str(ACME), mode="lexical")
    assert isinstance(config, skillsift.Config)
    opened = skillsift.Ranker.open(catalog, config)
    assert isinstance(opened, skillsift.Ranker)
    assert opened.search("deploy to staging", limit=5).names == result.names
