"""A doctored committed index is caught by re-embedding (docs/index-format.md, "Verifying the committed vectors").

The attack: one row of examples/acme's committed vectors.bin replaced with the embedding of refund requests and
``vectors_digest`` recomputed, so the files load and look current.  validate, the index hook and ci must name the
skill (AR9D1); ``index`` must write the true row back.  Real files, the real local model, real git.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.ci.test_action import git
from tests.support.cli import run

ROOT = Path(__file__).resolve().parents[2]
ACME = ROOT / "examples" / "acme"
VICTIM = "csv-cleanup"
REFUND_TEXT = "customer wants money back: refund the purchase, reimburse the order, money returned"


def _local_model():
    from skillsift.embed.local import LocalProvider, local_model_available

    ok, why = local_model_available()
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"the local model must run in CI: {why}")
        pytest.skip(why)
    return LocalProvider()


def doctor(index_dir: Path, victim: str, text: str = REFUND_TEXT, *, seal: bool = True) -> None:
    """Replace ``victim``'s row with the embedding of ``text`` and recompute vectors_digest and (``seal``) the
    row's row_digest (as an attacker who knows the format does: only re-embedding tells the row is not its
    text's).  Without ``seal`` the row digest is left as it was (as an attacker who edits the bytes does)."""
    import numpy as np

    from skillsift.index.manifest import ManifestItem, parse_manifest
    from skillsift.index.store import row_digest

    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    code = "<f2" if manifest["dtype"] == "float16" else "<f4"
    rows = np.frombuffer((index_dir / "vectors.bin").read_bytes(), dtype=code).reshape(-1, manifest["dims"]).copy()
    row = next(item["row"] for item in manifest["items"] if item["id"] == victim)
    rows[row] = _local_model().embed([text])[0].astype(code)
    raw = rows.astype(code).tobytes()
    (index_dir / "vectors.bin").write_bytes(raw)
    manifest["vectors_digest"] = "sha256:" + hashlib.sha256(raw).hexdigest()
    header = parse_manifest(json.dumps({**manifest, "items": []}).encode())
    item = manifest["items"][row]
    if not seal:
        (index_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        return
    stride = len(raw) // len(manifest["items"])
    item["row_digest"] = row_digest(header, ManifestItem(item["id"], item["domain"], text_digest=item["text_digest"],
                                                         kind=item["kind"]), raw[row * stride:(row + 1) * stride])
    (index_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def assert_repaired(index_dir: Path, original: dict[str, bytes], victim: str = VICTIM) -> None:
    """The index is the committed one again: every other row byte for byte, the victim's row the true
    embedding up to the last bits a float32 takes from this machine's CPU and onnxruntime build (the
    committed row was embedded elsewhere), and the manifest the same but for the digests of those bytes."""
    import numpy as np

    before = json.loads(original["manifest.json"])
    after = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))

    def but_the_victims_bytes(manifest: dict) -> dict:
        items = [{k: v for k, v in item.items() if not (item["id"] == victim and k == "row_digest")}
                 for item in manifest["items"]]
        return {**{k: v for k, v in manifest.items() if k != "vectors_digest"}, "items": items}

    assert but_the_victims_bytes(after) == but_the_victims_bytes(before)
    raw = (index_dir / "vectors.bin").read_bytes()
    assert after["vectors_digest"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    code = "<f2" if before["dtype"] == "float16" else "<f4"
    old = np.frombuffer(original["vectors.bin"], dtype=code).reshape(-1, before["dims"])
    new = np.frombuffer(raw, dtype=code).reshape(-1, before["dims"])
    row = next(item["row"] for item in before["items"] if item["id"] == victim)
    others = [i for i in range(len(old)) if i != row]
    assert old[others].tobytes() == new[others].tobytes()
    assert float(np.abs(old[row].astype(np.float64) - new[row]).max()) < 1e-6


@pytest.fixture
def acme(tmp_path, monkeypatch):
    """examples/acme copied, in hybrid mode, with a cache folder of its own (nothing verified before)."""
    _local_model()
    project = tmp_path / "acme"
    shutil.copytree(ACME, project)
    config = project / "skillsift.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('mode = "lexical"', 'mode = "hybrid"', 1),
                      encoding="utf-8")
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SKILLSIFT_CACHE", raising=False)
    return project


def top(capsys, project, query) -> str:
    code, out, err = run(capsys, "search", query, "--root", project, "--format", "json", "--limit", "1")
    assert code == 0, err
    return json.loads(out)["results"][0]["name"]


def test_the_committed_acme_index_verifies(acme, capsys):
    code, out, err = run(capsys, "validate", "--root", acme)
    assert code == 0, out + err
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    report = json.loads(out)
    assert report["state"] == "fresh"
    rows = len(json.loads((acme / ".skillsift/index/manifest.json").read_text(encoding="utf-8"))["items"])
    assert rows == 42  # 27 skills and 15 known requests: every row re-embedded once, by validate
    assert report["verified"]["mismatched"] == [] and report["verified"]["remembered"] == rows


def test_a_doctored_row_is_named_by_validate_status_and_the_hook_and_index_repairs_it(acme, capsys):
    index_dir = acme / ".skillsift" / "index"
    original = {name: (index_dir / name).read_bytes() for name in ("manifest.json", "vectors.bin")}
    assert top(capsys, acme, "I need my money back") == "issue-refund"
    run(capsys, "validate", "--root", acme)  # every true row is now remembered as verified
    doctor(index_dir, VICTIM)
    # every digest checks out, but search re-embeds the rows of its hits: the doctored row is refused
    assert top(capsys, acme, "I need my money back") == "issue-refund"
    code, out, err = run(capsys, "search", "I need my money back", "--root", acme, "--format", "json")
    assert [r["name"] for r in json.loads(out)["index"]["refused"]] == [VICTIM]
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    assert code == 1, out + err
    (finding,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D1"]
    assert finding["severity"] == "error" and finding["file"] == ".skillsift/index/vectors.bin"
    assert f"re-embedded and compared: {VICTIM})" in finding["message"]
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    report = json.loads(out)
    assert report["state"] == "stale" and report["verified"]["mismatched"] == [VICTIM]
    assert report["verified"]["remembered"] == 41  # the true rows (skills and requests) verified by validate above
    code, out, _ = run(capsys, "status", "--root", acme)
    assert f"not their embedding: {VICTIM}" in out
    # the index hook (in a real git repository) rebuilds the row and asks for the files to be staged
    git(acme, "init", "-q")
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "doctored")
    code, out, err = run(capsys, "hook", "index", "--root", acme)
    assert code == 1, out + err
    assert "skillsift-index: rebuilt .skillsift/index" in out and VICTIM in out
    assert_repaired(index_dir, original)
    assert run(capsys, "hook", "index", "--root", acme)[0] == 0
    assert top(capsys, acme, "I need my money back") == "issue-refund"


def test_an_incremental_index_rewrites_the_doctored_row(acme, capsys):
    index_dir = acme / ".skillsift" / "index"
    original = {name: (index_dir / name).read_bytes() for name in ("manifest.json", "vectors.bin")}
    doctor(index_dir, VICTIM)
    code, out, err = run(capsys, "index", "--root", acme)
    assert code == 0, out + err
    assert "embedded 1, reused 41" in out + err
    assert_repaired(index_dir, original)
    code, out, err = run(capsys, "validate", "--root", acme)
    assert code == 0, out + err


def test_ci_re_embeds_every_row_even_those_this_machine_verified(acme, capsys, monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)
    git(acme, "init", "-q")
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "base")
    git(acme, "checkout", "-q", "-b", "feature")
    run(capsys, "validate", "--root", acme)  # remembers the true rows
    index_dir = acme / ".skillsift" / "index"
    doctor(index_dir, VICTIM)
    # plant the doctored pair as "verified" in the cache: ci must not trust it
    from skillsift.index.store import load_index
    from skillsift.index.verify import VerifiedRows, _model_id

    index = load_index(index_dir).index
    row = index.row("", VICTIM)
    cache = VerifiedRows(str(acme))
    cache.entries = dict(cache.entries)
    cache.add(VerifiedRows.key(_model_id(_local_model()), index.items[row].text_digest, index.matrix[row].tobytes()))
    for key in cache.entries:
        cache.fresh.setdefault(key, 1)
    assert cache.save()
    code, out, err = run(capsys, "validate", "--root", acme)
    assert code == 0  # validate trusts this machine's cache (documented) ...
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "pull request")
    git(acme, "update-ref", "refs/remotes/origin/main", "main")
    monkeypatch.chdir(acme)
    code, out, err = run(capsys, "ci", "--base", "main", "--annotations")
    assert code != 0, out + err  # ... ci embeds every row again
    assert "::error file=.skillsift/index/vectors.bin" in out and VICTIM in out


def test_the_tolerance_covers_float16_rounding_and_not_another_text():
    import numpy as np

    from skillsift.index.verify import TOLERANCE

    provider = _local_model()
    texts = ["Clean a messy CSV export", "Issue a refund for an order", REFUND_TEXT, "Roll a release back"]
    first = provider.embed(texts)
    again = np.vstack([provider.embed([t]) for t in texts])
    assert float(np.abs(first - again).max()) == 0.0  # same bytes, alone or in a batch
    half = first.astype(np.float16).astype(np.float32)  # what a float16 index stores
    assert float(np.abs(half - first).max()) < TOLERANCE / 4
    assert float(np.abs(first[0] - first[2]).max()) > 10 * TOLERANCE
