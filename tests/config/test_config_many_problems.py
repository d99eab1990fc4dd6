"""A config file of many problems: each is reported on its line, in time linear in the file."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import write_skill


def _cli(*argv: str) -> subprocess.CompletedProcess:
    code = f"import sys; from skillsift.cli import main; sys.exit(main({list(argv)!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_twenty_thousand_unknown_keys_are_each_reported_on_their_line(tmp_path):
    # 20,000 problems; finding each one's line by a walk over every line took minutes
    write_skill(tmp_path, "demo", "A demo skill")
    keys = 20_000
    (tmp_path / "skillsift.toml").write_text(
        '[search]\nmode = "lexical"\nweights = { lexical = "x" }\n\n'
        + "".join(f"k{i} = {i}\n" for i in range(keys)), encoding="utf-8")
    proc = _cli("validate", "--root", str(tmp_path), "--select", "AR9D0")
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]  # a config problem
    report = proc.stdout + proc.stderr
    assert 'skillsift.toml:5: AR9D0 search: unknown key "k0"' in report
    assert f'skillsift.toml:{keys + 4}: AR9D0 search: unknown key "k{keys - 1}"' in report
    assert "skillsift.toml:3: AR9D0 search.weights.lexical must be a number" in report  # in the inline table
    status = _cli("status", "--root", str(tmp_path))
    assert "Traceback" not in status.stderr and status.returncode == 1
    assert "skillsift.toml:5" in status.stdout + status.stderr
