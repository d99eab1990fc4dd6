"""The user-cache files (``~/.cache/skillsift``, docs/configuration.md).

:mod:`.catalog`: the parsed frontmatter, the skills, the secret scans and the check results
of a repository root.  Nothing is imported here.
"""
