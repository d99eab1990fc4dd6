"""``skillsift init``: a first configuration, draft cases, the hooks and the gate, merged into what exists."""

from __future__ import annotations

import difflib
import os

import click

from ..diagnostics import SkillsiftError
from ..render.sanitise import plain, plain_lines
from ..usecases.starter.apply import apply
from ..usecases.starter.project import detect, plan
from ..words import plural
from ._common import root_option


@click.command("init")
@root_option
@click.option("--write", "write", is_flag=True,
              help="Write the changes (without it, init shows them as a diff and writes nothing).")
def init_command(root, write):
    """Set skillsift up in a repository: skillsift.toml (the detected folders, agents and search
    mode), a search-cases.yaml of draft cases from the skills, the pre-commit hooks and the
    pull-request workflow pinned to this version, and, with --write, the index (hybrid mode),
    a baseline of the drafts and the flip gate that guards it.

    Files that exist gain only what they lack: every other line, comment and order stays, a
    file that cannot be edited safely is left as it is with the lines to paste, and a second
    run changes nothing.  Without --write the changes are shown as a diff.

    \b
    Exit codes: 0 done (also when there was nothing to add); 1 no skill found, or a
    --root that is not a directory.
    """
    if not os.path.isdir(root):
        raise SkillsiftError(f"--root {root} is not a directory")
    layout = detect(root)
    where = ", ".join(layout.roots) or "configured folders"
    agents = f" (read by {', '.join(layout.agents)})" if layout.agents else ""
    click.echo(plain(f"skillsift init: {plural(len(layout.skills), 'skill')} under {where}{agents}"))
    if not layout.drafts:
        click.echo("no skill says what it is for: no cases drafted; write search-cases.yaml by hand "
                   "(docs/evaluation.md)")
    chosen = plan(layout)
    click.echo(f"search mode: {layout.mode_note}" if chosen.mode == layout.mode else
               f"search mode: {chosen.mode} (kept from the configuration)")
    if write:
        _write(chosen, root)
    else:
        _dry_run(chosen)
    return 0


def _write(chosen, root: str) -> None:
    """Apply the plan and say what was written, what to paste by hand, what comes next and what is guarded."""
    applied = apply(chosen)
    for line in applied.lines:
        click.echo(plain(line))
    for change in chosen.changes:
        if change.new is None and change.paste:
            click.echo(plain(f"add to {change.path} by hand:"))
            click.echo(plain_lines("\n".join(change.paste) + "\n"), nl=False)
    if chosen.mode == "hybrid":
        click.echo("commit .skillsift/index/ with the skills: the hooks and the Action rank with it")
    guarded = os.path.isfile(os.path.join(root, "eval-baseline.json")) and chosen.baseline_file
    click.echo("next: review the drafts in search-cases.yaml, then save a new baseline "
               "(skillsift eval search-cases.yaml --output eval-baseline.json) and commit" if guarded else
               "next: skillsift validate && skillsift eval search-cases.yaml")
    click.echo("")
    for line in applied.guarded:  # the last lines: what is guarded from the first commit
        click.echo(plain(line))


def _dry_run(chosen) -> None:
    """Show each change as a diff (or why a file is kept, with the lines to paste), and write nothing."""
    for change in chosen.changes:
        if change.new is None:
            click.echo(plain(f"would keep {change.path}: {change.why}"))
            if change.paste:
                click.echo(plain(f"  add these lines to {change.path} by hand:"))
                click.echo(plain_lines("\n".join(change.paste) + "\n"), nl=False)
            continue
        if not change.changes:
            click.echo(plain(f"would keep {change.path}: it has what init adds"))
            continue
        old = change.old.decode("utf-8", "replace").splitlines(keepends=True) if change.old is not None else []
        diff = difflib.unified_diff(old, change.new.splitlines(keepends=True),
                                    "/dev/null" if change.old is None else f"a/{change.path}", f"b/{change.path}")
        click.echo(plain(f"would {'write' if change.old is None else 'update'} {change.path} ({change.what}):"))
        click.echo(plain_lines("".join(line if line.endswith("\n") else line + "\n" for line in diff)), nl=False)
    for note in chosen.notes:
        click.echo(plain(note))
    if chosen.mode == "hybrid":
        click.echo("would build the index .skillsift/index/ with the local model (commit it)")
    if chosen.baseline_file:
        click.echo(f"would evaluate {chosen.cases_file} and write {chosen.baseline_file}, then turn on the flip "
                   "gate: a case found in the top k that drops out fails the eval hook and the Action")
    click.echo("dry run: nothing written; apply with skillsift init --write")
