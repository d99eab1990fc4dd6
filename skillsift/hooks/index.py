"""``skillsift hook index``: the committed index matches the skills (AR9D1).

With a provider that runs on this machine (``local``, or a ``command`` from the user
config) the hook rebuilds the index when it is missing, out of date or stale, and exits 1
when the files changed, so the user stages them and commits again (as formatters do).
With a remote provider it only reports AR9D1 and names the command to run.  It runs on
every commit (``always_run``): deleting a skill leaves a row to drop.  An index kept under
``.skillsift/local`` is machine-local and not checked.
"""

from __future__ import annotations

import os
import sys

from ._common import parse_args, report, workspace

REBUILDS = ("local", "command")
_FILES = ("manifest.json", "vectors.bin")


def _snapshot(index_dir: str) -> dict:
    out = {}
    for name in _FILES:
        try:
            with open(os.path.join(index_dir, name), "rb") as fh:
                out[name] = fh.read()
        except OSError:
            out[name] = None
    return out


def rebuild(root: str, config_file) -> int:
    """Run ``skillsift index`` in this process; its exit code."""
    import importlib.util

    if importlib.util.find_spec("skillsift.commands.index_cmd") is None:
        print("skillsift-index: this skillsift has no 'index' command to rebuild with", file=sys.stderr)
        return 2
    from ..cli import main as cli_main

    argv = ["index", "--root", root] + (["--config", config_file] if config_file else [])
    return cli_main(argv)


def main(argv) -> int:
    args = parse_args("index", argv, "Keep the committed search index in step with the skills (AR9D1).")
    ws = workspace(args)
    if ws.config is None:
        report(ws.config_problems, args.fmt, root=ws.root)
        return 2
    if not ws.index_committed:
        return 0
    config = ws.config
    if not ws.index_exists() and config.search.mode == "lexical":
        return 0  # a lexical repository without an index has nothing to keep fresh
    from ..validators.index import check_workspace

    diagnostics = check_workspace(ws, coverage=True)
    if not diagnostics:
        return 0
    provider = (config.embeddings.provider or "local").strip().lower()
    if provider not in REBUILDS:
        report(diagnostics, args.fmt, root=ws.root)
        print(f"skillsift-index: the index is built with the {provider} provider, which this hook does not call; "
              "run 'skillsift index' and commit the index directory", file=sys.stderr)
        return 1
    index_dir = ws.abspath(ws.index_dir)
    before = _snapshot(index_dir)
    code = rebuild(ws.root, args.config_file)
    if code != 0:
        report(diagnostics, args.fmt, root=ws.root)
        print(f"skillsift-index: 'skillsift index' failed (exit {code}); the index was not refreshed",
              file=sys.stderr)
        return 1
    if _snapshot(index_dir) != before:
        reasons = "; ".join(d.message.removeprefix("search: ") for d in diagnostics)
        print(f"skillsift-index: rebuilt {ws.index_dir} ({reasons}).\n"
              f"Stage it and commit again: git add {ws.index_dir}")
        return 1
    return 0
