"""``skillsift hook secrets``: no credential in the staged files of a skill (AR001, AR9D3).

Every file passed is scanned (UTF-8 text only); SKILL.md files are also checked for text
an index build would withhold from the configured remote provider (AR9D3, a warning).
Imports only the scanner and the config: no numpy, no jsonschema.
"""

from __future__ import annotations

from ..checks import secrets, withheld
from ..diagnostics import sort_diagnostics
from ._common import exit_code, parse_args, relative, report, workspace


def main(argv) -> int:
    args = parse_args("secrets", argv, "Report secrets in skill files (AR001) and withheld skills (AR9D3).")
    ws = workspace(args)
    if ws.config is None:
        report(ws.config_problems, args.fmt, root=ws.root)
        return 2
    files = relative(args, args.files) if args.files else list(ws.skill_paths)

    diagnostics = secrets.check_files(ws, files)
    config = ws.config
    if (config.embeddings.provider or "local") not in withheld.IN_PROCESS:
        skills = [ws.skill_at(rel) for rel in files if rel.endswith("SKILL.md")]
        diagnostics += withheld.check([s for s in skills if s is not None], provider=config.embeddings.provider,
                                      fields=config.search.fields,
                                      index_body=config.search.index_body, body_chars=config.search.body_chars,
                                      extra_patterns=tuple(config.secret_patterns),
                                      text_of=lambda s: ws.read_text(s.path))
    diagnostics = sort_diagnostics(diagnostics)
    report(diagnostics, args.fmt, root=ws.root)
    return exit_code(diagnostics)
