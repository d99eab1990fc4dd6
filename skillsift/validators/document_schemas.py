"""The JSON Schemas of the files a user writes, made from the rule tables the validator applies.

``python -m skillsift.validators.document_schemas`` rewrites ``skillsift/schemas/cases.v1.json``,
``examples.v1.json`` (the examples files of ``[search] examples`` have the cases-file format and
are read by the same rules), ``config.v1.json`` and ``user-config.v1.json``;
``tests/test_document_schemas.py`` regenerates them and compares, so editor and gate read one
source (docs/editor-support.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..casefile.rules import CASES
from ..config.tables import PROJECT, USER
from ..docschema import Context
from ..docschema.json_schema import document, dumps
from . import CODES

SCHEMAS_DIR = Path(__file__).resolve().parent.parent / "schemas"


def shipped(check_codes=None) -> dict[str, str]:
    """``file name -> text`` of every schema generated from the rule tables (``check_codes``: the codes
    ``[validate.severity]`` may name; default the registry's)."""

    codes = Context(values={"codes": tuple(check_codes) if check_codes is not None else CODES})
    return {
        "cases.v1.json": dumps(document(CASES, "cases.v1.json", "skillsift cases file (cases.v1)")),
        "examples.v1.json": dumps(document(CASES, "examples.v1.json",
                                           "skillsift examples file, [search] examples (the cases-file format)")),
        "config.v1.json": dumps(document(PROJECT, "config.v1.json",
                                         "skillsift.toml and [tool.skillsift] of pyproject.toml (config.v1)", codes)),
        "user-config.v1.json": dumps(document(USER, "user-config.v1.json",
                                              "skillsift user config, ~/.config/skillsift/config.toml "
                                              "(user-config.v1)")),
    }


def main(argv: list[str] | None = None) -> int:
    """Write the schemas into ``skillsift/schemas/`` (``--check``: only say which differ; exit 1 if any)."""
    argv = sys.argv[1:] if argv is None else argv
    stale = []
    for name, text in shipped().items():
        path = SCHEMAS_DIR / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
            if "--check" not in argv:
                path.write_text(text, encoding="utf-8")
    for name in stale:
        print(("differs: " if "--check" in argv else "wrote: ") + name)
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    raise SystemExit(main())
