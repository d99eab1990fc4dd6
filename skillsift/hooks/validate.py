"""``skillsift hook validate``: every check, on the staged files and what they affect.

pre-commit passes the staged SKILL.md, config and cases files, links included (a SKILL.md
that is a link is SK020), and the staged files of a skills folder, of which the links are
kept (SK021) and the rest left to the hooks of their own (``skillsift-secrets``).  Skills are
served from other folders too (``plugins/*/``, a ``[catalog] skills`` folder) that no
``files:`` pattern can name in advance, so the hook also walks the staged links itself
(``git diff --cached``): a link committed into any served skill's folder is SK021, a SKILL.md
link SK020, whatever pre-commit passed.  A skill deleted by the
commit (which pre-commit does not pass) is added from ``git diff --cached``, so removing a
skill still checks the cases, the index and the duplicates.  Warnings do not fail.  Codes
that another skillsift hook of the same commit reports on every commit (AR9D4 with
``skillsift-eval``, AR9D1 with ``skillsift-index``, AR9D2 with ``skillsift-cases``) are left
to that hook, so a finding is printed once.  A staged SKILL.md outside every folder skillsift reads, or a repository
with no skill, fails the hook.
"""

from __future__ import annotations

from ..diagnostics import sort_diagnostics
from ..validators.runner import run_checks, select_codes
from ._common import (
    codes_left_to_siblings,
    exit_code,
    nothing_to_check,
    parse_args,
    relative,
    report,
    staged_deletions,
    staged_links,
    workspace,
)
from .specs import VALIDATE_FILES


def _checked_here(root: str, rel: str) -> bool:
    """A SKILL.md, config or cases file, or a link (in a skills folder: SK021)."""
    import os
    import re

    return bool(re.search(VALIDATE_FILES, rel)) or os.path.islink(os.path.join(root, rel))


def main(argv) -> int:
    args = parse_args("validate", argv, "Run every skillsift check on the staged files and what they affect.")
    ws = workspace(args)
    paths = [p for p in relative(args, args.files) if _checked_here(ws.root, p)]
    paths += [p for p in staged_deletions(ws.root) if p.endswith("SKILL.md") and p not in paths]
    paths += [p for p in staged_links(ws.root) if p not in paths]  # wherever skills are served (SK020, SK021)
    if not paths:
        return 0

    codes = None
    left = codes_left_to_siblings(ws.root, "skillsift-validate") if ws.config is not None else set()
    if left:  # the eval, index or cases hook of this commit reports these: one finding, printed once
        codes = select_codes(configured_ignore=ws.settings.ignore, preset=ws.settings.preset)[0] - left
    diagnostics = run_checks(ws, paths=paths, codes=codes)
    if ws.config is not None:
        extra = nothing_to_check(ws, paths)
        flagged = {d.file for d in extra}
        # a file it says it did not check gets no other finding (docs/hooks.md, "Files no folder reads")
        kept = [d for d in diagnostics if d.code != "SK013" and d.file not in flagged]
        diagnostics = sort_diagnostics(kept + extra)
    report(diagnostics, args.fmt, root=ws.root)
    return exit_code(diagnostics)
