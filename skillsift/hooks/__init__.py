"""pre-commit entry points (thin wrappers over the validators).

Each module has ``main(argv) -> int`` and is run through ``skillsift hook <name>``:

* ``validate``    every check on the staged files and what they affect;
* ``secrets``     AR001 (and AR9D3) on the staged files of skills;
* ``frontmatter`` the frontmatter and specification checks on the staged SKILL.md files
  (the codes: :mod:`.hook_codes`, written from the check declarations);
* ``cases``       AR9D2 on the cases files;
* ``index``       AR9D1: rebuilds the committed index with a local provider, else reports;
* ``eval``        AR9D4: the labelled cases against the configured gates and baseline.
"""
