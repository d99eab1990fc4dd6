"""``skillsift hook cases``: the cases files are valid and name skills that exist (AR9D2).

Checks the configured cases files (``[validate] cases``, default ``search-cases.yaml``),
the examples files of ``[search] examples`` (the same format), the skills' frontmatter
``examples`` (known requests, read by the same strict rules), plus any cases file passed.
It runs on every commit (``always_run``), because renaming or
deleting a skill can invalidate a cases file that the commit does not touch.
"""

from __future__ import annotations

import os

from ..checks import cases, config
from ..diagnostics import sort_diagnostics
from ._common import exit_code, parse_args, relative, report, workspace


def main(argv) -> int:
    args = parse_args("cases", argv, "Check the labelled cases files (AR9D2).")
    ws = workspace(args)
    if ws.config is None:
        report(ws.config_problems, args.fmt, root=ws.root)
        return 2

    given = [p for p in relative(args, args.files) if p.endswith((".yaml", ".yml"))]
    paths = list(dict.fromkeys([*ws.cases_paths, *ws.examples_paths, *given]))
    diagnostics = [d for d in config.run(ws) if d.code == "AR9D0"]
    diagnostics += cases.examples_config_problems(ws)
    diagnostics += cases.check_paths(ws, [p for p in paths if os.path.lexists(ws.abspath(p))])
    diagnostics += cases.frontmatter_problems(ws)  # the skills' frontmatter examples: known requests too
    diagnostics = sort_diagnostics(diagnostics)
    report(diagnostics, args.fmt, root=ws.root)
    return exit_code(diagnostics)

