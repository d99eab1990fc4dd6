"""CPU seconds of each check module of ``skillsift validate`` on a root, in one process, without a profiler.

Usage: PYTHONPATH=<tree> python bench/validate_check_times.py ROOT [CONFIG] [--runs 3]

The user caches are off.  Each run opens a fresh workspace; the config and discovery, then the read and
parse of every SKILL.md (shared by all checks) are timed apart, then every check module as the runner
calls it.  Each figure is the least over the runs (the machine's other load only adds).
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("config", nargs="?")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ["SKILLSIFT_CACHE"] = "off"
    from skillsift.validators import contract, runner
    from skillsift.validators.parsed import parsed_skills
    from skillsift.validators.workspace import Workspace

    clock = time.process_time
    run_module = contract.run_module
    current: dict[str, float] = {}

    def timed(name, ws, paths):
        start = clock()
        try:
            return run_module(name, ws, paths)
        finally:
            current[name] = current.get(name, 0.0) + clock() - start

    runner.run_module = timed  # type: ignore[assignment]
    best: dict[str, float] = {}
    found = 0
    for _ in range(args.runs):
        current.clear()
        ws = Workspace(args.root, config_file=args.config)
        start = clock()
        ws.config  # noqa: B018 - reads it
        ws.skill_paths  # noqa: B018 - discovers them
        current["(config and discovery)"] = clock() - start
        start = clock()
        ws.all_skills  # noqa: B018 - reads and parses every SKILL.md
        list(parsed_skills(ws, ws.skill_paths))
        current["(read and parse, shared)"] = clock() - start
        start = clock()
        found = len(runner.run_checks(ws))
        current["(every check, with the runner)"] = clock() - start
        for name, seconds in current.items():
            best[name] = min(best.get(name, seconds), seconds)
    for name, seconds in sorted(best.items(), key=lambda item: -item[1]):
        if seconds >= 0.001:
            print(f"{seconds:7.3f}  {name}")
    print(f"{found} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
