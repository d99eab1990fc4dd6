"""What the GitHub Action installs, and the key of its pip cache (run before skillsift is installed).

The action runs this file by path with the Python that ``actions/setup-python`` set up, so
it uses the standard library only and imports nothing from skillsift.  It prints step
outputs (``key=value`` lines, appended to ``$GITHUB_OUTPUT``):

``requirement``  the action's own checkout, with the extras asked for (``/path[embed]``);
``cache-dir``    pip's cache directory;
``cache-key``    ``skillsift-pip-<os>-<arch>-py<X.Y>-<extras>-<sha256 of pyproject.toml>``, so the
                 cache follows the action's dependencies;
``restore-key``  the same without the last two parts (an older cache still saves downloads).

Why not ``actions/setup-python``'s own ``cache: pip``: it hashes ``cache-dependency-path``
with the runner's file hashing, which only accepts files inside the workspace, and the
action's ``pyproject.toml`` lies outside it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

ACTION_ROOT = Path(__file__).resolve().parent.parent.parent
_EXTRA = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\Z")


def parse_extras(text: str) -> list[str]:
    """``"embed, mcp"`` -> ``["embed", "mcp"]`` (sorted, unique); ValueError names a bad entry."""
    out = []
    for part in re.split(r"[,\s]+", text or ""):
        if not part:
            continue
        if not _EXTRA.match(part):
            raise ValueError(f"extras: {part!r} is not an extra name (letters, digits, '.', '_', '-')")
        if part.lower() not in out:
            out.append(part.lower())
    return sorted(out)


def requirement(root: Path, extras: list[str]) -> str:
    return f"{root}[{','.join(extras)}]" if extras else str(root)


def cache_key(pyproject: bytes, extras: list[str], *, system: str, machine: str, python: str) -> tuple[str, str]:
    """(key, restore prefix) of the pip cache."""
    prefix = f"skillsift-pip-{system}-{machine}-py{python}-"
    digest = hashlib.sha256(pyproject).hexdigest()[:20]
    return f"{prefix}{'+'.join(extras) or 'base'}-{digest}", prefix


def pip_cache_dir() -> str:
    try:
        proc = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
        lines = proc.stdout.strip().splitlines()
        if proc.returncode == 0 and lines:
            return lines[-1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return os.path.join(os.path.expanduser("~"), ".cache", "pip")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="", help="comma-separated extras, e.g. embed")
    args = parser.parse_args(argv)
    try:
        extras = parse_extras(args.extras)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    pyproject = ACTION_ROOT / "pyproject.toml"
    try:
        data = pyproject.read_bytes()
    except OSError as exc:
        print(f"error: cannot read {pyproject}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    system = os.environ.get("RUNNER_OS") or platform.system()
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    key, restore = cache_key(data, extras, system=system, machine=platform.machine() or "any", python=python)
    print(f"requirement={requirement(ACTION_ROOT, extras)}")
    print(f"cache-dir={pip_cache_dir()}")
    print(f"cache-key={key}")
    print(f"restore-key={restore}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
