"""The user-cache files (``~/.cache/skillsift``, docs/configuration.md).

:mod:`.catalog`: the parsed frontmatter, the skills, the secret scans and the check results
of a repository root.  Nothing is imported here.
"""

#: True in the console script's process (set by :func:`skillsift.cli.main`): the compiled-regex cache
#: (:mod:`.regexes`) is read and written only then, so a program or a test that imports skillsift
#: compiles its patterns as :func:`re.compile` does and never reads or writes that file.
command_line = False
