"""Every file written from the check declarations, and the command that writes them.

``python -m tests.generated --write`` (from the repository root) rewrites them; ``--check`` exits 1
naming each stale file.  The checks' own files come from :mod:`skillsift.validators.declared`; this
module adds the two of the hooks (a door, which the checks' layer does not import): the codes each
hook's description lists (``skillsift/hooks/hook_codes.py``) and ``.pre-commit-hooks.yaml``
(docs/development.md, "The check contract"), the reference pages of :mod:`tests.reference_pages`
(every configuration key, every hook), and ``skillsift/record_inits.py`` (the ``__init__`` of every
record class, compiled with the package: :func:`skillsift.records.inits_source`).
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
    out[RECORD_INITS] = record_inits_source()
    return out


RECORD_INITS = os.path.join("skillsift", "record_inits.py")


def inits_source(sources) -> str:
    """The text of ``skillsift/record_inits.py``: a factory for each ``__init__`` source of ``sources``."""
    out = ['"""The ``__init__`` of each record class of skillsift, compiled with the package '
           "(:mod:`skillsift.records`).",
           "",
           "Generated from the record classes by ``python -m tests.generated --write``; do not edit.",
           "Longer than 450 lines because it is generated: one factory per record class.",
           '"""', "", "# ruff: noqa", ""]
    table = []
    for number, src in enumerate(sorted(sources)):
        names = ["__MISSING", "__setattr"]
        for word in src.replace("(", " ").replace(")", " ").replace(",", " ").replace("=", " ").split():
            if word.startswith(("__default_", "__factory_")) and word not in names:
                names.append(word)
        out.append(f"def _{number}({', '.join(names)}):")
        out += [f"    {line}" for line in src.splitlines()]
        out += ["    return __init__", "", ""]
        table.append(f"    {src!r}: _{number},")
    out += ["INITS = {", *table, "}", ""]
    return "\n".join(out)


def record_inits_source() -> str:
    """``skillsift/record_inits.py``: the ``__init__`` of every record class of skillsift (imports each module
    that makes one)."""
    import importlib
    from pathlib import Path

    from skillsift import records

    package = Path(records.__file__).parent
    for path in sorted(package.rglob("*.py")):
        if "@record" in path.read_text(encoding="utf-8"):
            importlib.import_module(".".join(path.relative_to(package.parent).with_suffix("").parts))
    return inits_source([src for src, modules in records.SOURCES.items()
                         if any(m.startswith("skillsift.") for m in modules)])


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
