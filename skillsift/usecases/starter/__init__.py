"""``skillsift init``: the first configuration, cases file and hook snippets of a repository.

:mod:`.drafts` turns what the skills already say ("Use when ...", a "When to use" section)
into draft cases (pure); :mod:`.snippets` holds the pre-commit and workflow snippets pinned to
this version's release tag (pure); :mod:`.project` looks at the repository and writes the files
it does not have yet (the I/O edge).  See docs/init.md.
"""
