"""The README's sources example, run as a user pastes it (examples/sources, docs/sources.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

from tests.conftest import ROOT


def _readme_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```sh\n")[1:] if "make-org-repo.sh" in b.split("```", 1)[0]]
    assert len(blocks) == 1
    return blocks[0].strip()


def test_the_readme_sources_example_runs_verbatim_and_names_each_source(tmp_path):
    command = _readme_command()
    runnable = re.sub(r"(^|&& )skillsift ", rf"\1{sys.executable} -m skillsift ", command)
    env = {**os.environ, "SKILLSIFT_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    # A copy of the examples, so the run (which mounts the sources) never writes into the checkout.
    work = tmp_path / "checkout"
    for folder in ("sources", "org-skills", "platform-skills"):
        shutil.copytree(ROOT / "examples" / folder, work / "examples" / folder, symlinks=True)
    proc = subprocess.run(["sh", "-c", runnable], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # --frozen: the committed lock is what the example's sources resolve to, on any machine
    assert "skillsift.lock unchanged" in proc.stdout
    doc = json.loads(proc.stdout[proc.stdout.index("{"):])
    first = doc["results"][0]
    assert (first["name"], first["source"]) == ("rotate-credentials", "org")
    cases = subprocess.run([sys.executable, "-m", "skillsift", "eval", "examples/sources/search-cases.yaml", "--root",
                            "examples/sources", "--format", "json"], cwd=work, env=env, capture_output=True, text=True,
                           timeout=120)
    assert cases.returncode == 0, cases.stderr
    assert json.loads(cases.stdout)["modes"]["lexical"]["top1"] == 1
    listing = subprocess.run([sys.executable, "-m", "skillsift", "list", "--agent", "claude-code", "--format", "json",
                              "--root", "examples/sources"], cwd=work, env=env, capture_output=True, text=True,
                             timeout=120)
    sources = {entry["name"]: entry.get("source", "") for entry in json.loads(listing.stdout)["skills"]}
    assert sources == {"incident-postmortem": "org", "rotate-credentials": "org", "provision-database": "platform",
                       "scale-service": "platform", "onboard-customer": "", "release-notes": ""}
