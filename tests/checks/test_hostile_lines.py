"""Long lines a repository can plant where a check reads markdown or YAML line by line.

Each line below made one regular expression backtrack in quadratic (or cubic) time: the
commands run in a subprocess with a timeout, which a fixed run meets with a wide margin
and the old expressions missed by minutes (docs/bounded-input.md).
"""

from __future__ import annotations

import subprocess
import sys

from skillsift.checks.frontmatter import trigger_passages
from skillsift.checks.spec import relative_links
from skillsift.config.tomledit import set_table_keys
from tests.support.validators_support import raw_skill

#: SK108's link scan: a line of brackets, then one of "](" (minutes before).
BRACKETS = "[" * 100_000 + "link" + "](" * 50_000
#: SK008's trigger passages: a heading of spaces (cubic: 2,000 spaces took 13 s) and an
#: inline marker after a run of blanks (quadratic).
HEADING = "## When to use" + " " * 20_000 + "x"
BLANKS = " " * 200_000 + "use when"


def _cli(*argv: str) -> subprocess.CompletedProcess:
    code = f"import sys; from skillsift.cli import main; sys.exit(main({list(argv)!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_validate_and_the_frontmatter_hook_read_long_hostile_lines_at_once(tmp_path):
    body = "\n".join((BRACKETS, HEADING, "deploy it", BLANKS + " certificates expire soon", "[ok](missing.md)")) + "\n"
    path = raw_skill(tmp_path, "demo", "---\nname: demo\ndescription: Deploy a service.\n---\n" + body, "skills")
    proc = _cli("validate", "--root", str(tmp_path))
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr  # warnings only
    assert "skills/demo/SKILL.md:9" in proc.stdout and "SK108" in proc.stdout  # the real link is still checked
    assert "SK008" in proc.stdout
    hook = _cli("hook", "frontmatter", "--root", str(tmp_path), str(path))
    assert "Traceback" not in hook.stderr and hook.returncode == 0, hook.stdout + hook.stderr


def test_the_scans_keep_what_they_found_before():
    assert relative_links("[a [b](x.md) [t](y.md 'title') ![i](img.png \"t\")\n[r]: refs/z.md\n", 1) == [
        (1, "x.md"), (1, "y.md"), (1, "img.png"), (2, "refs/z.md")]
    assert relative_links("[a](b" * 50_000 + "\n[c](d.md)\n", 3) == [(4, "d.md")]
    lines = ["## When to use ##  ", "- the user deploys", "## Next ##", "text", "  **Use when** a release is cut"]
    assert trigger_passages(lines, 10) == [(10, lines[0], "- the user deploys"),
                                           (14, lines[4], "a release is cut")]


def test_validate_fix_quotes_a_value_padded_with_spaces(tmp_path):
    value = "Deploy it: always" + " " * 200_000 + "carefully"
    path = raw_skill(tmp_path, "demo", f"---\nname: demo\ndescription: {value}   \n---\nb\n", "skills")
    proc = _cli("validate", "--root", str(tmp_path), "--fix", "--select", "SK001")
    assert "Traceback" not in proc.stderr and proc.returncode == 0, proc.stdout + proc.stderr
    assert path.read_text() == f'---\nname: demo\ndescription: "{value}"\n---\nb\n'


def test_config_edit_reads_a_long_line_of_an_array_of_arrays():
    text = "[search]\nmode = \"lexical\"\n\n[other]\nrows = [\n  [1," + " " * 200_000 + "2],\n]\n"
    out = set_table_keys(text, "search", {"mode": "hybrid"})
    assert out.startswith('[search]\nmode = "hybrid"\n') and out.endswith(text[text.index("\n\n"):])


def test_a_number_too_long_for_python_names_its_line_and_the_fix(tmp_path, capsys):
    from skillsift.cli import main

    raw_skill(tmp_path, "big", "---\nname: big\ndescription: d\nmetadata:\n  a: b\n  n: " + "9" * 5000 + "\n---\nb\n",
              "skills")
    assert main(["validate", "--root", str(tmp_path), "--select", "SK001"]) == 1
    out = capsys.readouterr().out
    assert "skills/big/SKILL.md:6: SK001 frontmatter could not be read: a number of more than 4,300 digits" in out
    assert "quote the number" in out and "set_int_max_str_digits" not in out


def test_the_peer_checks_read_long_hostile_lines_at_once(tmp_path):
    """SK205, SK307, SK321, SK322 and SK324 on lines made to make their scans backtrack."""
    windows = "C:\\x " + "a\\b.txt " * 440  # many backslash paths, all inside one Windows path
    body = "\n".join(("#" + " " * 20_000 + "x", "- " + " " * 100_000, "x!`" * 50_000, windows,
                      "/Users/" * 50_000, "a\\" * 100_000 + "b.py", "```sh", "read " + "-a " * 50_000 + "x",
                      "read " + "-a " * 1000 + "-p", 'read -p "Which one? " it', "```", "Review the diff.",
                      "Branch:!`git branch`", "Logs: /Users/username/logs/x.log")) + "\n"
    front = "---\nname: demo\ndescription: Deploy a service.\ncontext: fork\n---\n"
    raw_skill(tmp_path, "demo", front + body, "skills")
    script = tmp_path / "skills" / "demo" / "scripts" / "ask.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n" + "read " + "-r " * 100_000 + "x\n" + "x\\" * 100_000 + "\n", encoding="utf-8")
    proc = _cli("validate", "--root", str(tmp_path), "--preset", "strict", "--format", "json")
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stdout + proc.stderr
    import json

    codes = {d["code"] for d in json.loads(proc.stdout)["diagnostics"]}
    assert {"SK307", "SK322", "SK324"} <= codes and "SK321" not in codes  # the real ones are still found
