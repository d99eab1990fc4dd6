"""``skillsift hook index``: the committed index matches the skills (AR9D1).

With a provider that runs on this machine (``local``, or a ``command`` from the user
config) the hook rebuilds the index when it is missing, out of date or stale, and exits 1
when the files changed, so the user stages them and commits again (as formatters do).
With a remote provider it only reports AR9D1 and names the command to run.  It runs on
every commit (``always_run``): deleting a skill leaves a row to drop.  An index kept under
``.skillsift/local`` is machine-local and not checked.  While a served SKILL.md does not
parse (SK001) nothing is rebuilt: the hook says to fix the frontmatter first, and fails for it
only when no ``skillsift-frontmatter`` or ``skillsift-validate`` hook reports the SK001.
"""

from __future__ import annotations

import sys

from ..checks.index import REBUILD, check_workspace, names_shown
from ..diagnostics import SkillsiftError
from ..render.sanitise import plain
from ._common import frontmatter_failed_elsewhere, parse_args, report, workspace

REBUILDS = ("local", "command")
# what makes the local model available inside the hook's own environment: pre-commit runs
# ``pip install . <additional_dependencies>`` in the hook repository, so ``skillsift[embed]``
# adds this package's extra to the checkout being installed (docs/hooks.md)
PRE_COMMIT_HINT = ('the hook runs in pre-commit\'s own environment, which has no local model: add '
                   '`additional_dependencies: ["skillsift[embed]"]` under `- id: skillsift-index` in '
                   ".pre-commit-config.yaml (pre-commit rebuilds the hook's environment on the next commit)")


def what_was_wrong(message: str) -> str:
    """An AR9D1 message without its advice ("; rebuild it with ..."): the hook has just done that."""

    text = message.removeprefix("search: ")
    for advice in (f"; {REBUILD}", "; run 'skillsift index' and commit it"):
        text = text.removesuffix(advice)
    return text


def _hints(provider: str, hint: str) -> list[str]:
    out = [hint] if hint else []
    if provider == "local":
        from ..embed.local import local_model_available

        if not local_model_available()[0]:
            out.append(PRE_COMMIT_HINT)
    return out


def _not_refreshed(diagnostics, args, ws, provider: str, why: str, hint: str) -> int:
    report(diagnostics, args.fmt, root=ws.root)
    print(plain(f"skillsift-index: the index was not refreshed and nothing was written: {why}"), file=sys.stderr)
    for line in _hints(provider, hint):
        print(plain(f"hint: {line}"), file=sys.stderr)
    return 1


def main(argv) -> int:
    args = parse_args("index", argv, "Keep the committed search index in step with the skills (AR9D1).")
    ws = workspace(args)
    if ws.config is None:
        report(ws.config_problems, args.fmt, root=ws.root)
        return 2
    if not ws.index_committed:
        return 0
    config = ws.config
    if not ws.index_exists() and config.search.mode == "lexical":
        return 0  # a lexical repository without an index has nothing to keep fresh

    diagnostics = check_workspace(ws, coverage=True)
    if not diagnostics:
        return 0
    if ws.unparsable:
        verb = "does" if len(ws.unparsable) == 1 else "do"
        print(f"skillsift-index: the index was not rebuilt: {names_shown(ws.unparsable)} {verb} not parse (SK001), "
              "and an index built from it would hold text nobody wrote; fix the frontmatter first, then commit "
              "again", file=sys.stderr)
        return 0 if frontmatter_failed_elsewhere(ws.root) else 1
    provider = (config.embeddings.provider or "local").strip().lower()
    if provider not in REBUILDS:
        report(diagnostics, args.fmt, root=ws.root)
        print(plain(f"skillsift-index: the index is built with the {provider} provider, which this hook does not "
                    "call; run 'skillsift index' and commit the index directory"), file=sys.stderr)
        return 1
    from ..render.index import withheld_lines
    from ..usecases import index_build as service

    try:
        prepared = service.prepare(config, ws.catalog)
        for line in withheld_lines(prepared.plan):
            print(plain(line), file=sys.stderr)
        outcome = service.build(prepared)
    except SkillsiftError as exc:
        return _not_refreshed(diagnostics, args, ws, provider, exc.message, exc.hint)
    result = outcome.result
    if result.index is None:
        return _not_refreshed(diagnostics, args, ws, provider, f"nothing was embedded ({result.stopped})",
                              getattr(result.stop_error, "hint", ""))
    if not result.complete:
        report(diagnostics, args.fmt, root=ws.root)
        missing = ", ".join(result.missing) or "none"
        why = result.stopped or "the provider rejected " + ", ".join(sorted(i for i, _ in result.rejected))
        print(plain(f"skillsift-index: rebuilt {ws.index_dir} only in part ({why}); without a vector: {missing}. "
                    "Fix the provider and run 'skillsift index'"), file=sys.stderr)
        return 1
    if outcome.written:
        reasons = "; ".join(what_was_wrong(d.message) for d in diagnostics)
        print(plain(f"skillsift-index: rebuilt {ws.index_dir} ({reasons}).") + "\n"
              + plain(f"Stage it and commit again: git add {ws.index_dir}"))
        return 1
    return 0
