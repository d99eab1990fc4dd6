"""`skillsift index` end to end (reference §5.6-§5.9): outputs, exit codes, dry run, network
refusal, withholding, refusals, stops, the lock, SIGKILL safety, progress and the local model.

The provider is the concepts-v1 test embedder run as the user's ``command`` provider."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillsift.cli import main
from skillsift.index.lock import LOCK_FILE, acquire_lock, read_holder
from skillsift.index.store import load_index
from tests.conftest import ACME, write_refund_catalog
from tests.support.cli import run as run_cli
from tests.support.cli import set_user_config
from tests.support.concept_embedder import user_config

AWS_KEY = "AKIAQ3ZR7T2MWX9PLK4N"
SUMMARY_KEYS = ["schema_version", "dry_run", "provider", "host", "model", "total", "reused", "embedded", "to_embed",
                "withheld", "missing", "bytes", "tokens", "cost_usd", "calls", "rejected", "written"]
NAMES = ["deploy-staging", "dispute-charge", "git-workflow", "issue-refund"]  # catalog (path) order


def use_embedder(*options: str, extra: str = "") -> None:
    set_user_config(user_config(*options, extra=extra))


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    write_refund_catalog(root)
    use_embedder()
    return root


def run(capsys, root, *argv):
    return run_cli(capsys, "index", "--root", root, *argv)


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def index_dir(root: Path) -> Path:
    return root / ".skillsift" / "index"


# --------------------------------------------------------------------------- builds


def test_build_then_nothing_to_do(project, capsys, monkeypatch):
    monkeypatch.chdir(project.parent)
    tokens = json.loads(run(capsys, project, "--dry-run", "--format", "json")[1])["tokens"]
    code, out, err = run(capsys, project)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"embedded 4, reused 0, withheld 0 of 4 skills   (1 call, {tokens} tokens)"
    assert lines[1] == "wrote proj/.skillsift/index"
    loaded = load_index(index_dir(project))
    assert loaded.ok and [item.id for item in loaded.index.items] == NAMES and loaded.index.dims == 5
    mtime = (index_dir(project) / "manifest.json").stat().st_mtime_ns
    assert not (index_dir(project) / LOCK_FILE).exists()

    code, out, err = run(capsys, project)
    assert code == 0
    assert out.splitlines() == ["embedded 0, reused 4, withheld 0 of 4 skills   (0 calls, 0 tokens)",
                                "index is current, nothing written"]
    assert (index_dir(project) / "manifest.json").stat().st_mtime_ns == mtime


def test_a_body_edit_outside_the_embedded_text_rewrites_nothing(project, capsys, skill_writer):
    assert run(capsys, project)[0] == 0
    folder = index_dir(project)
    before = {name: ((folder / name).read_bytes(), (folder / name).stat().st_mtime_ns)
              for name in ("manifest.json", "vectors.bin")}
    skill_writer(project, "git-workflow", "Branching and pull request conventions", body="A longer body.\n")
    time.sleep(0.01)
    code, out, err = run(capsys, project)
    assert code == 0, err
    assert out.splitlines() == ["embedded 0, reused 4, withheld 0 of 4 skills   (0 calls, 0 tokens)",
                                "index is current, nothing written"]
    assert {name: ((folder / name).read_bytes(), (folder / name).stat().st_mtime_ns) for name in before} == before


def test_a_body_edit_is_recorded_when_another_skill_changes(project, capsys, skill_writer):
    assert run(capsys, project)[0] == 0
    skill_writer(project, "git-workflow", "Branching and pull request conventions", body="Longer.\n")
    skill_writer(project, "deploy-staging", "Roll a service out to the staging cluster, carefully")
    code, out, _ = run(capsys, project)
    assert code == 0 and "wrote " in out
    manifest = json.loads((index_dir(project) / "manifest.json").read_text())
    from skillsift.catalog.load import load_catalog
    from skillsift.config import load_config

    config = load_config(str(project))
    digest = {s.name: s.digest for s in load_catalog(str(project), config).skills}["git-workflow"]
    assert {i["id"]: i["item_digest"] for i in manifest["items"]}["git-workflow"] == digest


@pytest.mark.parametrize("where", ["index_dir", "parent"])
def test_an_index_dir_symlinked_outside_the_repository_is_refused(project, capsys, tmp_path, where):
    outside = tmp_path / "outside"
    outside.mkdir()
    if where == "index_dir":
        (project / ".skillsift").mkdir()
        (project / ".skillsift" / "index").symlink_to(outside)
    else:
        (project / ".skillsift").symlink_to(outside)
    code, out, err = run(capsys, project)
    assert code == 1 and out == ""
    # refused when the config is loaded (every command, docs/bounded-input.md), before the index command's own check
    link = ".skillsift/index" if where == "index_dir" else ".skillsift"
    assert 'AR9D0: search.index_dir ".skillsift/index" leads outside the repository' in err
    assert f"hint: replace the link {link} with a folder of the repository" in err
    assert sorted(os.listdir(outside)) == []  # neither the index nor the lock went there


def test_an_index_dir_linked_inside_the_repository_is_refused_too(project, capsys):
    (project / "real-index").mkdir()
    (project / ".skillsift").mkdir()
    (project / ".skillsift" / "index").symlink_to(project / "real-index")
    code, _, err = run(capsys, project)
    assert code == 1 and "is a symbolic link" in err
    assert os.listdir(project / "real-index") == []


def test_a_parent_linked_inside_the_repository_is_fine(project, capsys):
    (project / "state").mkdir()
    (project / ".skillsift").symlink_to(project / "state")
    code, _, err = run(capsys, project)
    assert code == 0, err
    assert load_index(project / "state" / "index").ok


def test_json_summary(project, capsys, skill_writer):
    code, out, _ = run(capsys, project, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and list(doc) == SUMMARY_KEYS
    assert doc["provider"] == f"command:{sys.executable}" and doc["host"] == "" and doc["dry_run"] is False
    assert (doc["total"], doc["reused"], doc["embedded"], doc["to_embed"], doc["calls"]) == (4, 0, 4, 4, 1)
    assert doc["withheld"] == [] and doc["missing"] == [] and doc["rejected"] == [] and doc["written"] is True
    assert doc["bytes"] > 0 and doc["tokens"] == pytest.approx(doc["bytes"] / 3, abs=4) and doc["cost_usd"] == 0

    skill_writer(project, "git-workflow", "Branching, pull request and git conventions")
    code, out, _ = run(capsys, project, "--format", "json")
    doc = json.loads(out)
    assert (doc["reused"], doc["embedded"], doc["calls"], doc["written"]) == (3, 1, 1, True)


def test_items_forces_and_rebuild_redoes(project, capsys):
    assert run(capsys, project)[0] == 0
    code, out, _ = run(capsys, project, "--items", "git-workflow", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and (doc["embedded"], doc["reused"]) == (1, 3)
    code, out, _ = run(capsys, project, "--rebuild", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and (doc["embedded"], doc["reused"]) == (4, 0) and "rebuild_reason" not in doc


@pytest.mark.parametrize("items", ["nope", "git-workflow,nope"])
def test_unknown_items_exit_1(project, capsys, items):
    code, out, err = run(capsys, project, "--items", items)
    assert code == 1 and out == ""
    assert 'error: --items "nope": no such served skill' in err
    assert not index_dir(project).exists()


def test_float16_from_config(project, capsys):
    (project / "skillsift.toml").write_text('[search]\ndtype = "float16"\n')
    assert run(capsys, project)[0] == 0
    loaded = load_index(index_dir(project))
    assert loaded.index.manifest.dtype == "float16"
    assert (index_dir(project) / "vectors.bin").stat().st_size == 4 * 5 * 2


# --------------------------------------------------------------------------- dry run


def test_dry_run_calls_nothing_and_writes_nothing(project, capsys, tmp_path):
    log = tmp_path / "calls.jsonl"
    use_embedder("--log", str(log))
    code, out, err = run(capsys, project, "--dry-run")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"provider   command:{sys.executable}   (no network)"
    assert lines[1] == "model      (none configured)"
    assert lines[2].startswith("items      4   cached 0   to embed 4   withheld 0   est. tokens ")
    assert lines[2].endswith("est. cost <= $0.000000")
    assert lines[3] == "fields     description, triggers, keywords   body: no"
    assert lines[4].startswith("egress     4 texts, 0.2 KiB -> command:")
    assert len(lines) == 5
    assert calls(log) == [] and not index_dir(project).exists()

    code, out, _ = run(capsys, project, "--dry-run", "--format", "json")
    doc = json.loads(out)
    assert list(doc) == SUMMARY_KEYS and doc["dry_run"] is True and doc["written"] is False
    assert (doc["to_embed"], doc["embedded"], doc["calls"]) == (4, 0, 0)
    assert doc["tokens"] > 0 and doc["bytes"] > 0


def test_dry_run_shows_the_rebuild_reason(project, capsys):
    assert run(capsys, project)[0] == 0
    (project / "skillsift.toml").write_text('[search]\nindex_body = true\nbody_chars = 40\n')
    code, out, _ = run(capsys, project, "--dry-run")
    assert code == 0
    assert "fields     description, triggers, keywords   body: first 40 characters" in out
    assert out.splitlines()[-1] == "rebuild    the existing index cannot be reused: index_body or body_chars changed"
    code, out, _ = run(capsys, project, "--dry-run", "--format", "json")
    assert json.loads(out)["rebuild_reason"] == "index_body or body_chars changed"


def test_dry_run_of_a_networked_provider_needs_no_key_and_estimates_cost(project, capsys):
    set_user_config('[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\n')
    code, out, err = run(capsys, project, "--dry-run")  # no key: the provider cannot be built
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "provider   openai@default   (allow_network=false)"
    assert lines[1] == "model      text-embedding-3-small"
    assert lines[4].startswith("egress     4 texts, ") and lines[4].endswith(" KiB -> default")
    doc = json.loads(run(capsys, project, "--dry-run", "--format", "json")[1])
    assert doc["cost_usd"] == pytest.approx(doc["tokens"] * 0.02 / 1e6)
    assert doc["host"] == "default"
    code, _, err = run(capsys, project)
    assert code == 1 and "no API key" in err


def test_dry_run_with_an_unknown_price(project, capsys):
    set_user_config('[embeddings]\nprovider = "openai"\nmodel = "house-model"\nbase_url = "http://127.0.0.1:9/v1"\n')
    code, out, _ = run(capsys, project, "--dry-run")
    assert code == 0
    assert "est. cost unknown (no price for this model; set price_input_per_mtok in the user config)" in out
    assert out.splitlines()[4].endswith("-> 127.0.0.1:9")
    assert json.loads(run(capsys, project, "--dry-run", "--format", "json")[1])["cost_usd"] is None


# --------------------------------------------------------------------------- refusals to send


def test_network_disabled_refuses_before_anything(project, capsys):
    set_user_config('[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\n'
                    'base_url = "http://127.0.0.1:9/v1"\n')
    code, out, err = run(capsys, project)
    assert code == 1 and out == ""
    doc = json.loads(run(capsys, project, "--dry-run", "--format", "json")[1])
    assert (f"error: skillsift index would send 4 texts ({doc['bytes']} bytes) to 127.0.0.1:9, "
            "but the network is disabled") in err
    assert "hint: set allow_network = true in the [embeddings] table of" in err
    assert not index_dir(project).exists()


def test_secret_is_withheld_and_never_sent(tmp_path, capsys):
    root = tmp_path / "proj"
    write_refund_catalog(root, staging=f"Roll a service out to staging using {AWS_KEY}")
    log = tmp_path / "calls.jsonl"
    use_embedder("--log", str(log))
    code, out, err = run(capsys, root, "--format", "json")
    assert code == 0
    assert ('AR9D3: skill "deploy-staging" was not embedded: its text looks like it holds a secret '
            "(aws-access-key); it ranks lexically only") in err
    doc = json.loads(out)
    assert doc["withheld"] == [{"id": "deploy-staging", "kind": "aws-access-key"}]
    assert doc["missing"] == ["deploy-staging"] and doc["embedded"] == 3
    sent = [text for batch in calls(log) for text in batch]
    assert len(sent) == 3 and not any("AKIA" in text for text in sent)
    assert load_index(index_dir(root)).index.row("", "deploy-staging") == -1


def test_refused_skill_exits_2(project, capsys, tmp_path):
    log = tmp_path / "calls.jsonl"
    use_embedder("--log", str(log), "--reject", "staging", extra="[search]\nbatch_size = 4\n")
    code, out, err = run(capsys, project)
    assert code == 2
    assert [len(batch) for batch in calls(log)] == [4, 2, 1, 1, 2]
    assert 'skillsift index: the provider rejected skill "deploy-staging" even alone (' in err
    assert "skillsift index skipped 1 skill the provider rejected: deploy-staging" in err
    assert out.startswith("embedded 3, reused 0, withheld 0 of 4 skills")
    assert len(load_index(index_dir(project)).index) == 3
    code, out, _ = run(capsys, project, "--format", "json")
    doc = json.loads(out)
    assert code == 2 and [r["id"] for r in doc["rejected"]] == ["deploy-staging"]
    assert doc["missing"] == ["deploy-staging"] and "stopped" not in doc


def test_budget_stop_keeps_the_first_batch_and_exits_2(project, capsys):
    use_embedder(extra="max_calls = 1\n[search]\nbatch_size = 2\n")
    code, out, err = run(capsys, project)
    assert code == 2
    assert "skillsift index stopped early: the embeddings budget is spent" in err
    assert "  2 skills have no vector and rank lexically: git-workflow, issue-refund" in err
    assert "hint: raise the limit" in err
    assert [item.id for item in load_index(index_dir(project)).index.items] == NAMES[:2]


def test_budget_before_any_vector_writes_nothing_and_exits_1(project, capsys):
    use_embedder(extra="max_tokens = 1\n")
    code, out, err = run(capsys, project)
    assert code == 1
    assert "error: nothing was embedded: the next embedding call could use" in err
    assert not (index_dir(project) / "manifest.json").exists()
    assert not (index_dir(project) / LOCK_FILE).exists()


def test_a_provider_that_cannot_run_leaves_the_old_index_whole(project, capsys, skill_writer):
    assert run(capsys, project)[0] == 0
    folder = index_dir(project)
    before = {name: (folder / name).read_bytes() for name in ("manifest.json", "vectors.bin")}
    skill_writer(project, "git-workflow", "Branching, pull request and git conventions")
    use_embedder(extra="max_tokens = 1\n")  # the first (and only) call is refused by the budget
    code, out, err = run(capsys, project)
    assert code == 1 and "wrote" not in out
    assert "error: nothing was embedded" in err
    assert {name: (folder / name).read_bytes() for name in before} == before  # not 3 of 4 rows


def test_provider_that_cannot_be_built_exits_1(project, capsys):
    set_user_config('[embeddings]\nprovider = "command"\ncommand = [" "]\n')
    code, _, err = run(capsys, project)
    assert code == 1 and "error:" in err and not index_dir(project).exists()


@pytest.mark.parametrize("how", ["nan", "short", "wide"])
@pytest.mark.parametrize("rebuild", [False, True])
def test_a_broken_answer_after_the_first_batch_writes_nothing_and_exits_1(project, capsys, skill_writer, how,
                                                                          rebuild):
    assert run(capsys, project)[0] == 0
    folder = index_dir(project)
    before = {name: (folder / name).read_bytes() for name in ("manifest.json", "vectors.bin")}
    skill_writer(project, "deploy-staging", "Roll a service out to the staging cluster, carefully")
    skill_writer(project, "dispute-charge", "Handle a chargeback dispute from a bank, promptly")
    use_embedder(f"--{how}", "chargeback", extra="[search]\nbatch_size = 1\n")
    code, out, err = run(capsys, project, *(["--rebuild"] if rebuild else []))
    assert code == 1, (out, err)
    assert "nothing was written" in err and "wrote" not in out
    assert {name: (folder / name).read_bytes() for name in before} == before


# --------------------------------------------------------------------------- the lock


def test_held_lock_refuses_with_the_holder_pid(project, capsys):
    with acquire_lock(index_dir(project)):
        code, out, err = run(capsys, project)
    assert code == 1 and out == ""
    assert f"another 'skillsift index' run (pid {os.getpid()}) holds" in err
    assert "hint: wait for it to finish" in err
    assert not (index_dir(project) / "manifest.json").exists()


def wait_for_calls(log: Path, count: int, proc, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while len(calls(log)) < count:
        if proc.poll() is not None:
            raise AssertionError(f"the build ended early: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("the build made no progress")
        time.sleep(0.02)


def slow_build(root: Path, log: Path) -> subprocess.Popen:
    use_embedder("--sleep", "0.4", "--log", str(log), extra="[search]\nbatch_size = 1\n")
    return subprocess.Popen([sys.executable, "-m", "skillsift", "index", "--root", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))


def test_two_concurrent_builds_one_is_refused(project, capsys, tmp_path):
    log = tmp_path / "calls.jsonl"
    proc = slow_build(project, log)
    try:
        wait_for_calls(log, 1, proc)
        code, out, err = run(capsys, project)
    finally:
        stdout, stderr = proc.communicate(timeout=60)
    assert code == 1 and f"(pid {proc.pid}) holds" in err
    assert proc.returncode == 0, stderr
    assert b"wrote " in stdout and len(load_index(index_dir(project)).index) == 4


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is a POSIX signal")
def test_sigkill_mid_build_leaves_the_previous_index(project, capsys, tmp_path, skill_writer):
    assert run(capsys, project)[0] == 0
    folder = index_dir(project)
    before = {name: (folder / name).read_bytes() for name in ("manifest.json", "vectors.bin")}
    write_refund_catalog(project, staging="Roll a service out to the staging cluster, carefully")
    skill_writer(project, "issue-refund", "Reimburse a customer for a returned purchase, quickly")
    skill_writer(project, "git-workflow", "Branching, pull request and git conventions")
    log = tmp_path / "calls.jsonl"
    proc = slow_build(project, log)
    wait_for_calls(log, 2, proc)  # the first batch is done, the second is running
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    assert {name: (folder / name).read_bytes() for name in before} == before
    # leftovers of a write cut short are never read as the index
    (folder / "manifest.json.tmp-k1ll3d").write_text('{"schema_version": 1, "items": []}')
    (folder / "vectors.bin.tmp-k1ll3d").write_bytes(b"\x00" * 12)
    loaded = load_index(folder)
    assert loaded.ok and loaded.index.to_bytes() == (before["manifest.json"], before["vectors.bin"])
    assert main(["status", "--root", str(project), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == "stale"

    # the dead run's lock names this host and a pid that is gone: the next build takes it over
    lock = folder / LOCK_FILE
    assert read_holder(str(lock)) == proc.pid
    use_embedder()
    code, out, err = run(capsys, project)
    assert code == 0, err
    assert out.startswith("embedded 3, reused 1,") and not lock.exists()


# --------------------------------------------------------------------------- progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("batch_size", "shown"), [(1, True), (2, False)])
def test_progress_bar_only_on_a_terminal_for_more_than_three_batches(project, monkeypatch, batch_size, shown):
    use_embedder(extra=f"[search]\nbatch_size = {batch_size}\n")
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["index", "--root", str(project)]) == 0
    assert ("embedding" in terminal.getvalue()) is shown
    assert "embedding" not in stdout.getvalue() and "wrote " in stdout.getvalue()


def test_no_progress_bar_when_stderr_is_not_a_terminal(project, capsys):
    use_embedder(extra="[search]\nbatch_size = 1\n")
    code, out, err = run(capsys, project)
    assert code == 0 and "embedding" not in err


# --------------------------------------------------------------------------- the local model


def test_local_provider_on_the_example_repository(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    from skillsift.embed.local import local_model_available

    available, why = local_model_available()
    if not available:
        pytest.skip(f"the local model cannot run here: {why}")
    root = tmp_path / "acme"
    shutil.copytree(ACME, root, ignore=shutil.ignore_patterns(".skillsift"))
    code, out, err = run(capsys, root)
    assert code == 0, err
    assert out.startswith("embedded 42, reused 0, withheld 0 of 27 skills and 15 known requests")
    loaded = load_index(index_dir(root))
    assert loaded.ok and len(loaded.index) == 42 and loaded.index.dims == 384
    assert len(loaded.index.example_items()) == 15
    assert loaded.index.manifest.provider == "local@all-MiniLM-L6-v2"
    code, out, _ = run(capsys, root)
    assert code == 0 and out.splitlines()[-1] == "index is current, nothing written"
    code, out, _ = run(capsys, root, "--dry-run")
    assert out.splitlines()[0] == "provider   local@all-MiniLM-L6-v2   (in process, no network)"


def test_a_repository_command_runs_only_with_allow_exec(tmp_path, capsys):
    from tests.support.concept_embedder import command_argv

    root = tmp_path / "proj"
    write_refund_catalog(root)
    set_user_config("")
    argv = ", ".join(json.dumps(arg) for arg in command_argv())
    (root / "skillsift.toml").write_text(f'[embeddings]\nprovider = "command"\ncommand = [{argv}]\n')
    code, _, err = run(capsys, root)
    assert code == 1 and "a repository cannot run a program" in err
    assert not index_dir(root).exists()
    code, out, err = run(capsys, root, "--allow-exec")
    assert code == 0, err
    assert out.startswith("embedded 4, reused 0")
    # status names the repository's command without running it
    assert main(["status", "--root", str(root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == "fresh"
