"""The index over source skills: keyed by each skill's text, so a source update re-embeds only what changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import write_skill
from tests.support.extras import require_embed


def _sk(project, cache, *args):
    env = {**os.environ, "SKILLSIFT_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "skillsift", *args, "--root", str(project)], env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_source_update_re_embeds_only_that_source_s_changed_skills(tmp_path):
    require_embed()
    shared, team = tmp_path / "shared", tmp_path / "team"
    write_skill(shared, "scale-service", "Scale a service: replicas and limits", layout="skills")
    write_skill(shared, "provision-database", "Provision a Postgres database for a service", layout="skills")
    write_skill(team, "rotate-credentials", "Rotate a leaked password everywhere", layout="skills")
    project = tmp_path / "project"
    write_skill(project, "triage-bug", "Triage a bug report and label it")
    (project / "skillsift.toml").write_text(
        '[[sources]]\nname = "shared"\npath = "../shared"\nsubdir = "skills"\n\n'
        '[[sources]]\nname = "team"\npath = "../team"\nsubdir = "skills"\n', encoding="utf-8")
    cache = tmp_path / "cache"
    assert _sk(project, cache, "sources", "update").returncode == 0
    first = _sk(project, cache, "index", "--format", "json")
    assert first.returncode == 0, first.stderr
    assert (json.loads(first.stdout)["total"], json.loads(first.stdout)["embedded"]) == (4, 4)
    write_skill(shared, "scale-service", "Scale a service horizontally: add replicas, raise limits", layout="skills")
    assert _sk(project, cache, "sources", "update", "shared").returncode == 0
    second = json.loads(_sk(project, cache, "index", "--format", "json").stdout)
    assert (second["total"], second["reused"], second["embedded"]) == (4, 3, 1)
    hit = json.loads(_sk(project, cache, "search", "add replicas", "--mode", "hybrid", "--format", "json").stdout)
    assert hit["ranking"] == "hybrid" and hit["results"][0]["name"] == "scale-service"
    assert hit["results"][0]["source"] == "shared"
