"""One judge run: the use case ``skillsift judge``, ``eval --judge`` and ``skillsift ci`` call.

Sequence (docs/judge.md): the agent's listing (secrets withheld) -> one prompt per case -> the
cached answers -> the calls still needed, when they may be made (not a dry run; not in CI
unless allowed; a command that may run; the network allowed) under the budget, the deadline
and ``jobs`` -> the new answers kept -> the report against the ranker's result.  Nothing here
prints; the doors render :class:`JudgeRun`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..casefile.parse import Expected
from ..catalog.agents import BY_NAME, NAMES
from ..catalog.load import read_all_skills
from ..config import ENV_ALLOW_NETWORK
from ..diagnostics import SkillsiftError
from ..embed.command import command_env
from ..evaluate.session import run_view_evaluation
from ..judge.answer import CHOSEN, NO_CHOICE, NONE, Answer
from ..judge.cache import open_cache
from ..judge.prompt import TEMPLATE_VERSION, build_prompt, cache_key, judge_listing
from ..judge.report import ASKED, CACHED, MISSING, NOT_ASKED, WITHHELD, JudgeReport, Row, judge_flips
from ..judge.runner import Call, ask_all, ask_command
from ..secrets.scan import detect_secret
from ..words import plural

ENV_CI = "CI"
NO_COMMAND_HINT = 'set [judge] command, e.g. command = ["claude", "-p"] (docs/judge.md)'


@dataclass(frozen=True)
class JudgeOptions:
    agent: str = ""  # "" = [judge] agent
    context_window: int | None = None
    budget: int | None = None  # calls; None = [judge] max_calls (0 = unlimited)
    max_seconds: float = 0.0  # 0 = no limit
    jobs: int = 1
    timeout: float = 0.0  # per call; 0 = [judge] timeout_seconds
    dry_run: bool = False
    fetch: bool | None = None  # None: fetch unless CI=true (and [judge] fetch_in_ci is false)


@dataclass
class Prompt:
    case: str
    key: str
    prompt: str


@dataclass
class JudgeRun:
    report: JudgeReport
    to_ask: list[Prompt] = field(default_factory=list)  # the prompts not answered by the cache
    notes: list[str] = field(default_factory=list)
    dry_run: bool = False


def in_ci(env) -> bool:
    return env.get(ENV_CI, "").strip().lower() in ("true", "1", "yes")


def _profile(name: str):
    profile = BY_NAME.get(name)
    if profile is None:
        raise SkillsiftError(f'unknown agent "{name}"', hint=f"agents are {', '.join(NAMES)}")
    return profile


def ranker_firsts(result) -> dict[str, str]:
    """Case id -> the first skill the ranker ranked ("" for none), primary mode; {} without a ranking."""
    if result is None:
        return {}
    primary = result.primary
    out = {case.id: (case.got[0] if case.got else "") for case in primary.cases}
    out.update({negative.id: negative.top for negative in primary.negatives})
    return out


def _why_no_calls(config, opts: JudgeOptions, env) -> str:
    """Why the missing answers may not be fetched now ("" when they may)."""
    if opts.dry_run:
        return "dry run"
    fetch = opts.fetch
    if fetch is None:
        fetch = not in_ci(env) or config.judge.fetch_in_ci
    if not fetch:
        return ("cache only: CI=true (pass --fetch or set [judge] fetch_in_ci = true to call the agent in CI)"
                if opts.fetch is None else "cache only (--cache-only)")
    if not config.judge.command:
        return ("the repository's [judge] command runs only with --allow-exec or from the user config"
                if config.judge.named_command else "no [judge] command is set")
    if not config.embeddings.allow_network:
        return (f"the network is disabled: the judge sends the listing to an agent; set allow_network = true in the "
                f"[embeddings] table of the user config (or {ENV_ALLOW_NETWORK}=1)")
    return ""


def run_judge(root, config, case_file, result, opts: JudgeOptions = JudgeOptions(), *, env=None,
              cache=None) -> JudgeRun:
    """Judge ``case_file``'s cases (ranked in ``result``, or None) with the configured agent command."""
    import os

    env = os.environ if env is None else env
    named = config.judge.named_command
    if not named:
        raise SkillsiftError("no judge is configured: [judge] command is not set", hint=NO_COMMAND_HINT)
    profile = _profile(opts.agent or config.judge.agent)
    skills, _problems = read_all_skills(root, config)  # the door has reported them with the ranking
    listing = judge_listing(skills, profile, opts.context_window, config.secret_patterns)
    cache = cache if cache is not None else open_cache(root, config.judge.cache, env)
    notes = [cache.problem] if cache.problem else []
    if cache.skipped:
        notes.append(f"{cache.where}: {plural(cache.skipped, 'line')} that are not answers were skipped")
    pending, to_ask = _questions(case_file, config, named, profile.name, listing, cache)
    report = JudgeReport(agent=profile.name, command=os.path.basename(named[0]), template=TEMPLATE_VERSION,
                         listing_digest=listing.digest, rows=[], cache=cache.where,
                         mode=result.mode if result is not None else "",
                         view=(getattr(result, "view", None) or {}).get("name", "full"),
                         withheld=[{"name": w.name, "path": w.path, "kind": w.kind} for w in listing.withheld],
                         entries=dict(listing.entries))
    run = JudgeRun(report=report, to_ask=to_ask, notes=notes, dry_run=opts.dry_run)
    blocked = _why_no_calls(config, opts, env) if to_ask else ""
    answers: dict[str, Answer] = {}
    not_asked: dict[str, str] = {}
    if blocked:
        if not opts.dry_run:
            report.limits.append(f"{plural(len(to_ask), 'answer')} missing, not fetched: {blocked}")
        not_asked = {p.key: "no answer cached (not fetched)" for p in to_ask}
    elif to_ask:
        answers, not_asked = _ask(root, config, opts, env, listing, to_ask, report)
        problem = _remember(cache, answers, to_ask, case_file, profile.name)
        if problem:
            notes.append(problem)
    report.rows.extend(_rows(pending, answers, not_asked, ranker_firsts(result), blocked=bool(blocked)))
    return run


def _remember(cache, answers: dict, to_ask, case_file, agent: str) -> str:
    """Cache the final answers just fetched; returns the cache's problem in saving them ("" when none)."""
    queries = {case.id: case.query for case in case_file.cases}
    for prompt in to_ask:
        fresh = answers.get(prompt.key)
        if fresh is not None and fresh.final:
            cache.put(prompt.key, fresh, case=prompt.case, request=queries[prompt.case].strip(), agent=agent)
    return cache.save()


def _rows(pending, answers: dict, not_asked: dict, firsts: dict, *, blocked: bool) -> list[Row]:
    """One row per case: the known answer, the one fetched, or no choice (with why none was fetched)."""
    rows = []
    for case, key, known, source in pending:
        answer: Answer | None = known if known is not None else answers.get(key)
        if known is None:
            source = ASKED if answer is not None else (MISSING if blocked else NOT_ASKED)
        if answer is None:
            answer = Answer(NO_CHOICE, reason=not_asked.get(key, "no answer"))
        rows.append(Row(id=case.id, query=case.query, expected=case.expect_ids,
                        ranker_first=firsts.get(case.id, ""), answer=answer, source=source))
    return rows


def _questions(case_file, config, named, agent: str, listing, cache) -> tuple[list[tuple], list[Prompt]]:
    """``(pending, to_ask)``: per case ``(case, key, answer or None, source)`` (a withheld request, a cached
    answer, or one still missing), and the prompts to send, one per distinct key, in case order."""

    patterns = tuple(config.secret_patterns)
    pending: list[tuple] = []
    to_ask: list[Prompt] = []
    keys: set[str] = set()
    for case in case_file.cases:
        kind = detect_secret(case.query, patterns)
        if kind is not None:
            reason = f"request withheld: it looks like it holds a secret ({kind})"
            pending.append((case, "", Answer(NO_CHOICE, reason=reason), WITHHELD))
            continue
        key = cache_key(named, agent, listing.digest, case.query)
        hit = cache.get(key)
        if hit is not None and hit.choice and hit.choice not in listing.entries:
            hit = None  # a stored choice the listing does not hold was not this agent's answer: ask again
        pending.append((case, key, hit, CACHED if hit is not None else MISSING))
        if hit is None and key not in keys:
            keys.add(key)
            to_ask.append(Prompt(case.id, key, build_prompt(listing, case.query)))
    return pending, to_ask


def _ask(root, config, opts: JudgeOptions, env, listing, to_ask: list[Prompt], report: JudgeReport):
    """Send ``to_ask`` under the budget, the deadline and ``-j``: ``(answers by key, why each other key was
    not asked)``; the calls made and the limits met go into ``report``."""
    import os

    budget = config.judge.max_calls if opts.budget is None else opts.budget
    ask = ask_command(config.judge.command, root=os.fspath(root), env=command_env(config.judge.pass_env, env),
                      timeout=opts.timeout or config.judge.timeout_seconds)
    asked = ask_all([Call(p.key, p.prompt, listing.names) for p in to_ask], ask, jobs=max(1, opts.jobs),
                    budget=budget, max_seconds=opts.max_seconds)
    report.calls = asked.made
    not_asked: dict[str, str] = {}
    if asked.over_budget:
        spent = f"the budget of {plural(budget, 'call')} is spent"
        report.limits.append(f"{spent}: {plural(len(asked.over_budget), 'case')} not asked")
        not_asked.update({key: f"not asked: {spent}" for key in asked.over_budget})
    if asked.over_time:
        late = f"--max-seconds {opts.max_seconds:g} reached"
        report.limits.append(f"{late}: {plural(len(asked.over_time), 'case')} not asked")
        not_asked.update({key: f"not asked: {late}" for key in asked.over_time})
    return asked.answers, not_asked


def evaluate_and_judge(root, view, config, case_file, *, modes, k_override: int = 0,
                       opts: JudgeOptions = JudgeOptions(), env=None):
    """``(evaluation, run)``: rank ``case_file`` over ``view`` (:func:`skillsift.evaluate.session.run_view_evaluation`),
    then judge the same cases (:func:`run_judge`): ``skillsift judge``."""

    if not config.judge.named_command:  # before any ranking: nothing could be judged
        raise SkillsiftError("no judge is configured: [judge] command is not set", hint=NO_COMMAND_HINT)
    evaluation = run_view_evaluation(view, config, case_file, modes=modes, k_override=k_override)
    return evaluation, run_judge(root, config, case_file, evaluation.result, opts, env=env)


def cached_flips(head_root, head_config, head_result, base_root, base_config, base_result, case_file):
    """The agent's choices on the base and the head, read from the cache only, compared case by case
    (``skillsift ci``, ``[validate] judge_max_flips``; docs/judge.md, "The gate").

    Both sides read the head's cache file with the base's added (answers are keyed by content, so the
    union is safe); nothing is asked.  Returns :class:`~skillsift.judge.report.JudgeFlips`.
    """

    opts = JudgeOptions(fetch=False)
    cache = open_cache(head_root, head_config.judge.cache)
    cache.merge(open_cache(base_root, head_config.judge.cache))
    cache.added = 0  # read only: the merged answers are not written back
    head = run_judge(head_root, head_config, case_file, head_result, opts, cache=cache).report.rows
    base = run_judge(base_root, base_config, case_file, base_result, opts, cache=cache).report.rows
    return judge_flips(base, head)


def agent_labels(root, config, case_file, *, agent: str = "", env=None):
    """``(relabelled, run)``: ``case_file`` with each case's expected skill replaced by the agent's cached
    choice (``tune --judge``; docs/judge.md, "Calibration that feeds back").  Cache only: nothing is asked.

    A case the agent answered with a listed skill expects that skill; one it answered ``none`` becomes a
    negative case; one with no answer (or no choice) is left out.
    """
    from dataclasses import replace

    run = run_judge(root, config, case_file, None, JudgeOptions(agent=agent, fetch=False), env=env)
    by_id = {row.id: row for row in run.report.rows}
    kept = []
    for case in case_file.cases:
        answer = by_id[case.id].answer
        if answer.status == CHOSEN:
            kept.append(replace(case, expect=(Expected(id=answer.choice),), avoid=()))
        elif answer.status == NONE:
            kept.append(replace(case, expect=(), avoid=()))
    return replace(case_file, cases=tuple(kept)), run
