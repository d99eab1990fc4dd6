"""The pre-commit hooks of skillsift, as data: one row per hook, in the order they are listed.

``skillsift hook NAME`` takes its names from here, and so do the hook modules'
``skillsift.hooks.<name>`` paths and the codes a hook reports for the others
(docs/hooks.md, "One finding, one hook"); ``tests/hooks/test_hook_specs.py`` writes
``.pre-commit-hooks.yaml`` from these rows (:func:`hooks_yaml`) and compares it byte for byte,
and checks the table of docs/hooks.md ("The hooks") against them.  The codes a hook's description
lists come from the check declarations (:data:`REPORTS` names the check modules and codes a hook
runs; ``python -m tests.generated --write`` writes :mod:`.hook_codes` and this file's
YAML from them).  Nothing else is imported (not even :mod:`typing`): the console script reads the names before
anything else.
"""

from __future__ import annotations

from ..records import record
from .hook_codes import CODES


@record(frozen=True)
class HookSpec:
    name: str  # skillsift hook NAME; the pre-commit id is skillsift-NAME
    description: str
    files: str = ""  # pre-commit's files regex ("" = every file)
    types: tuple[str, ...] = ()
    # pre-commit's types_or: a file of any of these kinds (with it, ``types: []`` is written: pre-commit's
    # default ``types: [file]`` would still keep every symbolic link out)
    types_or: tuple[str, ...] = ()
    pass_filenames: bool = True
    require_serial: bool = False
    always_run: bool = False
    owns: frozenset[str] = frozenset()  # codes no sibling hook in the same run repeats

    @property
    def id(self) -> str:
        return f"skillsift-{self.name}"

    @property
    def entry(self) -> str:
        return f"skillsift hook {self.name}"


#: The files the validate hook checks: the SKILL.md, config and cases files.  It is also given the
#: staged files of a skills folder and keeps those that are symbolic links (SK020, SK021): pre-commit
#: passes no link unless a hook's types ask for ``symlink``.  A link elsewhere (a plugin's folder, a
#: ``[catalog] skills`` folder) is found by the hook's own walk of the staged links (hooks/validate.py).
VALIDATE_FILES = (r"(^|/)(SKILL\.md|skillsift\.toml|pyproject\.toml|[^/]*cases[^/]*\.ya?ml)$|(^|/)\.ai-rulez/config"
                  r"\.toml$")
SKILLS_FOLDER_FILES = r"(^|/)skills/"

HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("validate", "Every skillsift check on the staged SKILL.md, config and cases files, and on what they (or "
             "a deleted skill) affect; a staged link in a skills folder is checked too.",
             files=VALIDATE_FILES + "|" + SKILLS_FOLDER_FILES, types_or=("file", "symlink"),
             require_serial=True, always_run=True),
    HookSpec("secrets", "No credential in the files of a skill (AR001); warns about skills a remote embedding "
             "provider would not get (AR9D3).",
             files=r"(^|/)skills/|(^|/)SKILL\.md$", types=("text",)),
    HookSpec("frontmatter", "Each SKILL.md has valid frontmatter that follows the Agent Skills specification, a "
             f"unique name and a description that fits the agents' listings ({CODES['frontmatter']}).",
             files=r"(^|/)SKILL\.md$"),
    HookSpec("cases", "The labelled cases files are valid and name skills and roles that exist (AR9D2).",
             files=r"(^|/)[^/]*cases[^/]*\.ya?ml$", require_serial=True, always_run=True,
             owns=frozenset({"AR9D2"})),
    HookSpec("index", "The committed search index matches the skills; rebuilt with a local provider, then staged by "
             "you (AR9D1).",
             pass_filenames=False, require_serial=True, always_run=True, owns=frozenset({"AR9D1"})),
    HookSpec("eval", "The labelled cases still pass the configured gates and regress no case against the baseline "
             "(AR9D4).",
             pass_filenames=False, require_serial=True, always_run=True, owns=frozenset({"AR9D4"})),
)

HOOK_NAMES: tuple[str, ...] = tuple(spec.name for spec in HOOK_SPECS)

#: The check modules (and single codes) whose codes a hook's description lists, by hook name.
REPORTS: dict[str, tuple[str, ...]] = {"frontmatter": ("checks.frontmatter", "checks.spec", "SK002")}

HEADER = """\
# pre-commit hooks of skillsift (https://pre-commit.com). Every hook runs the one console
# entry `skillsift hook <name>`; docs/hooks.md has the snippet to copy and what each checks.
# minimum_pre_commit_version: the hooks use nothing newer than pre-commit 3.0 (docs/hooks.md).
"""


def hooks_yaml(specs=HOOK_SPECS) -> str:
    """``.pre-commit-hooks.yaml`` as the registry describes it."""
    out = [HEADER]
    for spec in specs:
        out.append(f"- id: {spec.id}\n  name: skillsift {spec.name}\n  description: {spec.description}\n"
                   f"  entry: {spec.entry}\n  language: python\n  minimum_pre_commit_version: 3.0.0\n")
        if spec.files:
            out.append(f"  files: {spec.files}\n")
        if spec.types or spec.types_or:  # pre-commit's default types: [file] would keep every link out
            out.append(f"  types: [{', '.join(spec.types)}]\n")
        if spec.types_or:
            out.append(f"  types_or: [{', '.join(spec.types_or)}]\n")
        out.append(f"  pass_filenames: {str(spec.pass_filenames).lower()}\n"
                   f"  require_serial: {str(spec.require_serial).lower()}\n")
        if spec.always_run:
            out.append("  always_run: true\n")
    return "".join(out)
