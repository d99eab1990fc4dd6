#!/usr/bin/env python3
"""The release steps the workflows run (docs/development.md, "Releasing"); standard library only.

    python scripts/release.py check            # the pins agree with the version, or exit 1 naming each line
    python scripts/release.py tag [--push R]   # check, then tag HEAD ``v<version>`` (and push it to remote R)

``check`` reads the version from ``pyproject.toml`` and asks that everything a user copies names the
same release: ``skillsift/_version.py``, every pre-commit ``rev:`` and every Action ``uses: .../skillsift@``
in the docs, the hook ids the README's snippet names (each must be in ``.pre-commit-hooks.yaml``), and
the Action installing skillsift from its own checkout (so the tag a workflow names is the code it runs).

``tag`` is what the release workflow runs when the version changes on ``main``: it creates the
lightweight tag ``v<version>`` on HEAD. A tag that already names HEAD is left as it is (a re-run);
a tag on another commit is an error (the version was not raised). With ``$GITHUB_OUTPUT`` set it
writes ``tag=`` and ``created=true|false`` there for the next step.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Files whose snippets users copy: their ``rev:`` and ``uses: <owner>/skillsift@`` name the release tag.
SNIPPETS = ("README.md", "docs/hooks.md", "docs/github-action.md")
HOOKS_FILE = ".pre-commit-hooks.yaml"
ACTION_FILE = "action.yml"

_VERSION_LINE = re.compile(r'^version\s*=\s*"([^"]+)"\s*$', re.M)
_REV = re.compile(r"^\s*rev:\s*(\S+)")
_USES = re.compile(r"uses:\s*[\w.-]+/skillsift@(\S+)")
_HOOK_ID = re.compile(r"^\s*-\s*id:\s*([\w.-]+)")


def version(root: Path = ROOT) -> str:
    """The ``[project] version`` of ``pyproject.toml`` (the first ``version = "..."`` line of that table)."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0] if "[project]" in text else ""
    found = _VERSION_LINE.search(project)
    if not found:
        raise SystemExit("pyproject.toml: no [project] version line; set `version = \"X.Y.Z\"`")
    return found.group(1)


def problems(root: Path = ROOT) -> list[str]:
    """Every place that disagrees with the version, as ``file:line: what is wrong``."""
    tag = f"v{version(root)}"
    found: list[str] = []
    version_file = root / "skillsift" / "_version.py"
    declared = re.search(r'__version__\s*=\s*"([^"]+)"', version_file.read_text(encoding="utf-8"))
    if not declared or f"v{declared.group(1)}" != tag:
        found.append(f"skillsift/_version.py:1: __version__ is not {tag[1:]} (pyproject.toml's version)")
    pins = 0
    for rel in SNIPPETS:
        lines = (root / rel).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            for pattern in (_REV, _USES):
                match = pattern.search(line)
                if match:
                    pins += 1
                    if match.group(1) != tag:
                        found.append(f"{rel}:{number}: pins {match.group(1)}, not the release tag {tag}")
    if pins < 3:
        found.append(f"README.md:1: expected the pre-commit and Action snippets to pin {tag}; found {pins} pins")
    hook_ids = {m.group(1) for line in (root / HOOKS_FILE).read_text(encoding="utf-8").splitlines()
                if (m := _HOOK_ID.match(line))}
    readme = (root / "README.md").read_text(encoding="utf-8").splitlines()
    in_snippet = False
    for number, line in enumerate(readme, 1):
        if line.startswith("repos:"):
            in_snippet = True
        elif in_snippet and line.startswith("```"):
            in_snippet = False
        elif in_snippet and (m := _HOOK_ID.match(line)) and m.group(1) not in hook_ids:
            found.append(f"README.md:{number}: hook {m.group(1)} is not in {HOOKS_FILE}")
    action = (root / ACTION_FILE).read_text(encoding="utf-8")
    if "github.action_path" not in action:
        found.append(f"{ACTION_FILE}:1: the Action must install skillsift from its own checkout "
                     "(github.action_path), so the tag a workflow names is the code it runs")
    return found


def _git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def tag(root: Path = ROOT, push: str | None = None) -> tuple[str, bool]:
    """Create ``v<version>`` on HEAD; return ``(tag, created)``. Raises SystemExit on a disagreement."""
    found = problems(root)
    if found:
        raise SystemExit("\n".join(found))
    name = f"v{version(root)}"
    head = _git("rev-parse", "HEAD", cwd=root)
    if head.returncode:
        raise SystemExit(f"git rev-parse HEAD failed: {head.stderr.strip()}")
    existing = _git("rev-parse", "--verify", "--quiet", f"refs/tags/{name}^{{commit}}", cwd=root)
    if existing.returncode == 0:
        if existing.stdout.strip() != head.stdout.strip():
            raise SystemExit(f"tag {name} already names {existing.stdout.strip()[:12]}, not HEAD: "
                             "raise the version in pyproject.toml and skillsift/_version.py for a new release")
        return name, False
    made = _git("tag", name, "HEAD", cwd=root)
    if made.returncode:
        raise SystemExit(f"git tag {name} failed: {made.stderr.strip()}")
    if push:
        pushed = _git("push", push, f"refs/tags/{name}", cwd=root)
        if pushed.returncode:
            raise SystemExit(f"git push {push} {name} failed: {pushed.stderr.strip()}")
    return name, True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="release.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this script's)")
    sub = parser.add_subparsers(dest="step", required=True)
    sub.add_parser("check", help="the pins agree with pyproject.toml's version")
    tagger = sub.add_parser("tag", help="check, then tag HEAD v<version>")
    tagger.add_argument("--push", metavar="REMOTE", default=None, help="push the new tag to REMOTE")
    args = parser.parse_args(argv)
    if args.step == "check":
        found = problems(args.root)
        for line in found:
            print(line, file=sys.stderr)
        if not found:
            print(f"every pin names v{version(args.root)}")
        return 1 if found else 0
    try:
        name, created = tag(args.root, args.push)
    except SystemExit as stop:
        print(stop, file=sys.stderr)
        return 1
    print(f"{'created' if created else 'kept'} tag {name}")
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as handle:
            handle.write(f"tag={name}\ncreated={'true' if created else 'false'}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
