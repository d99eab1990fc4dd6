"""``skillsift hook frontmatter``: each staged SKILL.md parses, has a usable name and description,
follows the Agent Skills specification, and shares its name with no other skill.

SK001, SK004-SK008 and SK101-SK108 on the files passed, plus SK002 for a staged file whose
name another skill of the repository already uses; no numpy, no jsonschema.
"""

from __future__ import annotations

from ..checks import frontmatter, spec
from ..checks.duplicates import duplicate_names
from ..checks.frontmatter import text_key_lines
from ..diagnostics import sort_diagnostics
from ._common import apply_settings, exit_code, nothing_to_check, parse_args, relative, report, workspace
from .hook_codes import CODES


def main(argv) -> int:
    args = parse_args("frontmatter", argv, f"Check the frontmatter of SKILL.md files ({CODES['frontmatter']}).")
    ws = workspace(args)
    if ws.config is None:
        report(ws.config_problems, args.fmt, root=ws.root)
        return 2
    ws.text_check_cache = False  # a few staged files: checking them costs less than the cache

    files = relative(args, args.files) if args.files else list(ws.skill_paths)
    served = set(ws.skill_paths)
    # a file no folder skillsift reads is not checked (its SK012 note says so), so nothing else is said of it
    checked = [f for f in files if f in served or not f.endswith("SKILL.md")]
    wanted = set(checked)
    diagnostics = frontmatter.run_paths(ws, checked) + spec.run_paths(ws, checked)

    def line_of(skill, key):
        text = ws.read_text(skill.path)
        return text_key_lines(text).get(key) if text is not None else None

    if any(f.endswith("SKILL.md") for f in checked):
        diagnostics += [d for d in duplicate_names(ws.all_skills, line_of) if d.file in wanted]
    diagnostics = apply_settings(ws, diagnostics) + nothing_to_check(ws, files)
    report(sort_diagnostics(diagnostics), args.fmt, root=ws.root)
    return exit_code(diagnostics)
