"""The query log writer and reader (reference §7, §10.7): format, hashing, caps, skips, safety."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from skillsift.config import Config, SearchConfig, load_config
from skillsift.evaluate import querylog
from skillsift.evaluate.querylog import (
    FULL_WARNING,
    MAX_LOG_BYTES,
    QueryLog,
    clean_query,
    cut_utf8,
    format_ts,
    hash_session,
    log_path,
    make_entry,
    open_log,
    read_log,
    scan_log,
)
from skillsift.secrets.scan import detect_secret

FIXED = datetime(2026, 10, 6, 12, 0, 0, tzinfo=timezone.utc)


def fixed_clock():
    return FIXED


@pytest.fixture(autouse=True)
def _fresh_full_warning(monkeypatch):
    monkeypatch.setattr(querylog, "_full_warned", False)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def make_log(tmp_path, warnings=None, **kwargs) -> QueryLog:
    sink = warnings if warnings is not None else []
    return QueryLog(tmp_path / "local" / "search-queries.jsonl", session_id=kwargs.pop("session_id", "session-1"),
                    clock=fixed_clock, warn=sink.append, **kwargs)


# -- §10.7: the two-entry example ------------------------------------------------------------------


def test_query_then_load_writes_two_entries(tmp_path):
    log = make_log(tmp_path)
    assert log.record_query("  customer wants   money back ", "hybrid", ["a", "b", "c", "d", "e", "f"])
    assert log.record_load("issue-refund")
    first, second = lines(log.path)
    assert first == {
        "v": 1, "ts": "2026-10-06T12:00:00Z", "event": "query", "session": first["session"],
        "query": "customer wants money back", "ranking": "hybrid", "results": ["a", "b", "c", "d", "e"],
    }
    assert list(first) == ["v", "ts", "event", "session", "query", "ranking", "results"]
    assert second == {"v": 1, "ts": "2026-10-06T12:00:00Z", "event": "loaded", "session": first["session"],
                      "skill": "issue-refund"}
    # hashed: the same value on both lines, 12 hex characters of SHA-256, never the id itself
    assert first["session"] == second["session"] == hashlib.sha256(b"session-1").hexdigest()[:12]
    assert "session-1" not in log.path.read_text(encoding="utf-8")
    assert stat.S_IMODE(os.stat(log.path).st_mode) == 0o600


def test_file_mode_is_0600_even_with_a_permissive_umask(tmp_path):
    old = os.umask(0)
    try:
        log = make_log(tmp_path)
        log.record_query("deploy to staging")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(log.path).st_mode) == 0o600


def test_appends_and_keeps_earlier_lines(tmp_path):
    log = make_log(tmp_path)
    log.record_query("first")
    again = make_log(tmp_path, session_id="other")
    again.record_query("second")
    got = lines(log.path)
    assert [e["query"] for e in got] == ["first", "second"]
    assert got[0]["session"] != got[1]["session"]


def test_clock_is_injected_and_written_in_utc_seconds(tmp_path):
    moments = iter([FIXED + timedelta(seconds=1, microseconds=999_999),
                    datetime(2026, 10, 6, 14, 30, 5, tzinfo=timezone(timedelta(hours=2)))])
    log = QueryLog(tmp_path / "q.jsonl", clock=lambda: next(moments))
    log.record_query("one")
    log.record_query("two")
    assert [e["ts"] for e in lines(tmp_path / "q.jsonl")] == ["2026-10-06T12:00:01Z", "2026-10-06T12:30:05Z"]


# -- skips -----------------------------------------------------------------------------------------


def test_disabled_log_is_a_no_op(tmp_path):
    log = QueryLog(None)
    assert not log.enabled
    assert log.record_query("deploy to staging", "lexical", ["deploy-staging"]) is False
    assert log.record_load("deploy-staging") is False
    assert list(tmp_path.iterdir()) == []


def test_secret_queries_and_blank_queries_are_never_written(tmp_path):
    secret = "use key AKIAQ3ZR7T2MWX9PLK4N now"
    assert detect_secret(secret) is not None  # the scanner does see it
    log = make_log(tmp_path)
    assert log.record_query(secret, "lexical", ["rotate-credentials"]) is False
    assert log.record_query("   ", "lexical") is False
    assert log.record_query("\t\n") is False
    assert not log.path.exists()
    log.record_query("rotate the api key")
    assert [e["query"] for e in lines(log.path)] == ["rotate the api key"]
    assert "AKIA" not in log.path.read_text(encoding="utf-8")


def test_configured_secret_patterns_also_skip_a_query(tmp_path):
    log = make_log(tmp_path, extra_patterns=(("acme-ticket-token", r"ACME-[0-9]{6}"),))
    assert log.record_query("look up ACME-123456 for me") is False
    assert not log.path.exists()


def test_a_secret_cut_by_the_cap_is_still_skipped(tmp_path):
    query = "x" * 500 + " AKIAQ3ZR7T2MWX9PLK4N"
    assert detect_secret(clean_query(query)) is None  # the cap alone would hide it
    log = make_log(tmp_path)
    assert log.record_query(query) is False


def test_load_without_a_skill_is_skipped(tmp_path):
    log = make_log(tmp_path)
    assert log.record_load("") is False
    assert not log.path.exists()


def test_empty_fields_are_left_out(tmp_path):
    log = QueryLog(tmp_path / "q.jsonl", clock=fixed_clock)  # no session
    log.record_query("nothing matched", "lexical", [])
    (entry,) = lines(tmp_path / "q.jsonl")
    assert entry == {"v": 1, "ts": "2026-10-06T12:00:00Z", "event": "query", "query": "nothing matched",
                     "ranking": "lexical"}
    assert make_entry("loaded", "t", skill="x") == {"v": 1, "ts": "t", "event": "loaded", "skill": "x"}


# -- caps ------------------------------------------------------------------------------------------


def test_query_is_cut_to_512_bytes_at_a_utf8_boundary():
    assert cut_utf8("é" * 3000, 512) == "é" * 256
    cut = cut_utf8("a" * 511 + "é", 512)
    assert cut == "a" * 511 and len(cut.encode()) == 511
    assert cut_utf8("short", 512) == "short"
    assert clean_query("  a \n\t b  ") == "a b"
    text = clean_query("€" * 400)
    assert len(text.encode()) <= 512 and text == "€" * 170


def test_long_query_is_logged_cut(tmp_path):
    log = make_log(tmp_path)
    log.record_query("ü" * 1000)
    (entry,) = lines(log.path)
    assert len(entry["query"].encode()) == 512 and set(entry["query"]) == {"ü"}


def test_full_log_gets_no_append_and_one_warning_per_process(tmp_path):
    warnings: list[str] = []
    log = make_log(tmp_path, warnings)
    log.path.parent.mkdir(parents=True)
    log.path.write_bytes(b"x" * (MAX_LOG_BYTES + 1))
    assert log.record_query("deploy to staging") is False
    assert log.record_load("deploy-staging") is False
    other = make_log(tmp_path, warnings, session_id="another")
    assert other.record_query("roll back") is False
    assert os.path.getsize(log.path) == MAX_LOG_BYTES + 1
    assert warnings == [FULL_WARNING]
    assert "skillsift mine --purge" in FULL_WARNING


def test_log_at_exactly_the_cap_still_takes_an_append(tmp_path):
    log = make_log(tmp_path)
    log.path.parent.mkdir(parents=True)
    log.path.write_bytes(b"\n" * MAX_LOG_BYTES)
    assert log.record_query("deploy to staging") is True
    assert os.path.getsize(log.path) > MAX_LOG_BYTES


# -- safety ----------------------------------------------------------------------------------------


def test_symbolic_link_is_never_followed(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n", encoding="utf-8")
    path = tmp_path / "local" / "search-queries.jsonl"
    path.parent.mkdir()
    path.symlink_to(target)
    warnings: list[str] = []
    log = QueryLog(path, clock=fixed_clock, warn=warnings.append)
    assert log.record_query("deploy to staging") is False
    assert log.record_query("again") is False
    assert target.read_text(encoding="utf-8") == "keep me\n"
    assert len(warnings) == 1 and "symbolic link" in warnings[0] and str(path) in warnings[0]


def test_unwritable_location_warns_once_and_never_raises(tmp_path):
    blocker = tmp_path / "local"
    blocker.write_text("a file where the directory should be", encoding="utf-8")
    warnings: list[str] = []
    log = QueryLog(blocker / "search-queries.jsonl", warn=warnings.append)
    assert log.record_query("one") is False
    assert log.record_load("two") is False
    assert len(warnings) == 1 and "cannot write the search query log" in warnings[0]


# -- reading ---------------------------------------------------------------------------------------


def test_read_log_missing_file_is_empty(tmp_path):
    assert read_log(tmp_path / "absent.jsonl") == []


def test_read_log_skips_lines_that_are_not_events(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('not json\n{"event":"other"}\n{"event":"query","query":"q"}\n[1,2]\n\n', encoding="utf-8")
    (entry,) = read_log(path)
    assert (entry.event, entry.query, entry.session, entry.results) == ("query", "q", "", ())


def test_read_back_what_was_written(tmp_path):
    log = make_log(tmp_path)
    log.record_query("deploy to staging", "lexical", ["deploy-staging", "deploy-production"])
    log.record_load("deploy-staging")
    query, load = read_log(log.path)
    assert (query.event, query.query, query.ranking, query.results) == (
        "query", "deploy to staging", "lexical", ("deploy-staging", "deploy-production"))
    assert (load.event, load.skill, load.session) == ("loaded", "deploy-staging", query.session)
    assert query.ts == "2026-10-06T12:00:00Z"


def test_scan_log_ignores_wrong_field_types():
    (entry,), _bad = scan_log('{"event":"loaded","skill":3,"session":["x"],"results":"a"}\n')
    assert (entry.skill, entry.session, entry.results) == ("", "", ())


# -- helpers and config ----------------------------------------------------------------------------


def test_hash_session():
    assert hash_session("") == ""
    value = hash_session("session-1")
    assert len(value) == 12 and int(value, 16) >= 0
    assert value == hashlib.sha256(b"session-1").digest()[:6].hex()
    assert hash_session("session-2") != value


def test_format_ts_drops_fractions_and_converts_to_utc():
    assert format_ts(datetime(2026, 1, 2, 3, 4, 5, 678_000, tzinfo=timezone.utc)) == "2026-01-02T03:04:05Z"
    assert format_ts(datetime(2026, 1, 2, 0, 0, 0, tzinfo=timezone(timedelta(hours=-5)))) == "2026-01-02T05:00:00Z"


def test_open_log_follows_config(tmp_path):
    off = Config(root=str(tmp_path))
    assert not open_log(off).enabled
    on = Config(root=str(tmp_path), search=SearchConfig(log_queries=True))
    log = open_log(on, "s")
    assert log.path == tmp_path / ".skillsift" / "local" / "search-queries.jsonl" == log_path(on)


def test_only_user_scope_turns_logging_on(tmp_path, monkeypatch):
    (tmp_path / "skillsift.toml").write_text("[search]\nlog_queries = true\n", encoding="utf-8")
    repo_only = load_config(tmp_path)
    assert not open_log(repo_only).enabled
    assert any("cannot start recording queries" in note for note in repo_only.notes)
    user = tmp_path / "user.toml"
    user.write_text("[search]\nlog_queries = true\n", encoding="utf-8")
    assert open_log(load_config(tmp_path, user_config_path=user)).enabled
    monkeypatch.setenv("SKILLSIFT_LOG_QUERIES", "1")
    assert open_log(load_config(tmp_path)).enabled
    monkeypatch.setenv("SKILLSIFT_LOG_QUERIES", "0")
    assert not open_log(load_config(tmp_path, user_config_path=user)).enabled


def test_a_skill_name_holding_a_secret_is_never_written(tmp_path):
    token = "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    log = make_log(tmp_path)
    assert log.record_query("deploy the app", "lexical", ["deploy", f"ops {token}"]) is True
    assert log.record_load(f"ops {token}") is False
    assert log.record_load("deploy") is True
    text = log.path.read_text(encoding="utf-8")
    assert token not in text and token[:8] not in text
    first = json.loads(text.splitlines()[0])
    assert first["results"] == ["deploy", "ops ghp_**** (40 characters)"]
