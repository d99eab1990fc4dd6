"""Cold ``validate`` with a cached git source of N real skills against the same skills checked in locally.

Usage: python bench/bench_sources.py [--skills 1000] [--runs 5] [--corpus ../shared/corpora]

The first N skill folders of the corpus of real skills (path order) are laid out twice: as
``skills/`` of a local repository, and as ``skills/`` of a git repository that a second repository
names in ``[[sources]]`` (locked and fetched once, before timing). Each run is a fresh process with
the skillsift caches off (``SKILLSIFT_CACHE=off``: the parsed-frontmatter, skill and scan caches, the
cost of a first run) and the source's git cache kept (what ``skillsift sources fetch`` leaves in CI).
The two run interleaved; the figures are the medians of CPU time (user + system of the child), and
the ratio source / local is printed (goal: at most 1.5).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import CORPORA, ROOT, child_times, without_git_variables


def _skill_folders(corpus: Path, count: int) -> list[Path]:
    folders = sorted({p.parent for p in corpus.rglob("SKILL.md")})
    return folders[:count]


def _git(cwd: Path, *args: str) -> None:
    env = without_git_variables()
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c",
                    "commit.gpgsign=false", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _cpu(argv: list[str], env: dict) -> float:
    return child_times(argv, env=env)[1] / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir() or args.skills < 1:
        parser.error(f"--corpus {args.corpus}: no such folder (the corpus of real skills, ../shared/corpora); "
                     "--skills must be at least 1")
    work = Path(tempfile.mkdtemp(prefix="bench-sources-"))
    try:
        folders = _skill_folders(args.corpus, args.skills)
        local, org, project = work / "local", work / "org", work / "project"
        for index, folder in enumerate(folders):
            name = f"{index:04d}-{folder.name}"
            for base in (local / "skills" / name, org / "skills" / name):
                shutil.copytree(folder, base, symlinks=True)
        (local / "skillsift.toml").write_text('[catalog]\nskills = ["skills"]\n', encoding="utf-8")
        _git(work, "init", "-q", str(org))
        _git(org, "add", "-A")
        _git(org, "commit", "-qm", "skills")
        _git(org, "tag", "v1")
        project.mkdir()
        (project / "skillsift.toml").write_text(
            f'[catalog]\nskills = ["skills"]\n\n[[sources]]\nname = "org"\ngit = "{org.as_uri()}"\nrev = "v1"\n'
            'subdir = "skills"\n', encoding="utf-8")
        (project / "skills").mkdir()
        env = {**os.environ, "SKILLSIFT_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "skillsift"]
        subprocess.run([*command, "sources", "update", "--root", str(project)], env=env, check=True,
                       capture_output=True)
        cold = {**env, "SKILLSIFT_CACHE": "off"}
        for root in (local, project):  # both check the same skills
            check = subprocess.run([*command, "validate", "--root", str(root)], env=cold, capture_output=True,
                                   text=True, check=False)
            print(f"  {root.name}: {check.stdout.strip().splitlines()[-1]}")
        runs = {"local": [], "source": []}
        for _ in range(args.runs + 1):  # the first pair warms the file cache and mounts the source
            runs["local"].append(_cpu([*command, "validate", "--root", str(local)], cold))
            runs["source"].append(_cpu([*command, "validate", "--root", str(project)], cold))
        local_cpu = statistics.median(runs["local"][1:])
        source_cpu = statistics.median(runs["source"][1:])
        print(f"{len(folders)} real skills from {args.corpus.name}, {args.runs} runs each, caches off, CPU medians")
        print(f"  validate, checked in locally   {local_cpu * 1000:8.1f} ms")
        print(f"  validate, one cached source    {source_cpu * 1000:8.1f} ms")
        print(f"  source / local                 {source_cpu / local_cpu:8.2f}x   goal <= 1.5x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
