"""``skillsift init``: a first configuration, a draft cases file and the hook snippets."""

from __future__ import annotations

import click

from ._common import root_option


@click.command("init")
@root_option
@click.option("--write", "write_hooks", is_flag=True,
              help="Also add .pre-commit-config.yaml and .github/workflows/skills.yml (only where missing).")
def init_command(root, write_hooks):
    """Set skillsift up in a repository: skillsift.toml (the detected folders and agents), a
    search-cases.yaml of draft cases from what the skills say about when to use them, and the
    pre-commit and workflow snippets pinned to this version (printed, or added with --write).

    Never overwrites a file: a second run changes nothing.

    \b
    Exit codes: 0 done (also when every file existed); 1 no skill found, or a
    --root that is not a directory.
    """
    import os

    from ..diagnostics import SkillsiftError
    from ..starter.project import PRE_COMMIT_FILE, WORKFLOW_FILE, detect, starter_files, write_new
    from ..starter.snippets import pre_commit_snippet, release_tag, workflow_snippet
    from ..words import plural

    if not os.path.isdir(root):
        raise SkillsiftError(f"--root {root} is not a directory")
    layout = detect(root)
    where = ", ".join(layout.roots) or "configured folders"
    agents = f" (read by {', '.join(layout.agents)})" if layout.agents else ""
    click.echo(f"skillsift init: {plural(len(layout.skills), 'skill')} under {where}{agents}")
    if layout.config_file:
        click.echo(f"kept {layout.config_file}: the project is configured there")
    if not layout.drafts:
        click.echo("no skill says when to use it (\"Use when ...\", a \"When to use\" section): no cases drafted; "
                   "write search-cases.yaml by hand (docs/evaluation.md)")
    for starter, outcome in write_new(root, starter_files(layout, hooks=write_hooks)):
        if outcome == "wrote":
            click.echo(f"wrote {starter.path} ({starter.what})")
        else:  # "kept: why"
            click.echo(f"kept {starter.path}{outcome.removeprefix('kept')}")
    if not write_hooks:
        click.echo("")
        click.echo(f"{PRE_COMMIT_FILE} (pinned to {release_tag()}; --write adds it where missing):")
        click.echo(pre_commit_snippet(index=layout.has_index), nl=False)
        click.echo("")
        click.echo(f"{WORKFLOW_FILE} (--write adds it where missing):")
        click.echo(workflow_snippet("search-cases.yaml", extras="embed" if layout.has_index else ""), nl=False)
    click.echo("")
    click.echo("next: review the drafts in search-cases.yaml, then: skillsift validate && skillsift eval "
               "search-cases.yaml" if layout.drafts else "next: skillsift validate")
    return 0
