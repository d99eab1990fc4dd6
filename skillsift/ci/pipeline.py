"""One ``skillsift ci`` run: evaluate the head, obtain the base, compare, validate.

The head is the working tree at ``root``.  The base is either

* ``base``: the merge-base of HEAD and the base branch, checked out into a temporary
  worktree and evaluated by this same skillsift with the **head's** config file and the
  **head's** cases file (so both runs rank the same cases with the same settings, and a
  case's id means the same query on both sides); or
* a path: a result saved with ``skillsift eval --output`` (a committed baseline); or
* ``none``: no comparison.

Problems that stop the head's evaluation (flags, config, cases file, a missing index, a
missing base) end up in :attr:`CiRun.error` rather than being raised, so the report and
the outputs are written in every case.  A base commit that cannot be evaluated (for
instance no committed index yet for a vector mode) only drops the comparison, with a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..checks.gates import dropped_ids, regressed_ids
from ..config import check_root, load_config
from ..diagnostics import Diagnostic, SkillsiftError, sort_diagnostics
from ..evaluate.cases import load_cases
from ..evaluate.compare import compare
from ..evaluate.gates import load_baseline, parse_minimums
from ..evaluate.outcomes import side_from_document, side_from_result
from ..evaluate.run import degraded_hint, parse_modes
from ..evaluate.session import run_evaluation, with_catalog_problems
from ..evaluate.verdict import FAIL_ON, CiRun
from ..files import glob_magic, link_leaves
from ..skill_sources.configured import open_config
from ..skill_sources.sync import SourcesError, cache_folder, fetch_locked, lock_path
from ..usecases.judge_run import cached_flips
from ..usecases.project import open_project
from ..validators.runner import run_checks
from ..validators.workspace import Workspace, rel_posix
from . import gitbase
from .gate_review import read_base_gate

if TYPE_CHECKING:
    from ..config import Config
    from ..evaluate.cases import CaseFile

BASE, NONE = "base", "none"
EMPTY_CONFIG = "skillsift.toml"


@dataclass(frozen=True)
class CiOptions:
    root: str = "."
    config_file: str | None = None
    cases: str = "search-cases.yaml"
    modes: str | None = None
    k: int = 0
    min_spec: str = ""
    max_flips: int = 0
    baseline: str = BASE  # "base", "none" or the path of a saved result
    base_ref: str | None = None  # --base
    env_base_ref: str | None = None  # GITHUB_BASE_REF
    fail_on: str = "error"
    fail_on_gate_change: bool = False  # --fail-on-gate-change
    preset: str | None = None  # --preset; None = [validate] preset
    fetch_sources: bool = False  # --fetch-sources: the locked commits of [[sources]], head's and base's


@dataclass
class Prepared:
    """What the head's evaluation resolved and the base's reuses."""

    config: Config | None = None
    case_file: CaseFile | None = None
    modes: list = field(default_factory=list)
    minimums: dict = field(default_factory=dict)
    catalog: object = None  # the head's skills (their frontmatter requests and names are compared with the base's)


def _rel(path: str, root: str) -> str:
    return rel_posix(os.path.abspath(path), root)


def _evaluate(config, catalog, case_file, modes, k_override: int, *, strict: bool, minimums=None):
    """One evaluation run over the catalog; raises SkillsiftError when it cannot measure."""

    evaluation = run_evaluation(catalog, config, case_file, modes=modes, k_override=k_override,
                                minimums=minimums, strict=strict, lenient_roles=not strict)
    if evaluation.degraded:
        raise SkillsiftError(evaluation.degraded, hint=evaluation.degraded_hint or degraded_hint(config))
    return evaluation


def evaluate_head(opts: CiOptions, root: str, prepared: Prepared, notes: list[str]):
    prepared.minimums = parse_minimums(opts.min_spec)
    if opts.fetch_sources:
        _fetch_sources(root, opts.config_file)
    config = open_config(root, opts.config_file)
    notes.extend(config.notes)  # the report shows them; the catalog's findings are the validation's
    prepared.config = config
    prepared.modes = parse_modes(opts.modes, config.search.mode)
    try:
        prepared.case_file = load_cases(opts.cases)
    except SkillsiftError as exc:  # the unknown skills and roles of the cases join the same round
        raise with_catalog_problems(exc, open_project(root, config=config).catalog, config.roles) from None
    catalog = open_project(root, config=config).catalog
    prepared.catalog = catalog
    return _evaluate(config, catalog, prepared.case_file, prepared.modes, opts.k, strict=True,
                     minimums=prepared.minimums)


def base_config_path(base_root: str, head_root: str, opts: CiOptions, head_config) -> str:
    """The config file the base is evaluated with: the head's, placed where the base would look for it.

    ``--config FILE`` is used as given.  Otherwise the head's project config file is copied
    to the same path in the base worktree (so relative settings resolve the same way), or,
    when the head has none, an empty ``skillsift.toml`` there makes the base use the defaults
    too.
    """
    if opts.config_file:
        return os.path.abspath(opts.config_file)
    rel = head_config.project_file if head_config is not None else ""
    target = os.path.join(base_root, rel or EMPTY_CONFIG)
    data = b""
    if rel:
        with open(os.path.join(head_root, rel), "rb") as fh:
            data = fh.read()
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as fh:
        fh.write(data)
    return target


def load_base(base_root: str, head_root: str, opts: CiOptions, prepared: Prepared):
    """The base worktree's config (the head's, placed there) and skills."""

    config_path = base_config_path(base_root, head_root, opts, prepared.config)
    if opts.fetch_sources:
        _fetch_sources(base_root, config_path, as_locked=True)
    # the base's skills from other repositories are those its own skillsift.lock pins (docs/sources.md)
    project = open_project(base_root, config_path, sources_as_locked=True)
    return _base_examples(project.config), project.catalog


def _base_examples(config):
    """The head's config as the base reads it: an examples file the head's ``[search] examples`` names and the
    base does not hold yet is no file there (the pull request adds it), not an error that leaves the base
    unevaluated and the comparison out (its requests are gate changes: gate_review.py)."""
    if config is None or not config.search.examples:
        return config
    root = config.root
    kept = tuple(p for p in config.search.examples
                 if glob_magic(p) or os.path.lexists(os.path.join(root, p.replace("\\", "/").strip())))
    if kept == tuple(config.search.examples):
        return config
    return replace(config, search=replace(config.search, examples=kept))


def _fetch_sources(root: str, config_file: str | None, *, as_locked: bool = False) -> None:
    """``skillsift sources fetch`` for ``root`` (``--fetch-sources``): the locked commits into the cache."""

    config = load_config(root, config_file=config_file)
    if not (config.skill_sources or as_locked) or not lock_path(config).is_file():
        return
    try:
        fetch_locked(config, cache_folder(), as_locked=as_locked)
    except SourcesError as exc:
        raise SkillsiftError(f"skill sources: {exc}",
                             hint="run `skillsift sources update` and commit the lock") from None



def evaluate_base(config, catalog, opts: CiOptions, prepared: Prepared):
    """The base worktree evaluated with the head's config and cases, in the primary mode."""
    return _evaluate(config, catalog, prepared.case_file, prepared.modes[:1], opts.k, strict=False).result


def _validation(root: str, opts: CiOptions) -> list[Diagnostic]:
    ws = Workspace(root, config_file=opts.config_file)
    ws.verify_every_row = True  # a pull request's vectors are all embedded again (docs/index-format.md)
    return run_checks(ws, preset=opts.preset)


def _merge(findings: list[Diagnostic], extra: list[Diagnostic]) -> list[Diagnostic]:
    seen = {(d.file, d.line, d.code, d.message) for d in findings}
    return sort_diagnostics([*findings, *(d for d in extra if (d.file, d.line, d.code, d.message) not in seen)])


def run_ci(opts: CiOptions) -> tuple[CiRun, gitbase.RepoPlace | None]:
    """Run everything; a SkillsiftError becomes ``run.error``, except a root that is not a directory.

    That one raises :class:`~skillsift.config.RootNotFound` before git runs there (the one
    root check of every command, README "Exit codes").
    """

    check_root(opts.root)
    root = os.path.abspath(opts.root)
    fail_on = opts.fail_on if opts.fail_on in FAIL_ON else "error"
    run = CiRun(cases_path=_rel(opts.cases, root), fail_on=fail_on, max_flips=max(opts.max_flips, 0))
    place = gitbase.locate(root)
    prepared = Prepared()
    extra: list[Diagnostic] = []
    leaving = _links_out(opts, root)
    if leaving:
        run.error = (f"{leaving} is a symbolic link to a file outside the repository; skillsift ci reads only "
                     "files the repository holds")
        run.error_hint = f"replace the link {leaving} with the file itself"
        return run, place
    try:
        evaluation = evaluate_head(opts, root, prepared, run.notes)
        head = evaluation.result
        run.head, run.mode, run.k = head, head.mode, head.k
        run.floor_failures = evaluation.gate_failures
        run.minimums = dict(prepared.minimums)
        settings = prepared.config.validate if prepared.config is not None else None
        run.fail_on_gate_change = opts.fail_on_gate_change or bool(settings and settings.fail_on_gate_change)
        run.validate_gates = _gates_in_words(settings)
        _compare(run, opts, root, place, prepared)
    except SkillsiftError as exc:
        run.error, run.error_hint = exc.message, exc.hint
        extra = [_on_cases(d, opts.cases, run.cases_path) for d in exc.diagnostics if d.code != "AR9D0"]
    run.findings = _merge(_without_repeats(_validation(root, opts), run), extra)
    return run, place


def _gates_in_words(settings) -> str:
    """The ``[validate]`` gates validation applies (AR9D4), e.g. ``min top1=0.6; baseline b.json, max_flips 0``."""
    if settings is None or not settings.gates_configured:
        return ""
    parts = []
    if settings.min_spec:
        parts.append(f"min {settings.min_spec}")
    if settings.baseline:
        drops = f", max_rank_drops {settings.max_rank_drops}" if settings.max_rank_drops >= 0 else ""
        parts.append(f"baseline {settings.baseline}, max_flips {settings.max_flips}{drops}")
    return "; ".join(parts)


CONFIG_NAMES = ("skillsift.toml", "pyproject.toml", ".ai-rulez/config.toml")


def _links_out(opts: CiOptions, root: str) -> str:
    """The config or cases file (as shown) that a symbolic link takes outside the repository, else ""."""

    candidates = [opts.config_file] if opts.config_file else [os.path.join(root, name) for name in CONFIG_NAMES]
    for path in [*candidates, opts.cases]:
        if path and link_leaves(path, root):
            return _rel(path, root)
    return ""


def _without_repeats(findings: list[Diagnostic], run: CiRun) -> list[Diagnostic]:
    """Leave out the validation findings of case regressions this run's comparison already reports.

    With ``[validate] baseline`` set, validation (AR9D4) ranks the same cases against that
    baseline; a case the comparison lists as regressed (or, for ``max_rank_drops``, as
    regressed or moved down) is one finding, reported once.
    """
    if run.comparison is None:
        return findings

    c = run.comparison
    shown = {change.id for change in c.regressed}
    worse = shown | {change.id for change in c.moved if change.worse}
    kept: list[Diagnostic] = []
    folded: list[Diagnostic] = []
    for d in findings:
        listed = (regressed_ids(d) and set(regressed_ids(d)) <= shown) or (dropped_ids(d) and
                                                                          set(dropped_ids(d)) <= worse)
        (folded if listed else kept).append(d)
    # a gate that failed still fails the run: its cases are listed once, in the comparison's tables
    # (unless the comparison's own flip gate already fails on them)
    blocking = set(CiRun(findings=folded, fail_on=run.fail_on).blocking_findings())
    if not run.flips_failed:
        run.gate_failures = [d.message for d in folded if d in blocking and (regressed_ids(d) or dropped_ids(d))
                             and not d.message.startswith("case ")]
    return kept


def _on_cases(diag: Diagnostic, given: str, shown: str) -> Diagnostic:
    from dataclasses import replace

    return replace(diag, file=shown) if diag.file == given else diag


def _compare(run: CiRun, opts: CiOptions, root: str, place, prepared: Prepared) -> None:
    head_side = side_from_result(run.head, "head")
    assert prepared.case_file is not None  # evaluate_head loaded it before any comparison
    lines = {case.id: case.line for case in prepared.case_file.cases}
    baseline = (opts.baseline or BASE).strip()
    if baseline == NONE:
        return
    if baseline != BASE:
        run.base_word = "baseline"
        shown = _rel(baseline, root)
        run.base_label = f"the baseline {shown}"
        doc = load_baseline(baseline)
        run.comparison = compare(side_from_document(doc, shown), head_side, lines)
        return
    candidates = gitbase.base_candidates(opts.base_ref, opts.env_base_ref)
    if not candidates:
        run.notes.append("Nothing to compare with: not a pull request (GITHUB_BASE_REF is unset) and no --base "
                         "was given.")
        return
    if place is None:
        raise SkillsiftError(f"{root} is not inside a git repository, so there is no base commit to compare with",
                             hint="pass --baseline FILE or --baseline none")
    base = gitbase.find_base(root, candidates)
    run.changed_files, run.prefix = gitbase.changed_files(root, base.sha), place.prefix
    run.base_label = f"base {base.short} (merge-base with {base.ref})"
    with gitbase.worktree(root, base.sha) as tree:
        base_root = os.path.join(tree, place.prefix)
        # the base's own config and cases, read before the head's config is copied over them

        gate = read_base_gate(base_root, root, opts, run.notes)
        run.fail_on_gate_change = run.fail_on_gate_change or gate.fail_on_change  # the base's word counts too
        base_catalog = None
        try:
            base_config, base_catalog = load_base(base_root, root, opts, prepared)
            result = evaluate_base(base_config, base_catalog, opts, prepared)
            _judge_gate(run, root, base_root, prepared, result, base_config)
            results = _base_case_results(gate.weakened_cases(prepared.case_file), base_config, base_catalog, opts,
                                         prepared)
        except SkillsiftError as exc:
            run.notes.append(f"The base commit {base.short} could not be evaluated, so nothing was compared: "
                             f"{exc.message.replace(tree, '<base>')}")
            run.gate_changes = gate.changes(root, opts, prepared, {}, base_catalog)
            return
        run.gate_changes = gate.changes(root, opts, prepared, results, base_catalog)
    run.comparison = compare(side_from_result(result, run.base_label), head_side, lines)


def _judge_gate(run: CiRun, root: str, base_root: str, prepared: Prepared, base_result, base_config) -> None:
    """``[validate] judge_max_flips``: the agent's cached choices on the base and the head (docs/judge.md)."""
    config = prepared.config
    if config is None or config.validate.judge_max_flips < 0 or run.head is None or prepared.case_file is None:
        return
    settings = config.validate
    if not config.judge.named_command:
        run.notes.append("[validate] judge_max_flips is set but [judge] command is not: the judge gate was skipped")
        return

    flips = cached_flips(root, config, run.head, base_root, base_config, base_result, prepared.case_file)
    run.judge_max_flips, run.judge_compared = settings.judge_max_flips, True
    run.judge_regressed, run.judge_fixed = list(flips.regressed), list(flips.fixed)
    run.judge_unknown, run.judge_base_unanswered = list(flips.unknown), flips.base_unanswered


def _base_case_results(case_file, config, catalog, opts: CiOptions, prepared: Prepared) -> dict[str, str]:
    """How the base ranks the cases its own cases file holds that the head removed or changed."""
    if case_file is None or not case_file.cases:
        return {}
    try:
        result = _evaluate(config, catalog, case_file, prepared.modes[:1], opts.k, strict=False).result
    except SkillsiftError:
        return {}
    out = {}
    for case in result.primary.cases:
        out[case.id] = f"rank {case.rank}" if case.rank is not None else "not retrieved"
    for negative in result.primary.negatives:
        out[negative.id] = f"negative: {negative.top} first" if negative.top else "negative: nothing ranked"
    return out
