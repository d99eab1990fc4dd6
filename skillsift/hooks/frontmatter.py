"""``skillsift hook frontmatter``: each staged SKILL.md parses and has a usable name and description.

SK001 and SK004-SK008 on the files passed; no numpy, no jsonschema.
"""

from __future__ import annotations

from ._common import exit_code, parse_args, relative, report, workspace


def main(argv) -> int:
    args = parse_args("frontmatter", argv, "Check the frontmatter of SKILL.md files (SK001, SK004-SK008).")
    ws = workspace(args)
    if ws.config is None:
        report(ws.config_problems, args.fmt, root=ws.root)
        return 2
    from ..diagnostics import sort_diagnostics
    from ..validators import frontmatter

    files = relative(args, args.files) if args.files else list(ws.skill_paths)
    diagnostics = sort_diagnostics(frontmatter.run_paths(ws, files))
    report(diagnostics, args.fmt, root=ws.root)
    return exit_code(diagnostics)
