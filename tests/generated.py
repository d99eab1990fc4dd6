"""Every file written from the check declarations, and the command that writes them.

``python -m tests.generated --write`` (from the repository root) rewrites them; ``--check`` exits 1
naming each stale file.  The checks' own files come from :mod:`skillsift.validators.declared`; this
module adds the two of the hooks (a door, which the checks' layer does not import): the codes each
hook's description lists (``skillsift/hooks/hook_codes.py``) and ``.pre-commit-hooks.yaml``
(docs/development.md, "The check contract"), and the reference pages of :mod:`tests.reference_pages`
(every configuration key, every hook).
"""

from __future__ import annotations

import os
import subprocess
import sys

from skillsift.validators import declared
from tests import reference_pages


def expected(root: str) -> dict[str, str]:
    """Each generated file (path relative to ``root``) and the text it should hold."""
    from skillsift.hooks.specs import REPORTS, hooks_yaml

    out = declared.expected(root)
    out[declared.HOOK_CODES] = declared.hook_codes_source(declared.collect(), REPORTS)
    out[declared.HOOKS_YAML] = hooks_yaml()  # from the hook_codes.py this process imported (see main)
    out.update(reference_pages.expected())
    return out


def stale(root: str) -> list[str]:
    return declared.stale(root, expected(root))


def main(argv: list[str]) -> int:
    root = os.getcwd()
    if argv == ["--write"]:
        before = stale(root)
        for rel, text in expected(root).items():
            with open(os.path.join(root, rel), "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        if declared.HOOK_CODES in before:  # the hooks' descriptions come from hook_codes.py: once more with it
            return subprocess.run([sys.executable, "-m", "tests.generated", "--write"], cwd=root,
                                  check=False).returncode
        return 0
    if argv == ["--check"]:
        bad = stale(root)
        for rel in bad:
            print(f"{rel} is stale: run python -m tests.generated --write", file=sys.stderr)
        return 1 if bad else 0
    print("usage: python -m tests.generated --write | --check (from the repository root)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
