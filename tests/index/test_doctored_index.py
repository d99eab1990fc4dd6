"""Verified vectors: every doctoring of a committed index is refused by every reader, and says why.

Through the real CLI (in process) on a copy of examples/acme, with the real local model: each damage or
doctoring below is applied to the committed files as an attacker would (editing bytes and recomputing
``vectors_digest``, or writing with skillsift's own writer), then ``search`` (text and JSON) must not rank
with the bad row and must say why, ``status`` must not say fresh, and ``validate``, the index hook and
``ci`` must fail (AR9D1 error).  A property test on random indexes (fixed seed) checks that the loader
refuses exactly the rows that were touched and keeps every other row bit for bit, and a differential test
recomputes the row digest independently of the writer (docs/index-format.md, "Format 3: row digests").
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.ci.test_action import git
from tests.index.test_verify_rows import REFUND_TEXT, _local_model, doctor
from tests.support.cli import run

REFUND = "customer wants their money back"
VICTIM = "csv-cleanup"  # "paint the fence": a skill nothing about refunds should bring first
REQUEST_OF = "onboard-engineer"  # a skill with a known request ("someone new joins the team next week")


def index_dir(root: Path) -> Path:
    return root / ".skillsift" / "index"


def read(root: Path):
    d = index_dir(root)
    manifest = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
    code = "<f2" if manifest["dtype"] == "float16" else "<f4"
    rows = np.frombuffer((d / "vectors.bin").read_bytes(), dtype=code).reshape(-1, manifest["dims"]).copy()
    return manifest, rows, code


def write(root: Path, manifest: dict, raw: bytes, *, digest: str | None = None) -> None:
    d = index_dir(root)
    (d / "vectors.bin").write_bytes(raw)
    manifest["vectors_digest"] = digest or "sha256:" + hashlib.sha256(raw).hexdigest()
    (d / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def row_of(manifest: dict, name: str, kind: str = "skill") -> int:
    return next(item["row"] for item in manifest["items"] if item["id"] == name and item["kind"] == kind)


def set_row(value):
    """Set the victim's row to ``value(row)`` and recompute vectors_digest (the row digest is left)."""
    def apply(root: Path) -> None:
        manifest, rows, code = read(root)
        row = row_of(manifest, VICTIM)
        rows[row] = value(rows[row].astype(np.float32)).astype(code)
        write(root, manifest, rows.astype(code).tobytes())
    return apply


def example_row(root: Path) -> None:
    """A known request of another skill gets the refund text's vector (vectors_digest recomputed)."""
    manifest, rows, code = read(root)
    row = next(item["row"] for item in manifest["items"] if item["kind"] == "example" and item["id"] == REQUEST_OF)
    rows[row] = _local_model().embed([REFUND_TEXT])[0].astype(code)
    write(root, manifest, rows.astype(code).tobytes())


def reordered(root: Path) -> None:
    """Two skill items trade places in the manifest (rows and row digests stay where they were)."""
    manifest, rows, _code = read(root)
    items = manifest["items"]
    a, b = row_of(manifest, VICTIM), row_of(manifest, "issue-refund")
    for key in ("id", "item_digest", "text_digest"):
        items[a][key], items[b][key] = items[b][key], items[a][key]
    write(root, manifest, rows.tobytes())


def truncated(root: Path) -> None:
    manifest, rows, _code = read(root)
    write(root, manifest, rows.tobytes()[:-7])


def wrong_digest(root: Path) -> None:
    manifest, rows, _code = read(root)
    write(root, manifest, rows.tobytes(), digest="sha256:" + "0" * 64)


def naming(key: str, value: str):
    def apply(root: Path) -> None:
        manifest, rows, _code = read(root)
        manifest[key] = value
        write(root, manifest, rows.tobytes())
    return apply


def dims_383(root: Path) -> None:
    """Written with skillsift's own writer: every digest matches, only the width is not the model's."""
    from skillsift.index.store import load_index, new_index, write_index

    index = load_index(index_dir(root)).index
    m = index.manifest
    write_index(index_dir(root), new_index(provider=m.provider, model=m.model, items=index.items,
                                           vectors=np.array(index.matrix)[:, :383], fields=m.fields))


def sealed_zero(root: Path) -> None:
    """A zero row written by skillsift's own writer (its row digest matches)."""
    from skillsift.index.store import load_index, new_index, write_index

    index = load_index(index_dir(root)).index
    m = index.manifest
    matrix = np.array(index.matrix)
    matrix[index.row("", VICTIM)] = 0
    write_index(index_dir(root), new_index(provider=m.provider, model=m.model, items=index.items, vectors=matrix,
                                           fields=m.fields))


# name -> (doctoring, what search's stderr must say, JSON: "refused" rows named or "problem" of the index)
ROW = "its row_digest does not match"
DOCTORINGS = {
    "a row changed": (lambda root: doctor(index_dir(root), VICTIM, seal=False), ROW, ("refused", VICTIM)),
    "a known-request row changed": (example_row, ROW, ("refused", REQUEST_OF)),
    "a zero row": (set_row(lambda r: r * 0), ROW, ("refused", VICTIM)),
    "a zero row with its digest": (sealed_zero, "it is all zeros", ("refused", VICTIM)),
    "a NaN component": (set_row(lambda r: np.where(np.arange(r.size) == 3, np.nan, r)), ROW, ("refused", VICTIM)),
    "an infinite component": (set_row(lambda r: np.where(np.arange(r.size) == 0, np.inf, r)), ROW,
                              ("refused", VICTIM)),
    "a row scaled by 10": (set_row(lambda r: r * 10), ROW, ("refused", VICTIM)),
    "reordered items": (reordered, ROW, ("refused", VICTIM)),
    "dims 383": (dims_383, "the dimensions differ (index 383", ("problem", "")),
    "a truncated vectors.bin": (truncated, "the manifest needs", ("problem", "")),
    "a wrong digest": (wrong_digest, "does not match the manifest's vectors_digest", ("problem", "")),
    "another model": (naming("model", "text-embedding-3-small"), "the model changed", ("problem", "")),
    "a remote provider": (naming("provider", "openai@api.openai.com"), "the provider changed", ("problem", "")),
}


@pytest.fixture
def model():
    return _local_model()


def search(capsys, root, fmt="text"):
    return run(capsys, "search", REFUND, "--mode", "hybrid", "--root", root, "--format", fmt, "--limit", "20")


def test_the_attack_would_work_without_the_checks(acme, capsys, model):
    """The doctored row, were it used, brings the victim to the top for refund requests (the threat is real)."""
    from skillsift.config import load_config
    from skillsift.index.store import load_index
    from skillsift.ranker.search import Ranker

    doctor(index_dir(acme), VICTIM, seal=False)
    loaded = load_index(index_dir(acme))
    assert [r.id for r in loaded.refused] == [VICTIM]
    config = load_config(str(acme), mode="hybrid")
    from skillsift.catalog.load import load_catalog

    catalog = load_catalog(str(acme))
    manifest, rows, _ = read(acme)
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index

    items = [ManifestItem(i["id"], i["domain"], i["item_digest"], i["text_digest"], kind=i["kind"])
             for i in manifest["items"]]
    trusting = new_index(provider=manifest["provider"], model=manifest["model"], items=items, vectors=rows,
                         fields=manifest["fields"])
    ranker = Ranker(catalog, config, index=trusting, provider=model)
    assert ranker.search("I need my money back", limit=1, mode="hybrid").names == [VICTIM]


@pytest.mark.parametrize("case", sorted(DOCTORINGS))
def test_search_does_not_rank_with_a_doctored_index_and_says_why(acme, capsys, model, case):
    damage, said, (key, name) = DOCTORINGS[case]
    code, out, err = search(capsys, acme, "json")
    clean = json.loads(out)
    assert code == 0 and clean["results"][0]["name"] == "issue-refund" and "index" not in clean
    damage(acme)
    code, out, err = search(capsys, acme)
    assert code == 0, err
    assert said in err
    first = out.splitlines()[1].split()[2]  # the first hit of the table
    assert first not in (VICTIM, REQUEST_OF)
    code, out, err = search(capsys, acme, "json")
    doc = json.loads(out)
    assert code == 0 and doc["results"][0]["name"] == first
    if key == "refused":  # the rest of the index ranks on: the refused skill's true text is embedded for the run
        assert first == "issue-refund" and doc["ranking"] == "hybrid"
        assert [(r["name"], r["kind"]) for r in doc["index"]["refused"]] and \
            all(r["reason"] for r in doc["index"]["refused"])
        assert name in {r["name"] for r in doc["index"]["refused"]}
        assert said in doc["index"]["refused"][0]["reason"] or said in err
    else:  # no index at all: lexical ranking, with the reason
        assert doc["ranking"] == "lexical" and doc["degraded"] == "no_index"
        assert said in doc["index"]["problem"]
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    assert json.loads(out)["state"] != "fresh"


@pytest.mark.parametrize("case", sorted(DOCTORINGS))
def test_validate_fails_on_a_doctored_index(acme, capsys, case):
    damage, _said, _where = DOCTORINGS[case]
    if "known-request" in case:
        _local_model()
    damage(acme)
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    assert code == 1, out + err
    findings = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D1"]
    assert any(d["severity"] == "error" for d in findings), findings
    code, out, err = run(capsys, "validate", "--root", acme)
    assert code == 1 and "AR9D1" in out + err


def test_a_doctored_known_request_row_is_named_by_status(acme, capsys, model):
    example_row(acme)
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    report = json.loads(out)
    assert report["state"] == "stale"
    assert [(r["kind"], r["name"]) for r in report["refused"]] == [("example", REQUEST_OF)]
    code, out, _ = run(capsys, "status", "--root", acme)
    assert f"known request of {REQUEST_OF}: {ROW}" in out


def test_an_older_format_is_out_of_date_not_damage(acme, capsys):
    manifest, rows, _code = read(acme)
    manifest["schema_version"] = 2
    for item in manifest["items"]:
        del item["row_digest"]
    write(acme, manifest, rows.tobytes())
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    (finding,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D1"]
    assert finding["severity"] == "warning" and "format 2, whose rows carry no digest" in finding["message"]
    assert code == 0, out + err
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    assert json.loads(out)["state"] == "stale"
    code, out, err = run(capsys, "search", REFUND, "--mode", "hybrid", "--root", acme)
    assert code == 0 and "whose rows carry no digest" in err


def test_the_index_hook_fails_on_a_doctored_row_and_writes_the_true_one_back(acme, capsys, model):
    original = (index_dir(acme) / "vectors.bin").read_bytes()
    git(acme, "init", "-q")
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "base")
    set_row(lambda r: r * 10)(acme)
    code, out, err = run(capsys, "hook", "index", "--root", acme)
    assert code == 1, out + err
    assert "skillsift-index: rebuilt .skillsift/index" in out and "fails its checks" in out
    repaired = np.frombuffer((index_dir(acme) / "vectors.bin").read_bytes(), "<f4")
    assert np.abs(repaired - np.frombuffer(original, "<f4")).max() < 1e-5
    assert run(capsys, "hook", "index", "--root", acme)[0] == 0


def test_ci_fails_on_a_doctored_row(acme, capsys, monkeypatch, model):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)
    git(acme, "init", "-q")
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "base")
    git(acme, "checkout", "-q", "-b", "feature")
    example_row(acme)
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "pull request")
    git(acme, "update-ref", "refs/remotes/origin/main", "main")
    monkeypatch.chdir(acme)
    code, out, err = run(capsys, "ci", "--base", "main", "--annotations")
    assert code != 0, out + err
    assert "::error file=.skillsift/index/vectors.bin" in out and "known request of" in out


# -- the loader on random indexes (fixed seed) ---------------------------------------------------------------


def independent_row_digest(manifest: dict, item: dict, row_bytes: bytes) -> str:
    """docs/index-format.md, "Format 3: row digests", written again from the text."""
    h = hashlib.sha256()
    parts = [b"skillsift-row-digest-1"] + [str(v).encode() for v in (
        manifest["provider"], manifest["model"], manifest["dims"], manifest["dtype"],
        item["kind"], item["domain"], item["id"], item["text_digest"])] + [row_bytes]
    for part in parts:
        h.update(len(part).to_bytes(8, "big") + part)
    return "sha256:" + h.hexdigest()


def random_index(rng, dtype):
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index

    n, dims = int(rng.integers(2, 12)), int(rng.integers(1, 9))
    names = sorted({f"s{int(x)}" for x in rng.integers(0, 1000, n)})
    items = [ManifestItem(name, str(rng.choice(["", "d", "é"])), f"sha256:i{name}", f"sha256:t{name}")
             for name in names]
    items += [ManifestItem(names[0], "", "", f"sha256:e{k}", kind="example") for k in range(int(rng.integers(0, 3)))]
    vectors = rng.standard_normal((len(items), dims)).astype(np.float32) + 0.01
    return new_index(provider="local@all-MiniLM-L6-v2", model="all-MiniLM-L6-v2", items=items, vectors=vectors,
                     dtype=dtype)


def test_random_doctorings_refuse_exactly_the_touched_rows(tmp_path):
    from skillsift.index.store import load_index, write_index

    rng = np.random.default_rng(41)
    for trial in range(150):
        d = tmp_path / f"t{trial}"
        dtype = "float16" if trial % 3 == 0 else "float32"
        index = random_index(rng, dtype)
        write_index(d, index)
        manifest = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
        raw = bytearray((d / "vectors.bin").read_bytes())
        width = 2 if dtype == "float16" else 4
        stride = manifest["dims"] * width
        for item in manifest["items"]:  # the digests are what the format says, computed independently
            row_bytes = bytes(raw[item["row"] * stride:(item["row"] + 1) * stride])
            assert item["row_digest"] == independent_row_digest(manifest, item, row_bytes)
        touched = set()
        for _ in range(int(rng.integers(1, 4))):
            row = int(rng.integers(0, len(manifest["items"])))
            op = rng.choice(["flip", "zero", "nan", "scale", "swap", "text"])
            block = slice(row * stride, (row + 1) * stride)
            if op == "flip":
                raw[row * stride + int(rng.integers(0, stride))] ^= 1 << int(rng.integers(0, 8))
            elif op == "zero":
                raw[block] = bytes(stride)
            elif op == "nan":
                raw[block.start:block.start + width] = b"\x00\x7e" if width == 2 else struct_nan()
            elif op == "scale":
                code = "<f2" if width == 2 else "<f4"
                values = np.frombuffer(bytes(raw[block]), code).astype(np.float32) * 10
                raw[block] = values.astype(code).tobytes()
            elif op == "swap":
                other = (row + 1) % len(manifest["items"])
                a, b = bytes(raw[block]), bytes(raw[other * stride:(other + 1) * stride])
                if a == b:
                    continue
                raw[block], raw[other * stride:(other + 1) * stride] = b, a
                touched.add(other)
            else:
                manifest["items"][row]["text_digest"] = "sha256:other"
            touched.add(row)
        manifest["vectors_digest"] = "sha256:" + hashlib.sha256(bytes(raw)).hexdigest()
        (d / "vectors.bin").write_bytes(bytes(raw))
        (d / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        loaded = load_index(d)
        assert loaded.index is not None
        assert {r.row for r in loaded.refused} == touched, (trial, touched, loaded.refused)
        kept = [row for row in range(len(manifest["items"])) if row not in touched]
        assert [item.id for item in loaded.index.items] == [manifest["items"][row]["id"] for row in kept]
        assert np.array_equal(loaded.index.matrix, index.matrix[kept])
        assert np.isfinite(loaded.index.matrix).all()
        assert all(math.isclose(float(np.linalg.norm(r)), 1.0, abs_tol=1e-2) for r in loaded.index.matrix)


def struct_nan() -> bytes:
    return np.array([np.nan], "<f4").tobytes()


def test_the_loader_checks_once_per_process(tmp_path, monkeypatch):
    from skillsift.index import store

    write_dir = tmp_path / "i"
    store.write_index(write_dir, random_index(np.random.default_rng(7), "float32"))
    calls = []
    real = store.row_problems
    monkeypatch.setattr(store, "row_problems", lambda *a: calls.append(1) or real(*a))
    first = store.load_index(write_dir)
    for _ in range(5):
        assert store.load_index(write_dir) is first
    assert len(calls) == 1
    manifest = json.loads((write_dir / "manifest.json").read_text(encoding="utf-8"))
    manifest["items"][0]["row_digest"] = "sha256:" + "1" * 64
    (write_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    again = store.load_index(write_dir)  # a changed file is checked again
    assert len(calls) == 2 and [r.row for r in again.refused] == [0]


def test_the_written_manifest_follows_its_schema(tmp_path):
    from importlib import resources

    import jsonschema

    from skillsift.index.store import write_index

    schema = json.loads(resources.files("skillsift.schemas").joinpath("manifest.v3.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    rng = np.random.default_rng(3)
    for trial in range(10):
        write_index(tmp_path / str(trial), random_index(rng, "float32"))
        doc = json.loads((tmp_path / str(trial) / "manifest.json").read_text(encoding="utf-8"))
        assert not list(validator.iter_errors(doc))
        del doc["items"][0]["row_digest"]
        assert list(validator.iter_errors(doc))
    committed = Path(__file__).resolve().parents[2] / "examples" / "acme" / ".skillsift" / "index" / "manifest.json"
    assert not list(validator.iter_errors(json.loads(committed.read_text(encoding="utf-8"))))


def test_eval_names_a_refused_row_and_does_not_rank_with_it(acme, capsys, model):
    # Rows embedded on this machine: the row embedded again for the run is then the same to the last bit
    # (the committed rows come from another CPU, whose kernels round the last float digits differently).
    assert run(capsys, "index", "--root", acme, "--rebuild")[0] == 0
    code, out, _ = run(capsys, "eval", acme / "search-cases.yaml", "--mode", "hybrid", "--root", acme,
                       "--format", "json")
    before = json.loads(out)
    doctor(index_dir(acme), VICTIM, seal=False)
    code, out, err = run(capsys, "eval", acme / "search-cases.yaml", "--mode", "hybrid", "--root", acme,
                         "--format", "json")
    assert f"the skill {VICTIM}: {ROW}" in err
    after = json.loads(out)
    assert after["by_mode"] == before["by_mode"]  # the true row was embedded for the run: nothing moved
    assert "refused" not in before["index"]
    assert [(r["name"], r["kind"]) for r in after["index"].pop("refused")] == [(VICTIM, "skill")]
    assert after["index"] == before["index"]


def test_the_mcp_server_drops_a_doctored_known_request_row_and_says_why(tmp_path, capsys):
    """Over stdio with the official MCP client: the doctored row of a known request is not used, the log says so."""
    from tests.conftest import write_skill
    from tests.mcpserver.test_mcp import _text, talk
    from tests.support.cli import set_user_config
    from tests.support.concept_embedder import user_config

    root = tmp_path / "proj"
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    (root / "skillsift.toml").write_text('[search]\nmode = "vector"\nexamples = ["known.yaml"]\n'
                                         "example_weight = 1.0\n", encoding="utf-8")
    (root / "known.yaml").write_text('version: 1\ncases:\n  - id: k\n    query: "bank dispute"\n'
                                     "    expect: [git-workflow]\n", encoding="utf-8")
    set_user_config(user_config())
    assert run(capsys, "index", "--root", root)[0] == 0
    errlog = tmp_path / "server-stderr.txt"

    async def script(session):
        return await session.call_tool("find_skill", {"query": "bank dispute"})

    assert json.loads(_text(talk(root, errlog, script)))["results"][0]["name"] == "git-workflow"
    manifest, rows, code = read(root)
    row = row_of(manifest, "git-workflow", "example")
    rows[row] = -rows[row]  # still unit length: only its row digest tells
    write(root, manifest, rows.astype(code).tobytes())
    found = json.loads(_text(talk(root, errlog, script)))
    assert found["results"][0]["name"] == "dispute-charge"  # the known request is not used
    log = errlog.read_text(encoding="utf-8")
    assert "fails its checks and is not used" in log and "the known request of git-workflow" in log


def sealed_example_row(root: Path) -> None:
    """A known request's row replaced by the refund text's vector and written by skillsift's own writer:
    every digest (row, file) matches, only re-embedding the request shows the row is not its text's."""
    from skillsift.index.store import load_index, new_index, write_index

    index = load_index(index_dir(root)).index
    m = index.manifest
    matrix = np.array(index.matrix)
    row = next(r for r, item in index.example_items() if item.id == REQUEST_OF)
    matrix[row] = _local_model().embed([REFUND_TEXT])[0]
    write_index(index_dir(root), new_index(provider=m.provider, model=m.model, items=index.items, vectors=matrix,
                                           fields=m.fields, dtype=m.dtype))


def test_a_sealed_known_request_row_is_caught_by_re_embedding_in_validate_status_and_ci(acme, capsys, monkeypatch,
                                                                                      model):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)
    git(acme, "init", "-q")
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "base")
    git(acme, "checkout", "-q", "-b", "feature")
    sealed_example_row(acme)
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    assert code == 1, out + err
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D1" and d["severity"] == "error"]
    assert any(f"{REQUEST_OF} (known request" in d["message"] for d in found), found
    code, out, _err = run(capsys, "status", "--root", acme)
    assert f"{REQUEST_OF} (known request" in out
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "pull request")
    git(acme, "update-ref", "refs/remotes/origin/main", "main")
    monkeypatch.chdir(acme)
    code, out, err = run(capsys, "ci", "--base", "main")
    assert code != 0, out + err
    assert f"{REQUEST_OF} (known request" in out
