"""What every hook shares: its arguments, the deleted skills of a commit, printing and exit codes.

Hooks are thin: each parses ``[--root R] [--config F] [--format F] [FILES...]``, builds a
:class:`~skillsift.validators.workspace.Workspace` and runs a few checks.  ``argparse`` (for
``--help`` and usage errors) and ``subprocess`` are imported only when needed, so a hook pays
only for the checks it runs.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from ..config import RootNotFound
from ..diagnostics import ERROR, NOTE
from ..files import read_bounded
from ..records import replace
from ..render.registry import names, render
from ..validators import expand_codes
from ..validators.workspace import Workspace, rel_posix
from .specs import HOOK_SPECS

FORMATS = names("diagnostics")


#: The hooks' options and the attribute each one sets (argparse's ``dest``), with the defaults.
OPTIONS = {"--root": "root", "--config": "config_file", "--format": "fmt"}
DEFAULTS = {"root": ".", "config_file": None, "fmt": "text"}


def parse_args(name: str, argv, description: str) -> SimpleNamespace:
    """``[FILES...] [--root R] [--config F] [--format F]`` of a hook.

    The forms pre-commit and people write (each option ``--name VALUE`` or ``--name=VALUE``,
    the files in one run before, after or between the options) are read directly: argparse
    with its help formatter and gettext (which imports ``locale``) costs about 5 ms of every
    hook.  Anything else (``--help``, an unknown or abbreviated option, a missing value, a
    format that does not exist, a file name starting with ``-``, files in two runs) goes to
    argparse, which prints the help or the usage error as it always has;
    ``tests/hooks/test_hook_arguments.py`` holds the two readings equal.
    """
    argv = list(argv)
    plain = _plain_args(argv)
    if plain is not None:
        return plain
    return SimpleNamespace(**vars(_parser(name, description).parse_args(argv)))


def _plain_args(argv: list[str]) -> SimpleNamespace | None:
    """What argparse gives for ``argv`` when it is in the plain form :func:`parse_args` reads; else None."""
    values = dict(DEFAULTS)
    files: list[str] = []
    runs, in_run, i = 0, False, 0
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-"):
            if not in_run:
                runs, in_run = runs + 1, True
            files.append(arg)
            i += 1
            continue
        in_run = False
        option, equals, value = arg.partition("=")
        dest = OPTIONS.get(option)
        if dest is None:
            return None
        if not equals:
            if i + 1 >= len(argv):
                return None
            value = argv[i + 1]
            i += 1
        if value.startswith("-") or (dest == "fmt" and value not in FORMATS):
            return None
        values[dest] = value
        i += 1
    if runs > 1:
        return None  # argparse takes one run of files and refuses the rest
    return SimpleNamespace(files=files, **values)


def _parser(name: str, description: str):
    """The hooks' argparse parser (help, usage errors)."""
    import argparse

    class Formatter(argparse.HelpFormatter):
        """argparse's help formatter, given the width of the terminal by :func:`os.get_terminal_size`.

        argparse builds a formatter for every argument it adds, and without a width each one
        imports :mod:`shutil` (with ``bz2`` and ``lzma``) to ask for it: about 1.5 ms of a hook's
        start, spent whether or not any help is printed.  The width is the one ``shutil`` gives:
        ``$COLUMNS``, else the terminal's, else 80; minus 2, as argparse takes it.
        """

        def __init__(self, prog):
            super().__init__(prog, width=_columns() - 2)

    parser = argparse.ArgumentParser(prog=f"skillsift hook {name}", description=description,
                                     formatter_class=Formatter)
    parser.add_argument("files", nargs="*", help="files to check (pre-commit passes the staged ones)")
    parser.add_argument("--root", default=DEFAULTS["root"], help="repository root (default: the current directory)")
    parser.add_argument("--config", dest="config_file", default=DEFAULTS["config_file"], help="config file to use")
    parser.add_argument("--format", dest="fmt", choices=FORMATS, default=DEFAULTS["fmt"])
    return parser


def _columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def workspace(args):
    """The hook's workspace, its config loaded; a ``--root`` that is not a directory exits 2 (usage)."""

    ws = Workspace(args.root, config_file=args.config_file)
    try:
        ws.config  # noqa: B018 - loads it
    except RootNotFound as exc:
        exc.exit_code = 2
        raise
    return ws


def relative(args, files) -> list[str]:
    """The given files relative to the root, with ``/`` (pre-commit passes them that way already)."""

    root = os.path.abspath(args.root)
    return sorted(dict.fromkeys(rel_posix(os.path.abspath(f), root) for f in files))


def staged_deletions(root: str) -> list[str]:
    """Files the commit being made deletes (``git diff --cached --diff-filter=D``); [] outside git."""
    return _staged(root, "D")


def staged_links(root: str) -> list[str]:
    """Symbolic links the commit being made adds or changes (wherever they are); [] outside git.

    The validate hook's own walk: a link committed into a skill's folder is a finding (SK020,
    SK021) wherever skills are served (``plugins/*/``, a ``[catalog] skills`` folder...), even
    when a ``files:`` pattern of the project's pre-commit config did not pass it.
    """
    import os

    return [p for p in _staged(root, "ACMRT") if os.path.islink(os.path.join(root, p))]


def _staged(root: str, kinds: str) -> list[str]:
    """Files of the commit being made whose change is one of ``kinds`` (``git diff --cached --diff-filter``)."""
    import subprocess

    try:
        proc = subprocess.run(["git", "diff", "--cached", "--name-only", f"--diff-filter={kinds}", "-z"], cwd=root,
                              capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    if proc.returncode != 0:
        return []
    prefix = _git_prefix(root)
    out = []
    for name in proc.stdout.decode("utf-8", "replace").split("\0"):
        if name and (not prefix or name.startswith(prefix)):
            out.append(name[len(prefix):])
    return out


def _git_prefix(root: str) -> str:
    """Path of ``root`` inside its work tree ("" at the top), with a trailing ``/``."""
    import subprocess

    try:
        proc = subprocess.run(["git", "rev-parse", "--show-prefix"], cwd=root, capture_output=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


# The codes a skillsift hook that runs on every commit (``always_run``) reports itself; when
# it runs in the same pre-commit invocation (same stage, not skipped, not a run of one other
# hook), no other hook repeats them, so one finding is printed once.  When that cannot be
# told for sure, the hook checks them itself: a regression never passes because a sibling
# hook did not run (docs/hooks.md, "One finding, one hook").
OWNED_CODES = {spec.id: spec.owns for spec in HOOK_SPECS if spec.owns}
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
MAX_PRE_COMMIT_CONFIG = 1 << 20
ALL_STAGES = frozenset({"pre-commit", "pre-merge-commit", "pre-push", "prepare-commit-msg", "commit-msg",
                        "post-checkout", "post-commit", "post-merge", "post-rewrite", "pre-rebase", "manual"})
_LEGACY_STAGES = {"commit": "pre-commit", "push": "pre-push", "merge-commit": "pre-merge-commit"}


def invocation(cmdline: list[str] | None = None) -> tuple[str, str] | None:
    """``(stage, only_hook)`` of the pre-commit run that started this hook, or None when unknown.

    Read from the parent process's command line (``pre-commit run [--hook-stage S] [HOOK]``
    or the git hook's ``pre-commit hook-impl --hook-type=S``); ``only_hook`` is "" unless
    one hook was asked for.  On a system without ``/proc`` or under another runner the
    answer is None, and the caller assumes no sibling runs.
    """
    if cmdline is None:
        try:
            with open(f"/proc/{os.getppid()}/cmdline", "rb") as handle:
                raw = handle.read(1 << 16)
        except OSError:
            return None
        cmdline = [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]
    start = next((i for i, part in enumerate(cmdline)
                  if part.endswith(("pre_commit", "pre-commit", "-mpre_commit")) and i + 1 < len(cmdline)
                  and cmdline[i + 1] in ("run", "hook-impl")), None)
    if start is None:
        return None
    command, rest = cmdline[start + 1], cmdline[start + 2:]
    option = "--hook-stage" if command == "run" else "--hook-type"
    stage, only, i = "pre-commit", "", 0
    while i < len(rest):
        part = rest[i]
        if part == "--":
            break
        if part == option and i + 1 < len(rest):
            stage, i = rest[i + 1], i + 2
            continue
        if part.startswith(option + "="):
            stage = part.split("=", 1)[1]
        elif part.startswith("-"):
            if "=" not in part and part in ("--files", "--from-ref", "--to-ref", "--source", "--origin", "-s", "-o",
                                            "--config", "-c", "--commit-msg-filename", "--hook-dir", "--color",
                                            "--remote-branch", "--local-branch", "--remote-name", "--remote-url",
                                            "--checkout-type", "--is-squash-merge", "--rewrite-command",
                                            "--prepare-commit-message-source", "--commit-object-name",
                                            "--pre-rebase-upstream", "--pre-rebase-branch"):
                i += 1 if part != "--files" else len(rest)
        elif command == "run" and not only:
            only = part
        i += 1
    return _LEGACY_STAGES.get(stage, stage), only


def sibling_hooks(root: str, env=None, run: tuple[str, str] | None | bool = False) -> set[str]:
    """The skillsift hook ids that run in this same pre-commit invocation, less those in ``SKIP``.

    pre-commit runs hooks from the top of the work tree, so the config is looked for in the
    current directory, then at ``root``.  A hook counts only when its ``stages`` (else the
    config's ``default_stages``, else every stage) hold the stage being run and the run is
    not one of a single other hook; an unknown invocation, an unreadable or odd file name no
    hook.  ``run`` is the invocation (:func:`invocation`, looked up when not given).
    """
    env = os.environ if env is None else env
    current = invocation() if run is False else run
    if not isinstance(current, tuple):
        return set()
    stage, only = current
    for folder in dict.fromkeys((os.getcwd(), os.path.abspath(root))):
        path = os.path.join(folder, PRE_COMMIT_CONFIG)

        try:
            raw = read_bounded(path, MAX_PRE_COMMIT_CONFIG)
        except FileNotFoundError:
            continue
        except OSError:  # a directory, a FIFO, too large: an odd file names no hook
            return set()
        skipped = {part.strip() for part in env.get("SKIP", "").split(",")}
        return {hook for hook, stages in _hook_stages(raw).items()
                if hook.startswith("skillsift-") and hook not in skipped and stage in stages
                and (not only or only == hook)}
    return set()


def _stages(value, default: frozenset[str]) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return default
    return frozenset(str(_LEGACY_STAGES.get(v, v)) for v in value)


def _hook_stages(raw: bytes) -> dict[str, frozenset[str]]:
    """Hook id -> the stages it runs at, from a pre-commit config's text."""
    import yaml

    try:
        doc = yaml.safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError, ValueError):
        return {}
    if not isinstance(doc, dict):
        return {}
    default = _stages(doc.get("default_stages"), ALL_STAGES)
    out: dict[str, frozenset[str]] = {}
    repos = doc.get("repos")
    for repo in repos if isinstance(repos, list) else []:
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        for hook in hooks if isinstance(hooks, list) else []:
            if isinstance(hook, dict) and isinstance(hook.get("id"), str):
                out[hook["id"]] = out.get(hook["id"], frozenset()) | _stages(hook.get("stages"), default)
    return out


def codes_left_to_siblings(root: str, own: str) -> set[str]:
    """Codes another skillsift hook of this same invocation reports, which hook ``own`` leaves to it."""
    out: set[str] = set()
    for hook in sibling_hooks(root) - {own}:
        out |= OWNED_CODES.get(hook, frozenset())
    return out


FRONTMATTER_HOOKS = frozenset({"skillsift-frontmatter", "skillsift-validate"})


def frontmatter_failed_elsewhere(root: str) -> bool:
    """True when another configured hook reports a SKILL.md that does not parse (SK001) and fails the commit
    for it: a hook that cannot run because of that one cause then passes (one cause, one failure)."""
    return bool(sibling_hooks(root) & FRONTMATTER_HOOKS)


def report(diagnostics, fmt: str, *, root: str = "", out=None) -> None:
    """Print the diagnostics (nothing at all when there are none, as formatters stay quiet)."""
    if not diagnostics and fmt == "text":
        return

    (out or sys.stdout).write(render("diagnostics", fmt, diagnostics, root=root))


def apply_settings(ws, diagnostics) -> list:
    """The diagnostics less the codes ``[validate] ignore`` or ``[validate.severity]`` turn off,
    each at its configured severity."""
    from ..validators import suppress

    ignored, _unknown = expand_codes(ws.settings.ignore)
    severity = ws.settings.severity
    out = []
    for diag in suppress.apply(ws, diagnostics):  # inline suppressions of the SKILL.md files
        level = severity.get(diag.code)
        if diag.code in ignored or level == "off":
            continue
        out.append(replace(diag, severity=level) if level and level != diag.severity else diag)
    return out


def nothing_to_check(ws, files) -> list:
    """What a hook says about files it did not check: a staged SKILL.md that no folder skillsift
    reads holds (SK012, a note unless configured otherwise), and an error for a repository where
    no skill is found (SK013), so a hook never passes having checked nothing."""
    from ..checks.served import NOT_SERVED, nothing_found

    served = set(ws.skill_paths)
    out = []
    # a note stays a note (docs/hooks.md, "Files no folder reads"): a template SKILL.md kept outside the
    # skills folders never fails a commit; [validate.severity] SK012 = "error" makes it fail
    level = ws.settings.severity.get(NOT_SERVED.code) or NOTE
    for rel in files:
        if rel.endswith("SKILL.md") and rel not in served and os.path.isfile(ws.abspath(rel)):
            out.append(NOT_SERVED.report(
                file=rel, level=level,
                message=f"{rel} is outside every folder skillsift and the agents read, so it was not checked",
                hint="move the skill folder under .agents/skills, .claude/skills or skills (README, \"Where skills "
                     "are found\"), or list it in [catalog] skills"))
    patterns = tuple(ws.config.skills) if ws.config is not None else ()
    out += [replace(d, severity=ERROR) for d in nothing_found(ws.discovery, patterns)]
    ignored, _unknown = expand_codes(ws.settings.ignore)
    off = {code for code, level in ws.settings.severity.items() if level == "off"} | ignored
    return [d for d in out if d.code not in off]  # [validate] can still turn them off


def exit_code(diagnostics) -> int:
    """2 for an unusable config (AR9D0), 1 for any error or warning a hook checks, else 0."""
    if any(d.code == "AR9D0" for d in diagnostics):
        return 2
    return 1 if any(d.severity == "error" or d.code == "SK013" for d in diagnostics) else 0
