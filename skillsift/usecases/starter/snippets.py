"""The pre-commit and GitHub workflow snippets ``skillsift init`` prints, pinned to this version.

The pin is the release tag ``v<version>`` that every release puts on its commit
(docs/development.md, "Releasing"); ``tests/test_release_pins.py`` keeps the README's snippets
on the same tag.  Where skillsift comes from is the ``Repository`` URL of the package metadata
(``[project.urls]`` in pyproject.toml), read from the installed distribution; a checkout run from
its source tree, which has no installed metadata, uses :data:`REPOSITORY_URL`, which
``tests/test_release_pins.py`` keeps equal to pyproject.toml's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._version import __version__

#: pyproject.toml's ``[project.urls] Repository`` (the fallback when no metadata is installed).
REPOSITORY_URL = "https://github.com/skillsift/skillsift"


def repository_url() -> str:
    """The ``Repository`` URL of the installed package's metadata, else :data:`REPOSITORY_URL`."""
    from importlib import metadata

    try:
        urls = metadata.metadata("skillsift").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _sep, url = entry.partition(",")
        if label.strip().lower() == "repository" and url.strip().startswith("https://"):
            return url.strip().rstrip("/")
    return REPOSITORY_URL


def action_name() -> str:
    """``owner/name`` of the Action: the repository's path on GitHub."""
    url = repository_url()
    return url.split("://", 1)[-1].split("/", 1)[-1] if url.startswith("https://github.com/") else "skillsift/skillsift"


def release_tag() -> str:
    """``v`` and the package version: the tag the snippets pin."""
    return f"v{__version__}"


@dataclass(frozen=True)
class Hook:
    """One ``hooks:`` entry of the snippet: its id, the comment on its line, and its further keys."""

    id: str
    comment: str
    extra: tuple[str, ...] = ()  # "key: value" lines under the id, in order


def snippet_hooks(*, index: bool) -> tuple[Hook, ...]:
    """The hooks ``init`` installs, in order (the index hook only when an index is committed)."""
    hooks = [
        Hook("skillsift-secrets", "no credential in a skill (AR001)"),
        Hook("skillsift-frontmatter", "SKILL.md parses, has name and description"),
        Hook("skillsift-cases", "the labelled cases are valid (AR9D2)"),
    ]
    if index:
        hooks.append(Hook("skillsift-index", "the committed index is fresh; rebuilt with the local model (AR9D1)",
                          ('additional_dependencies: ["skillsift[embed]"]   # the local model, in pre-commit\'s '
                           'environment',)))
    hooks.append(Hook("skillsift-eval", "the cases still pass the gates (AR9D4)"))
    return tuple(hooks)


def hook_lines(hook: Hook, dash: int) -> list[str]:
    """``hook`` as YAML lines, its ``-`` at column ``dash``."""
    head = f"{' ' * dash}- id: {hook.id}"
    return [f"{head.ljust(dash + 28)}  # {hook.comment}",
            *(f"{' ' * (dash + 2)}{line}" for line in hook.extra)]


def repo_entry_lines(dash: int, *, index: bool, step: int = 2) -> list[str]:
    """skillsift's ``repos:`` item as YAML lines, its ``-`` at column ``dash`` and its keys ``step`` further."""
    pad = " " * (dash + step)
    head = f"{' ' * dash}-{' ' * (step - 1)}repo: {repository_url()}   # where you get skillsift from"
    return [head, f"{pad}rev: {release_tag()}", f"{pad}hooks:",
            *(line for hook in snippet_hooks(index=index) for line in hook_lines(hook, dash + step + 2))]


def pre_commit_snippet(*, index: bool = False) -> str:
    """A whole ``.pre-commit-config.yaml`` with the skillsift hooks."""
    return "repos:\n" + "\n".join(repo_entry_lines(2, index=index)) + "\n"


def workflow_job_lines(cases: str, indent: int, *, extras: str = "") -> list[str]:
    """The ``skillsift`` job of the workflow as YAML lines, its key at column ``indent``."""
    extra = (f"extras: {extras}" if extras
             else "# extras: embed           # for hybrid/vector modes with the local model")
    lines = [
        "skillsift:",
        "  runs-on: ubuntu-latest",
        "  steps:",
        "    - uses: actions/checkout@v4",
        "      with:",
        "        fetch-depth: 0            # the base commit must be in the checkout: nothing is fetched",
        f"    - uses: {action_name()}@{release_tag()}  # where you get skillsift from, at a tag or commit",
        "      with:",
        f"        cases: {cases}",
        "        max-flips: 0",
        f"        {extra}",
    ]
    return [" " * indent + line for line in lines]


def workflow_snippet(cases: str, *, extras: str = "") -> str:
    """``.github/workflows/skills.yml``: the Action on every pull request, gating on ``cases``."""
    return ("name: skills\non:\n  pull_request:\npermissions:\n  contents: read\njobs:\n"
            + "\n".join(workflow_job_lines(cases, 2, extras=extras)) + "\n")
