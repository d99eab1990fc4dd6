"""The snippets users copy pin a release tag that this repository carries (docs/development.md, "Releasing").

The README's and docs/hooks.md's pre-commit ``rev:`` and the Action's ``uses: skillsift/skillsift@`` name the
tag ``v<version>``, the version of the package being released; tests/hooks/test_precommit.py runs the README
snippet verbatim through real pre-commit against a clone carrying that tag.
"""

from __future__ import annotations

import re
import sys

import skillsift
from tests.conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TAG = f"v{skillsift.__version__}"
SNIPPETS = ("README.md", "docs/hooks.md", "docs/github-action.md")


def release_tag() -> str:
    """The tag the snippets pin: ``v`` and the package version."""
    return TAG


def test_the_package_version_is_one_number():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == skillsift.__version__


def test_every_rev_and_uses_in_the_docs_names_the_release_tag():
    seen = 0
    for rel in SNIPPETS:
        text = (ROOT / rel).read_text(encoding="utf-8")
        revs = re.findall(r"^\s*rev:\s*(\S+)", text, re.M)
        uses = re.findall(r"uses:\s*skillsift/skillsift@(\S+)", text)
        for value in revs + uses:
            assert value == TAG, f"{rel}: {value} is not the release tag {TAG}"
        seen += len(revs) + len(uses)
    assert seen >= 3  # the README's two snippets and docs/hooks.md's


def test_the_init_snippets_pin_the_same_tag():
    from skillsift.usecases.starter.snippets import pre_commit_snippet, workflow_snippet

    assert f"rev: {TAG}" in pre_commit_snippet()
    assert f"uses: skillsift/skillsift@{TAG}" in workflow_snippet("search-cases.yaml")


def test_the_snippets_name_the_repository_url_of_the_package_metadata():
    """``[project.urls] Repository`` is where the snippets send users; the source tree's fallback equals it."""
    from skillsift.usecases.starter.snippets import REPOSITORY_URL, action_name, pre_commit_snippet, repository_url

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    url = project["urls"]["Repository"]
    assert REPOSITORY_URL == url == repository_url() and "OWNER" not in url
    assert f"  - repo: {url}   " in pre_commit_snippet()
    assert action_name() == url.removeprefix("https://github.com/")
    for rel in SNIPPETS:
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert "OWNER/skillsift" not in text, rel
        for found in re.findall(r"repo:\s*(https://\S+)", text):
            assert found == url, rel
