"""The bounded JSON reader and every place that reads JSON from disk or a process (docs/bounded-input.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsift.checks.secrets import parse_baseline
from skillsift.diagnostics import SkillsiftError
from skillsift.evaluate.gates import load_baseline
from skillsift.evaluate.querylog import scan_log
from skillsift.index.manifest import ManifestInvalid, parse_manifest
from skillsift.jsonio import MAX_DEPTH, JSONDocumentError, read_json
from tests.support.cli import run
from tests.support.concept_embedder import refund_catalog, user_config

DEEP = "[" * 100_000 + "]" * 100_000
BIG_INT = "7" * 5000
HOSTILE = {
    "deep arrays": (DEEP, "depth"),
    "deep objects": ('{"a":' * 5000 + "1" + "}" * 5000, "depth"),
    "5000-digit integer": (BIG_INT, "integer"),
    "negative 5000-digit integer": ("-" + BIG_INT, "integer"),
    "float overflow": ("[1e400]", "float"),
    "NaN": ('{"a": NaN}', "constant"),
    "Infinity": ("[-Infinity]", "constant"),
    "lone surrogate": ('{"q": "\\ud800"}', "text"),
    "not JSON": ("{", "syntax"),
}


# -- the reader ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_documents_raise_one_typed_error(case):
    text, kind = HOSTILE[case]
    with pytest.raises(JSONDocumentError) as info:
        read_json(text.encode("utf-8"), source="doc.json")
    assert info.value.kind == kind
    assert str(info.value).startswith("doc.json ")


def test_depth_limit_is_exact_and_strings_do_not_count():
    assert read_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, source="d") is not None
    with pytest.raises(JSONDocumentError, match="nested deeper than 64 levels at line 2 column 65") as info:
        read_json("\n" + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), source="d")
    assert (info.value.line, info.value.column) == (2, 65)
    brackets = '"' + "[" * 500 + '\\"{' * 100 + '"'
    assert read_json(f"[{brackets}]", source="d") == ["[" * 500 + '"{' * 100]


def test_size_limit_and_encoding():
    with pytest.raises(JSONDocumentError, match="larger than 10 bytes"):
        read_json(b"[" + b"1," * 10 + b"1]", source="d", max_bytes=10)
    with pytest.raises(JSONDocumentError, match=r"is not UTF-8 \(byte 2\)"):
        read_json(b'["\xff"]', source="d")


def test_paired_surrogates_and_ordinary_numbers_pass():
    assert read_json('["\\ud83d\\ude00", 12, -3.5e2, 1' + "0" * 63 + "]", source="d") == [
        "\U0001f600", 12, -350.0, 10**63]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    st.binary(max_size=300),
    st.text(alphabet='[]{}":,0123456789.eE-+ \\ud800tfnrul', max_size=300),
    st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n),
    st.integers(min_value=60, max_value=9000).map(lambda n: "9" * n),
))
def test_no_input_escapes_the_typed_error(data):
    try:
        read_json(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"), source="d")
    except JSONDocumentError:
        pass


# -- every reader of JSON -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_manifest(case):
    with pytest.raises(ManifestInvalid, match="manifest.json"):
        parse_manifest(HOSTILE[case][0].encode("utf-8"))


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_eval_baseline(tmp_path, case):
    path = tmp_path / "base.json"
    path.write_text(HOSTILE[case][0], encoding="utf-8", errors="surrogatepass")
    with pytest.raises(SkillsiftError, match=f"baseline {path}"):
        load_baseline(str(path))


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_secrets_baseline(case):
    accepted, problems = parse_baseline(HOSTILE[case][0], ".skillsift/secrets-baseline.json")
    assert accepted == frozenset()
    assert [(d.code, d.file) for d in problems] == [("SK010", ".skillsift/secrets-baseline.json")]


def test_query_log_skips_and_counts_bad_lines():
    good = json.dumps({"event": "query", "session": "s", "query": "refund", "results": ["a"], "ts": "t"})
    lines = [good] + [HOSTILE[case][0] for case in sorted(HOSTILE)] + ["", good]
    entries, bad = scan_log("\n".join(lines))
    assert [e.query for e in entries] == ["refund", "refund"]
    assert bad == len(HOSTILE)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet='[]{}":,0123456789eE-\\ud800 ', max_size=80), max_size=10))
def test_query_log_never_raises(lines):
    entries, bad = scan_log("\n".join(lines))
    assert bad <= len(lines) and len(entries) <= len(lines)


# -- end to end ---------------------------------------------------------------------------------------------


@pytest.fixture
def indexed(tmp_path, monkeypatch, capsys):
    """A repository with a built index, the concept embedder as the user's command provider."""
    for skill in refund_catalog():
        folder = tmp_path / ".claude" / "skills" / skill.name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {skill.name}\ndescription: {json.dumps(skill.description)}\n"
                                         "---\nBody.\n", encoding="utf-8")
    config = Path(str(tmp_path) + "-home") / "skillsift" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(user_config(extra="cache = false\n"), encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config.parent.parent))
    code, _, err = run(capsys, "index", "--root", tmp_path)
    assert code == 0, err
    return tmp_path


@pytest.mark.parametrize("case", ["deep arrays", "5000-digit integer"])
def test_damaged_manifest_is_no_index_everywhere_and_index_rebuilds(indexed, capsys, case):
    manifest = indexed / ".skillsift" / "index" / "manifest.json"
    manifest.write_text(HOSTILE[case][0], encoding="utf-8")
    code, out, _ = run(capsys, "status", "--root", indexed)
    assert code == 0 and "manifest.json" in out and "rebuild" in out
    code, out, err = run(capsys, "search", "refund", "--mode", "hybrid", "--root", indexed)
    assert code == 0 and "no usable index" in err and "issue-refund" in out
    code, out, _ = run(capsys, "validate", "--root", indexed)
    assert "AR9D1" in out and "manifest.json" in out
    code, out, _ = run(capsys, "index", "--dry-run", "--root", indexed)
    assert code == 0 and "cannot be reused" in out
    for argv in (["index"], ["index", "--rebuild"]):
        manifest.write_text(HOSTILE[case][0], encoding="utf-8")
        code, out, err = run(capsys, *argv, "--root", indexed)
        assert code == 0, err
        assert json.loads(manifest.read_text(encoding="utf-8"))["schema_version"] == 3


def test_eval_baseline_on_the_cli_names_the_file(cli_project, capsys):
    cases = cli_project / "cases.yaml"
    cases.write_text("version: 1\ncases:\n  - {id: a, query: refund, expect: [refund-policy]}\n", encoding="utf-8")
    base = cli_project / "base.json"
    base.write_text(DEEP, encoding="utf-8")
    code, _, err = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base)
    assert code == 1 and f"baseline {base} is nested deeper than 64 levels" in err


def test_secrets_baseline_on_the_cli_is_sk010(cli_project, capsys):
    (cli_project / ".skillsift").mkdir()
    (cli_project / ".skillsift" / "secrets-baseline.json").write_text(DEEP, encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--root", cli_project)
    assert code == 1 and "SK010 the secrets baseline is nested deeper than 64 levels" in out


def test_mine_reports_bad_log_lines(cli_project, capsys):
    log = cli_project / ".skillsift" / "local" / "search-queries.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(DEEP + "\n" + BIG_INT + "\n", encoding="utf-8")
    code, _, err = run(capsys, "mine", "--root", cli_project)
    assert code == 0 and "skipped 2 lines" in err


HOSTILE_PRINT = """import sys
sys.stdin.buffer.read()
sys.stdout.write({body!r})
"""


@pytest.mark.parametrize("body", [DEEP, '{"vectors": [[' + BIG_INT + ", 1]]}"])
def test_command_provider_response(indexed, tmp_path_factory, capsys, monkeypatch, body):
    script = tmp_path_factory.mktemp("cmd") / "hostile.py"
    script.write_text(HOSTILE_PRINT.format(body=body), encoding="utf-8")
    config = Path(str(indexed) + "-home") / "skillsift" / "config.toml"
    config.write_text(f'[embeddings]\nprovider = "command"\ncommand = [{json.dumps(sys.executable)}, '
                      f'{json.dumps(str(script))}]\ncache = false\n', encoding="utf-8")
    code, out, err = run(capsys, "search", "refund", "--mode", "hybrid", "--root", indexed, "--format", "json")
    assert code == 0 and json.loads(out)["degraded"] == "provider_unavailable", err
    (indexed / ".claude" / "skills" / "issue-refund" / "SKILL.md").write_text(
        "---\nname: issue-refund\ndescription: Refund a purchase now\n---\nBody.\n", encoding="utf-8")
    before = (indexed / ".skillsift" / "index" / "manifest.json").read_bytes()
    code, _, err = run(capsys, "index", "--root", indexed)
    assert code == 1 and "printed unusable JSON" in err
    assert (indexed / ".skillsift" / "index" / "manifest.json").read_bytes() == before


# -- hypothesis: hostile JSON to every reader ----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**80), max_value=10**80)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["schema_version", "items", "dims", "dtype", "fields", "cases", "accepted", "data",
                         "embedding", "index", "vectors", "id", "row", "fingerprint", "mode", "k", "x"]),
        inner, max_size=5),
    max_leaves=20,
)
hostile_json = st.one_of(
    json_values.map(json.dumps),
    st.sampled_from([text for text, _ in HOSTILE.values()]),
    st.integers(min_value=1, max_value=5000).map(lambda n: '{"data": ' + "[" * n + "]" * n + "}"),
    st.integers(min_value=60, max_value=6000).map(lambda n: '{"schema_version": ' + "1" * n + "}"),
    st.text(alphabet='[]{}":,0123456789.eE-+ \\ud800tfnrulNaIy', max_size=120),
)


@settings(max_examples=200, deadline=None)
@given(hostile_json)
def test_manifest_reader_only_raises_manifest_invalid(text):
    try:
        parse_manifest(text.encode("utf-8", "surrogatepass"))
    except ManifestInvalid:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hostile_json)
def test_eval_baseline_reader_only_raises_skillsift_error(tmp_path, text):
    path = tmp_path / "base.json"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        load_baseline(str(path))
    except SkillsiftError as exc:
        assert str(path) in exc.message


@settings(max_examples=200, deadline=None)
@given(hostile_json)
def test_secrets_baseline_reader_never_raises(text):
    accepted, problems = parse_baseline(text, "b.json")
    assert all(d.code == "SK010" and d.file == "b.json" for d in problems)
    assert not (accepted and problems)


def test_openai_provider_with_hostile_bodies():
    from skillsift.embed.base import EmbedError
    from tests.support.embedding_server import EmbeddingServer
    from tests.support.embedding_server import openai_provider as make

    with EmbeddingServer() as server:

        @settings(max_examples=60, deadline=None)
        @given(hostile_json)
        def check(text):
            server.script.append((200, {"Content-Type": "application/json"}, text.encode("utf-8", "surrogatepass")))
            try:
                make(server, max_retries=0).embed(["a"])
            except EmbedError:
                pass

        check()


@pytest.mark.parametrize("body", [DEEP, '{"data": [{"index": 0, "embedding": [' + BIG_INT + "]}]}"])
def test_openai_hostile_response_end_to_end(tmp_path, monkeypatch, capsys, skill_writer, body):
    from tests.support.embedding_server import EmbeddingServer

    skill_writer(tmp_path, "alpha", "Process refund requests")
    home = tmp_path.parent / f"{tmp_path.name}-xdg"
    (home / "skillsift").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    with EmbeddingServer() as server:
        (home / "skillsift" / "config.toml").write_text(
            f'[embeddings]\nprovider = "openai"\nbase_url = "{server.base_url}"\nmodel = "m"\n'
            "allow_network = true\nmax_retries = 0\ncache = false\n", encoding="utf-8")
        reply = (200, {"Content-Type": "application/json"}, body.encode())
        server.script.append(reply)
        code, _, err = run(capsys, "index", "--root", tmp_path)
        assert code == 1 and "malformed response" in err
        assert not (tmp_path / ".skillsift" / "index" / "manifest.json").exists()
        code, _, err = run(capsys, "index", "--root", tmp_path)
        assert code == 0, err
        server.script.append(reply)
        code, out, err = run(capsys, "search", "refund", "--mode", "hybrid", "--root", tmp_path, "--format", "json")
        assert code == 0 and json.loads(out)["degraded"] == "provider_unavailable"
        assert "malformed response" in err


PRINT_FILE = "import sys\nsys.stdin.buffer.read()\nsys.stdout.buffer.write(open(sys.argv[1], 'rb').read())\n"


def test_command_provider_with_hostile_output(tmp_path):
    import os

    from skillsift.embed.base import EmbedError
    from skillsift.embed.command import CommandProvider

    script, body = tmp_path / "print_file.py", tmp_path / "body.json"
    script.write_text(PRINT_FILE, encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", "")}

    @settings(max_examples=25, deadline=None)
    @given(hostile_json)
    def check(text):
        body.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            CommandProvider([sys.executable, str(script), str(body)], root=str(tmp_path), env=env).embed(["a"])
        except EmbedError:
            pass

    check()
