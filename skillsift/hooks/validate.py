"""``skillsift hook validate``: every check, on the staged files and what they affect.

pre-commit passes the staged SKILL.md, config and cases files; a skill deleted by the
commit (which pre-commit does not pass) is added from ``git diff --cached``, so removing a
skill still checks the cases, the index and the duplicates.  Warnings do not fail; a staged
SKILL.md outside every folder skillsift reads, or a repository with no skill, does.
"""

from __future__ import annotations

from ._common import exit_code, nothing_to_check, parse_args, relative, report, staged_deletions, workspace


def main(argv) -> int:
    args = parse_args("validate", argv, "Run every skillsift check on the staged files and what they affect.")
    ws = workspace(args)
    paths = relative(args, args.files)
    paths += [p for p in staged_deletions(ws.root) if p.endswith("SKILL.md") and p not in paths]
    if not paths:
        return 0
    from ..validators.runner import run_checks

    diagnostics = run_checks(ws, paths=paths)
    if ws.config is not None:
        from ..diagnostics import sort_diagnostics

        extra = nothing_to_check(ws, paths)
        flagged = {d.file for d in extra}
        kept = [d for d in diagnostics if d.code != "SK013" and not (d.code == "SK012" and d.file in flagged)]
        diagnostics = sort_diagnostics(kept + extra)
    report(diagnostics, args.fmt, root=ws.root)
    return exit_code(diagnostics)
