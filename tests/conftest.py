from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# Every path a test needs comes from here (tests/README.md).
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
GOLDEN = TESTS / "golden"
SUPPORT = TESTS / "support"
ACME = ROOT / "examples" / "acme"
SHARED = ROOT.parent / "shared"
# ``SKILLSIFT_CORPORA`` moves the corpus of real skills; read it through ``corpora()``.
CORPORA = Path(os.environ.get("SKILLSIFT_CORPORA") or SHARED / "corpora")


def corpora() -> Path:
    """The folder of real SKILL.md files (``../shared/corpora``, or ``$SKILLSIFT_CORPORA``).

    Skips the calling test when it is absent; under ``CI=true`` its absence is a failure, so a
    CI run never passes without the comparisons on real skills.
    """
    if CORPORA.is_dir():
        return CORPORA
    reason = f"the shared corpus of real skills is absent ({CORPORA}; set SKILLSIFT_CORPORA to move it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}: it is required under CI=true")
    pytest.skip(reason)


def write_skill(root: Path, name: str, description: str = "", *, triggers=None, keywords=None, tags=None,
                body: str = "Body text.\n", layout: str = ".claude/skills", extra: str = "") -> Path:
    """Write ``<root>/<layout>/<name>/SKILL.md`` with the given frontmatter; returns its path."""
    lines = ["---", f"name: {name}"]
    if description:
        lines.append(f"description: {json.dumps(description)}")
    for key, value in (("triggers", triggers), ("keywords", keywords), ("tags", tags)):
        if value is not None:
            lines.append(f"{key}: {json.dumps(list(value))}")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    path = root / layout / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n" + body, encoding="utf-8")
    return path


def write_refund_catalog(root: Path, *, staging: str = "Roll a service out to the staging cluster") -> Path:
    """The refund catalog of ``tests/support/concept_embedder.py`` as SKILL.md files under ``root``."""
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase", keywords=["reimburse"])
    write_skill(root, "deploy-staging", staging, keywords=["rollout"])
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    return root


@pytest.fixture
def skill_writer():
    return write_skill


@pytest.fixture
def cli_project(tmp_path):
    """The three-skill project of the reference's CLI tests."""
    write_skill(tmp_path, "refund-policy", "Process customer refund requests", triggers=["customer wants money back"])
    write_skill(tmp_path, "deploy-staging", "Deploy a service to the staging cluster", keywords=["rollout", "staging"])
    write_skill(tmp_path, "git-workflow", "Branching and pull request conventions")
    return tmp_path


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path_factory, monkeypatch):
    """No test reads the developer's own user config or SKILLSIFT_* environment."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for var in ("SKILLSIFT_SEARCH_MODE", "SKILLSIFT_LOG_QUERIES", "SKILLSIFT_ALLOW_NETWORK"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A user-cache folder of the test's own (``SKILLSIFT_CACHE_DIR``), the caches on."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(folder))
    monkeypatch.delenv("SKILLSIFT_CACHE", raising=False)
    return folder


@pytest.fixture(autouse=True, scope="session")
def _catalog_cache_in_a_temporary_folder(tmp_path_factory):
    """The parsed-frontmatter cache of every test (and CLI subprocess) lives in a temporary folder."""
    import os

    folder = tmp_path_factory.mktemp("skillsift-cache")
    old = os.environ.get("SKILLSIFT_CACHE_DIR")
    os.environ["SKILLSIFT_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("SKILLSIFT_CACHE_DIR", None)
    else:
        os.environ["SKILLSIFT_CACHE_DIR"] = old


@pytest.fixture
def server():
    """A real OpenAI-compatible embeddings server on 127.0.0.1 (tests/support/embedding_server.py)."""
    from tests.support.embedding_server import EmbeddingServer

    with EmbeddingServer() as srv:
        yield srv


@pytest.fixture
def acme(tmp_path):
    """A copy of the bundled example repository (examples/acme) that a test may change."""
    import shutil

    root = tmp_path / "acme"
    shutil.copytree(ACME, root)
    return root
