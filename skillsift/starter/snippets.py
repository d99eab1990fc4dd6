"""The pre-commit and GitHub workflow snippets ``skillsift init`` prints, pinned to this version.

The pin is the release tag ``v<version>`` that every release puts on its commit
(docs/development.md, "Releasing"); ``tests/test_release_pins.py`` keeps the README's snippets
on the same tag.
"""

from __future__ import annotations

from .._version import __version__

REPOSITORY = "https://github.com/OWNER/skillsift"
ACTION = "OWNER/skillsift"


def release_tag() -> str:
    """``v`` and the package version: the tag the snippets pin."""
    return f"v{__version__}"


def pre_commit_hooks(*, index: bool) -> str:
    """The ``hooks:`` entries (indented for a ``repos:`` item)."""
    lines = [
        "      - id: skillsift-secrets       # no credential in a skill (AR001)",
        "      - id: skillsift-frontmatter   # SKILL.md parses, has name and description",
        "      - id: skillsift-cases         # the labelled cases are valid (AR9D2)",
    ]
    if index:
        lines += [
            "      - id: skillsift-index         # the committed index is fresh; rebuilt with the local model (AR9D1)",
            '        additional_dependencies: ["skillsift[embed]"]   # the local model, in pre-commit\'s environment',
        ]
    lines.append("      - id: skillsift-eval          # the cases still pass the gates (AR9D4)")
    return "\n".join(lines) + "\n"


def pre_commit_snippet(*, index: bool = False) -> str:
    """A whole ``.pre-commit-config.yaml`` with the skillsift hooks."""
    return (f"repos:\n  - repo: {REPOSITORY}   # where you get skillsift from\n"
            f"    rev: {release_tag()}\n    hooks:\n" + pre_commit_hooks(index=index))


def workflow_snippet(cases: str, *, extras: str = "") -> str:
    """``.github/workflows/skills.yml``: the Action on every pull request, gating on ``cases``."""
    extra = (f"          extras: {extras}\n" if extras
             else "          # extras: embed           # for hybrid/vector modes with the local model\n")
    return (
        "name: skills\n"
        "on:\n"
        "  pull_request:\n"
        "permissions:\n"
        "  contents: read\n"
        "jobs:\n"
        "  skillsift:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "        with:\n"
        "          fetch-depth: 0            # the base commit must be in the checkout: nothing is fetched\n"
        f"      - uses: {ACTION}@{release_tag()}  # where you get skillsift from, at a tag or commit\n"
        "        with:\n"
        f"          cases: {cases}\n"
        "          max-flips: 0\n"
        + extra
    )
