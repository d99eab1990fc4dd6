"""``skillsift ci``: the pull-request check (what the GitHub Action runs), also usable locally."""

from __future__ import annotations

import os

import click

from ..ci import github
from ..ci.pipeline import CiOptions, run_ci
from ..index.atomic import AtomicWriteError, write_output
from ..render.pull_request import SUMMARY_ROWS
from ..render.registry import names, render
from ..render.sanitise import plain, plain_lines
from ._common import config_option, root_option

FAIL_ON = ("error", "warning", "note", "never")
FORMATS = names("ci")
OUTPUT_EXIT = 1  # a passing run whose output file could not be written (README "Exit codes")


@click.command("ci")
@root_option
@config_option
@click.option("--cases", default="search-cases.yaml", show_default=True, type=click.Path(path_type=str),
              help="The cases file (YAML); the base is evaluated with this same file.")
@click.option("--mode", "mode_spec", default=None, metavar="MODES",
              help="Comma list of lexical, vector, hybrid, or all; the first is compared and gated. "
                   "Default: the configured mode.")
@click.option("--k", "k_override", type=click.IntRange(0, 100), default=0,
              help="Cut-off of recall@k and hit@k (0 = the cases file's k, else 5).")
@click.option("--min", "min_spec", default="", metavar="METRIC=V,...",
              help="Floors on the head's primary mode, e.g. top1=0.6,mrr=0.7.")
@click.option("--max-flips", type=click.IntRange(min=0), default=0, show_default=True,
              help="Most cases allowed to regress against the base.")
@click.option("--baseline", default="base", show_default=True, metavar="base|none|FILE",
              help="Compare with: the base commit (evaluated in a temporary git worktree), nothing, "
                   "or a result saved with 'skillsift eval --output'.")
@click.option("--base", "base_ref", default=None, metavar="REF",
              help="Base branch or commit; the merge-base with HEAD is evaluated. "
                   "Default: $GITHUB_BASE_REF (as origin/<ref>).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
              help="Lowest severity of a validation finding that fails the run.")
@click.option("--fail-on-gate-change", type=click.BOOL, is_flag=False, flag_value=True, default=False,
              metavar="[true|false]",
              help="Fail when the pull request changes its own gate: a [validate] key, the baseline file, a "
                   "case of the cases file removed or changed, or a known request of an examples file added, "
                   "removed or moved (also [validate] fail_on_gate_change).")
@click.option("--fetch-sources", is_flag=True,
              help="Fetch the commits skillsift.lock pins for [[sources]], the head's and the base's, before "
                   "evaluating (the only network use of ci; docs/sources.md).")
@click.option("--summary", "summary_file", default=None, envvar="GITHUB_STEP_SUMMARY",
              type=click.Path(dir_okay=False, path_type=str),
              help="Append the Markdown report, capped at 1 MiB, to FILE "
                   "(default: $GITHUB_STEP_SUMMARY; without either it goes to stdout).")
@click.option("--report-file", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Also write the full report (no cap) to FILE.")
@click.option("--sarif-file", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Also write the regressed cases and the validation findings as SARIF 2.1.0 to FILE "
                   "(for GitHub code scanning).")
@click.option("--github-output", default=None, envvar="GITHUB_OUTPUT", type=click.Path(dir_okay=False, path_type=str),
              help="Append step outputs (key=value) to FILE (default: $GITHUB_OUTPUT).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="markdown", show_default=True,
              help="What goes to stdout: the Markdown report (when no --summary file is set) or the whole "
                   "result as JSON (ci.v1, skillsift/schemas/ci.v1.json).")
@click.option("--quiet", "-q", "quiet", is_flag=True,
              help="Print only the verdict line and errors (files, the job summary and annotations are written as "
                   "usual).")
@click.option("--preset", type=click.Choice(("recommended", "strict", "")), default="",
              help="Checks the validation runs: recommended or strict (the opt-in checks too); empty (the default): "
                   "[validate] preset.")
@click.option("--annotations/--no-annotations", default=None,
              help="Print ::error/::warning annotations (default: on when GITHUB_ACTIONS=true).")
def ci_command(root, config_file, cases, mode_spec, k_override, min_spec, max_flips, baseline, base_ref, fail_on,
               fail_on_gate_change, fetch_sources, summary_file, report_file, sarif_file, github_output, fmt, quiet,
               preset, annotations):
    """Evaluate the head, compare it with the base, validate, and report for a pull request.

    The base is the merge-base of HEAD and the base branch (--base, else $GITHUB_BASE_REF),
    checked out into a temporary git worktree and evaluated by this skillsift with the
    head's config file and the head's cases file, so case ids line up; skills of [[sources]]
    are those each commit's own skillsift.lock pins.  No network is used unless
    --fetch-sources is given: the checkout must hold the base (fetch-depth: 0).

    \b
    The report lists the metrics base vs head with the paired difference, the cases
    that regressed or got fixed (rank before -> after), every other rank change, and
    the validation findings.

    \b
    Exit codes: 0 passed; 1 could not run (flags, config, cases file, base or
    baseline), or a passing run whose output file could not be written (the other
    outputs are still written); 2 a --min floor failed, more than --max-flips cases
    regressed, a gate change was refused (--fail-on-gate-change), or a validation
    finding at or above --fail-on.
    """
    if annotations is None:
        annotations = os.environ.get("GITHUB_ACTIONS", "") == "true"
    opts = CiOptions(root=root, config_file=config_file, cases=cases, modes=mode_spec, k=k_override,
                     min_spec=min_spec, max_flips=max_flips, baseline=baseline, base_ref=base_ref,
                     env_base_ref=os.environ.get("GITHUB_BASE_REF"), fail_on=fail_on,
                     fail_on_gate_change=fail_on_gate_change, fetch_sources=fetch_sources, preset=preset or None)
    run, place = run_ci(opts)
    for note in () if quiet else run.notes:
        click.echo(f"note: {plain(note)}", err=True)
    failed = _outputs(run, place.prefix if place else "", report_file, sarif_file, summary_file, github_output, fmt,
                      quiet=quiet, annotations=annotations)
    _closing(run, failed, fmt)
    return run.exit_code() or (OUTPUT_EXIT if failed else 0)


def _outputs(run, prefix: str, report_file, sarif_file, summary_file, github_output, fmt: str, *, quiet: bool,
             annotations: bool) -> list[str]:
    """Write the report, SARIF, job summary and step outputs, and print what goes to the terminal; returns
    the output files that could not be written (the others still are)."""
    full = render("ci", "markdown", run)
    failed: list[str] = []

    def write(option: str, path: str, text: str, *, append: bool = False) -> bool:
        try:
            write_output(path, text.encode("utf-8"), append=append, force=None)
        except AtomicWriteError as exc:
            failed.append(f"{option}: {exc.message}")
            return False
        return True

    report_path = ""
    if report_file and write("--report-file", report_file, full):
        report_path = os.path.abspath(report_file)
    sarif_path = ""
    if sarif_file and write("--sarif-file", sarif_file, github.render_sarif(run, prefix=prefix)):
        sarif_path = os.path.abspath(sarif_file)
    if annotations:
        click.echo(github.render_annotations(run, prefix=prefix), nl=False, err=fmt == "json")
    if summary_file:
        summary = github.summary_text(summary_file, render("ci", "markdown", run, max_rows=SUMMARY_ROWS))
        write("--summary", summary_file, summary, append=True)
    elif fmt == "markdown" and not quiet:
        click.echo(plain_lines(full), nl=False)
    if fmt == "json":
        click.echo(render("ci", "json", run), nl=False)
    if github_output:
        write("--github-output", github_output, github.format_outputs(github.outputs_of(run, report_path, sarif_path)),
              append=True)
    return failed


def _closing(run, failed: list[str], fmt: str) -> None:
    """The error, the files that could not be written, and the verdict line."""

    if run.error:
        click.echo(f"error: {plain(run.error)}", err=True)
        if run.error_hint:
            click.echo(f"hint: {plain(run.error_hint)}", err=True)
    for failure in failed:
        click.echo(f"error: cannot write an output file: {plain(failure)}", err=True)
    if failed:
        click.echo("hint: check that each output path is a writable file (not a directory) and that the disk has "
                   "room", err=True)
    click.echo(f"skillsift ci: {plain(run.verdict())}", err=fmt == "json")
