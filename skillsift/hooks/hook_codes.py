"""The codes each hook's description lists: generated from the check declarations and
``skillsift.hooks.specs.REPORTS`` by ``python -m tests.generated --write``; do not edit.
"""

CODES = {"frontmatter": "SK001, SK002, SK004-SK008, SK101-SK108"}
