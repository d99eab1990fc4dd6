"""``skillsift hook eval``: the labelled cases still pass the gates (AR9D4).

Runs the configured cases (``[validate] cases``) against ``[validate] min`` and, with
``[validate] baseline``, fails when more than ``max_flips`` cases regressed.  An invalid
cases file is reported as AR9D2 (the gates cannot run).  While a served SKILL.md does not
parse (SK001) the gates are not run and no new baseline is proposed: the note says to fix the
frontmatter first, and the hook fails for it only when no ``skillsift-frontmatter`` or
``skillsift-validate`` hook of the same commit reports the SK001 (one cause, one failure).
Runs on every commit, since any skill change can move the rankings.
"""

from __future__ import annotations

import sys

from ..validators.runner import run_checks
from ._common import codes_left_to_siblings, exit_code, frontmatter_failed_elsewhere, parse_args, report, workspace


def main(argv) -> int:
    args = parse_args("eval", argv, "Run the labelled cases against the configured gates (AR9D4).")
    ws = workspace(args)
    if ws.config is None:
        report(ws.config_problems, args.fmt, root=ws.root)
        return 2

    # AR9D2 is the cases hook's when it runs too: one finding, printed once
    diagnostics = run_checks(ws, codes={"AR9D0", "AR9D2", "AR9D4"} - codes_left_to_siblings(ws.root, "skillsift-eval"))
    if not ws.settings.gates_configured and not diagnostics:
        print("skillsift-eval: no gate is configured; set [validate] min and/or baseline", file=sys.stderr)
    report(diagnostics, args.fmt, root=ws.root)
    if ws.settings.gates_configured and ws.unparsable:
        # the gates were not run (a note above): fail for it only when no other hook reports the SK001
        return max(exit_code(diagnostics), 0 if frontmatter_failed_elsewhere(ws.root) else 1)
    return exit_code(diagnostics)
