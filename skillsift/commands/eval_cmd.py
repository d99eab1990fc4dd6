"""``skillsift eval``: measure the ranking on labelled queries and gate on it."""

from __future__ import annotations

import click

from ._common import config_option, root_option

FORMATS = ("text", "json", "junit", "markdown")


def open_ranker(catalog, config, want_vectors: bool):
    """The ranker the evaluation runs through.

    This is the single place where a vector index and an embedding provider are attached
    for vector/hybrid evaluation; without them ``index_info()`` is None and such a run
    is refused before any case is ranked.
    """
    from ..ranker.search import Ranker

    if not want_vectors:
        return Ranker(catalog, config)
    # The evaluation waits for each query embedding as long as the provider allows:
    # a per-query deadline would turn a slow machine into degraded cases.
    return Ranker.open(catalog, config, mode="hybrid", query_timeout_ms=0)


def _role_resolver(catalog, config):
    from ..catalog import select

    def resolve(role: str):
        return [catalog.skills[i].name for i in select(catalog, roles=config.roles, role=role)]

    return resolve


def _with_skill_cases(case_file, catalog, roles_configured, resolve):
    """``case_file`` (or nothing) with the cases derived from the skills' frontmatter appended."""
    from ..diagnostics import SkillsiftError
    from ..evaluate.from_skills import NO_CASES, NO_CASES_HINT, RoleCheck, load_skill_cases, merge_cases

    derived = load_skill_cases(catalog, RoleCheck(configured=roles_configured, resolve=resolve))
    merged, added, skipped = merge_cases(case_file, derived)
    click.echo(f"from-skills: {added} cases derived, {skipped} skipped (id taken)", err=True)
    if not merged.cases:
        raise SkillsiftError(NO_CASES, hint=NO_CASES_HINT)
    return merged


@click.command("eval")
@click.argument("cases", type=click.Path(path_type=str), required=False)
@root_option
@config_option
@click.option("--mode", "mode_spec", default=None, metavar="MODES",
              help="Comma list of lexical, vector, hybrid, or all; the first is primary (gated). "
                   "Default: the configured mode.")
@click.option("--k", "k_override", type=int, default=0, show_default=True,
              help="Cut-off of recall@k, hit@k and ndcg@k (1-100; 0 = the file's k, else 5).")
@click.option("--min", "min_spec", default="", metavar="METRIC=V,...",
              help="Floors on the primary mode, e.g. top1=0.6,mrr=0.7 (top1, recall, hit, mrr, ndcg).")
@click.option("--baseline", default=None, type=click.Path(path_type=str),
              help="A result saved with --output: list cases that regressed or got fixed.")
@click.option("--max-flips", type=int, default=None,
              help="Most cases allowed to regress against --baseline (default 0).")
@click.option("--output", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Write the JSON result here (never for a run whose embeddings fell back).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--from-skills", is_flag=True,
              help="Add the cases the skills list in their frontmatter (examples / not_for); "
                   "alone, CASES may be left out.")
@click.option("--why", is_flag=True,
              help="After the report, explain each missed case and propose triggers that fix a case and "
                   "break none (text format).")
def eval_command(cases, root, config_file, mode_spec, k_override, min_spec, baseline, max_flips, output, fmt,
                 from_skills, why):
    """Rank the labelled queries of CASES (YAML) and report top1, recall@k, hit@k, MRR, nDCG.

    With --from-skills, each skill's frontmatter `examples` (queries it must answer) and
    `not_for` (queries it must not rank first for) become cases too, with ids
    <skill>/example-N and <skill>/not-for-N, tagged from-skills.

    \b
    Exit codes: 0 every gate passed; 1 the evaluation could not run (bad flags,
    invalid cases file (AR9D2), unknown skill, unreadable or incomparable baseline,
    a vector/hybrid mode without a usable index, or any case whose embeddings fell
    back to lexical); 2 a gate failed (AR9D4 on stderr).
    """
    from ..diagnostics import SkillsiftError
    from ..evaluate.cases import check_catalog, check_k, load_cases
    from ..evaluate.gates import compare_baseline, gate_failures, load_baseline, parse_minimums
    from ..evaluate.report import render, render_json
    from ..evaluate.run import (
        DEGRADED_HINT,
        LEXICAL,
        degraded_message,
        evaluate,
        needs_index_error,
        parse_modes,
    )
    from ._common import load_project

    if cases is None and not from_skills:
        raise SkillsiftError("eval needs a cases file, --from-skills, or both",
                             hint="skillsift eval search-cases.yaml, or skillsift eval --from-skills")
    check_k(k_override)
    if max_flips is not None and baseline is None:
        raise SkillsiftError("--max-flips needs --baseline: it limits the cases that regressed against one",
                             hint="Save a baseline with --output, then pass --baseline FILE")
    if max_flips is not None and max_flips < 0:
        raise SkillsiftError(f"--max-flips must not be negative, got {max_flips}")
    minimums = parse_minimums(min_spec)
    if why and fmt != "text":
        raise SkillsiftError("--why prints text: use it with --format text")
    config, catalog = load_project(root, config_file)
    modes = parse_modes(mode_spec, config.search.mode)
    case_file = load_cases(cases) if cases is not None else None
    roles_configured = bool(config.roles) or any(s.roles for s in catalog.skills)
    if from_skills:
        case_file = _with_skill_cases(case_file, catalog, roles_configured, _role_resolver(catalog, config))
    check_catalog(case_file, catalog.names, roles_configured=roles_configured,
                  resolve=_role_resolver(catalog, config))
    want_vectors = any(m != LEXICAL for m in modes)
    ranker = open_ranker(catalog, config, want_vectors)
    index_info = ranker.index_info() if want_vectors else None
    if want_vectors and index_info is None:
        raise needs_index_error(modes)
    k = case_file.effective_k(k_override)
    result = evaluate(case_file, ranker, k=k, modes=modes, index_info=index_info)
    if baseline is not None:
        base = load_baseline(baseline)
        result.flips = compare_baseline(base, mode=result.mode, k=result.k, cases=result.primary.cases)
    result.gate_failures = gate_failures(result.primary.metrics.gated(), minimums, result.flips,
                                         (max_flips or 0) if baseline is not None else -1)
    degraded = degraded_message(result)
    if output and not degraded:
        from ..index.atomic import write_atomic

        write_atomic(output, render_json(result).encode("utf-8"))
    click.echo(render(result, fmt), nl=False)
    if why and not degraded:
        from ..evaluate import whynot

        rep = whynot.report(ranker, case_file.cases, result.mode, whynot.rerank_factory(ranker, config))
        click.echo("\n" + whynot.render_text(rep), nl=False)
    if degraded:
        # The numbers would not measure the ranking asked for: never a pass, never a baseline.
        click.echo(degraded, err=True)
        click.echo(DEGRADED_HINT, err=True)
        return 1
    for failure in result.gate_failures:
        click.echo(failure, err=True)
    return 2 if result.gate_failures else 0
