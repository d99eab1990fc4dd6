"""The secret scanner: every built-in kind, placeholders, RE2 semantics, allowances, withholding."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from skillsift.secrets.scan import (
    BUILTIN_PATTERNS,
    PATTERNS,
    detect_secret,
    is_placeholder,
    mask,
    redact,
    scan_text,
    withhold,
)
from tests.conftest import corpora
from tests.support.secret_samples import GENERATORS, planted, planted_lines
from tests.support.secret_samples import PLACEHOLDERS as SAMPLE_PLACEHOLDERS


def test_every_rule_has_a_positive_and_a_placeholder():
    kinds = sorted(kind for kind, _, _ in BUILTIN_PATTERNS)
    assert sorted(GENERATORS) == kinds
    assert sorted(SAMPLE_PLACEHOLDERS) == kinds
    assert len(kinds) == len(set(kinds))
    assert all(rule.help for rule in PATTERNS)


@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_each_kind_is_found_with_line_column_and_mask(kind):
    for seed in range(4):
        line, secret = planted_lines(seed)[kind]
        text = f"---\nname: demo\ndescription: Deploys things.\n---\n\n# Demo\n\n```bash\n{line}\n```\n"
        findings = scan_text(text)
        assert [(f.kind, f.line) for f in findings] == [(kind, 9)], (seed, line)
        finding = findings[0]
        if kind in ("private-key", "putty-private-key"):
            secret = secret.split("\n")[0]
        assert finding.column == line.index(secret) + 1
        assert finding.masked == mask(secret)
        assert secret not in finding.message and finding.message.startswith(("looks like a ", "looks like an "))
        assert finding.allowed is False
        assert detect_secret(text) == kind


@pytest.mark.parametrize("kind", sorted(SAMPLE_PLACEHOLDERS))
def test_each_kind_has_a_placeholder_that_is_not_reported(kind):
    line = SAMPLE_PLACEHOLDERS[kind]
    assert scan_text(f"Configure it:\n\n    {line}\n") == []
    assert detect_secret(line) is None


def test_planted_corpus_finds_every_secret_on_its_line(tmp_path):
    """A folder of skills, each kind planted at a different line among ordinary prose."""
    rng = random.Random(3)
    expected = {}
    for seed in range(3):
        for kind, (line, _secret) in planted_lines(seed).items():
            tools = ["linter", "tests", "build"]
            filler = [f"Step {i}: run the {rng.choice(tools)} again." for i in range(40)]
            at = rng.randrange(5, 40)
            filler[at] = line
            path = tmp_path / f"{kind}-{seed}" / "SKILL.md"
            path.parent.mkdir()
            body = "\n".join(filler)
            head = f"---\nname: {kind}-{seed}\ndescription: A skill.\n---\n"
            path.write_text(f"{head}{body}\n", encoding="utf-8")
            expected[path.parent.name] = (kind, at + 5)
    found = {}
    for path in sorted(tmp_path.glob("*/SKILL.md")):
        findings = scan_text(path.read_text(encoding="utf-8"))
        found[path.parent.name] = [(f.kind, f.line) for f in findings]
    assert found == {name: [where] for name, where in expected.items()}


PLACEHOLDERS = [
    'api_key = "your-api-key-goes-in-here-1"',
    'API_KEY="your_key_here_1234567890"',
    'token: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx1"',
    "AK" + "IA" + "X" * 16,
    "AK" + "IA" + "IOSFODNN7EXAMPLE",
    "gh" + "p_" + "x" * 36,
    "gh" + "p_" + "0" * 36,
    "sk-" + "proj-" + "a1" * 20 + "...",
    "sk-" + "ant-" + "X" * 30,
    "sk-" + "proj-abc123" + "def456ghi789jkl012mno345pqr678stu901vwx" + "...",
    "sk" + "_live_" + "REDACTED1234567890abcdefgh",
    'password = "changeme1234567890abcdef"',
    'secret: "example-secret-value-1234"',
    'client_secret = "dummy_client_secret_0001"',
    'password: "${DB_PASSWORD_2}"',
    'token = "<token>"',
    'api_key = "$OPENAI_API_KEY"',
    "-----BEGIN RSA " + "PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    "xo" + "xb-" + "1111111111-xxxxxxxxxxxx",
    'password = "a1a1a1a1a1a1a1a1a1a1a1a1"',
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_placeholders_are_not_secrets(line):
    assert scan_text(f"Configure it:\n\n    {line}\n") == []
    assert detect_secret(line) is None


@pytest.mark.parametrize(
    "value",
    ["your-key", "${API_KEY}", "{{ token }}", "<insert key>", "$TOKEN", "***", "xxxxxxxx", "aaaaaaaaaaaa"],
)
def test_placeholder_rule_set(value):
    assert is_placeholder(value)


def test_random_values_are_not_placeholders():
    for kind, secret in planted().items():
        if kind != "private-key":
            assert not is_placeholder(secret), kind


def test_generic_value_needs_a_letter_and_a_digit():
    assert scan_text('password = "abcdefghijklmnopqrstuvwxyz"') == []
    assert scan_text('password = "12345678901234567890123"') == []
    assert [f.kind for f in scan_text('password = "hgfkqmzpwtrbnvcx1234"')] == ["generic-credential"]
    assert scan_text('password = "abcdefghijklmnop1234"') == []  # an obvious sequence
    assert [f.kind for f in scan_text('"client-secret": "q8Wm2Zr5Tn7Yp4Lk9Vb3Xc"')] == ["generic-credential"]
    assert scan_text('password = "short1"') == []  # under 20 characters


def test_generic_value_on_the_next_line_is_found_at_the_value():
    text = 'creds:\n  password:\n    "q8Wm2Zr5Tn7Yp4Lk9Vb3Xc"\n'
    findings = scan_text(text)
    assert [(f.kind, f.line, f.column) for f in findings] == [("generic-credential", 3, 6)]


def test_word_boundaries_are_ascii_like_re2():
    key = "AK" + "IA" + "Q3ZR7T2MWX9PLK4N"
    assert [f.kind for f in scan_text(f"é{key}")] == ["aws-access-key"]  # é is not an ASCII word char
    assert scan_text(f"x{key}") == []
    assert scan_text(f"{key}9") == []  # 17 characters after the prefix: no boundary after 16
    assert [f.column for f in scan_text(f"ключ:{key}")] == [6]


def test_case_folding_follows_re2():
    value = '"q8Wm2Zr5Tn7Yp4Lk9Vb3Xc"'
    assert [f.kind for f in scan_text(f"PassWord = {value}")] == ["generic-credential"]
    # RE2 folds k with the Kelvin sign and s with the long s ...
    assert [f.kind for f in scan_text(f"api_\u212aey = {value}")] == ["generic-credential"]
    assert [f.kind for f in scan_text(f"pa\u017f\u017fword = {value}")] == ["generic-credential"]
    # a leading long s is not an ASCII word character, so RE2's \b cannot hold before it
    assert scan_text(f"\u017fecret = {value}") == []
    # ... but not i with the dotless i (Python's Unicode mode would)
    assert scan_text(f"ap\u0131_key = {value}") == []
    # and RE2's \s has no vertical tab
    assert scan_text(f"password\x0b= {value}") == []


def test_overlapping_patterns_report_one_kind():
    key = planted()["anthropic-api-key"]  # also matches the OpenAI pattern
    assert [f.kind for f in scan_text(f"key: {key}")] == ["anthropic-api-key"]
    text = f'api_key = "{key}"'  # and the generic one
    assert [f.kind for f in scan_text(text)] == ["anthropic-api-key"]


def test_several_findings_are_in_text_order():
    s = planted()
    text = f"{s['jwt']}\nfirst {s['aws-access-key']} then {s['github-token']}\n"
    assert [(f.kind, f.line) for f in scan_text(text)] == [
        ("jwt", 1),
        ("aws-access-key", 2),
        ("github-token", 2),
    ]


def test_allow_marker_keeps_the_finding_but_allows_it():
    s = planted()
    text = f"{s['github-token']}  <!-- skillsift: allow-secret -->\nsafe line\n"
    findings = scan_text(text)
    assert [(f.kind, f.allowed) for f in findings] == [("github-token", True)]
    assert detect_secret(text) is None
    text += f"then {s['npm-token']}\n"
    assert [(f.kind, f.allowed) for f in scan_text(text)] == [("github-token", True), ("npm-token", False)]
    assert detect_secret(text) == "npm-token"


def test_extra_patterns():
    extra = (("internal-token", r"\bitk_([a-z0-9]{12})\b"),)
    findings = scan_text("use itk_a1b2c3d4e5f6 here", extra)
    where = [(f.kind, f.column, f.masked) for f in findings]
    assert where == [("internal-token", 9, "a1b2**** (12 characters)")]
    assert detect_secret("itk_a1b2c3d4e5f6", extra) == "internal-token"
    assert scan_text("use itk_a1b2c3d4e5f6 here") == []
    # placeholders are judged the same way for configured patterns
    loose = (("loose-token", r"token=(\S+)"),)
    text = "token=${DEPLOY_TOKEN} token=<token> token=$TOKEN token=q8Wm2Zr5"
    assert [(f.kind, f.column) for f in scan_text(text, loose)] == [("loose-token", text.index("q8W") + 1)]
    # short values are judged on their words and syntax only
    assert [f.masked for f in scan_text("door pin=1234", (("pin", r"pin=(\d{4})"),))] == ["****"]
    with pytest.raises(ValueError, match="'broken'.*\\[secrets\\] patterns"):
        scan_text("x", (("broken", "(unclosed"),))


def test_mask():
    assert mask("12345678") == "********"
    assert mask("abc") == "***"
    assert mask("123456789") == "1234**** (9 characters)"
    assert mask("ключ-секрет-1") == "ключ**** (13 characters)"


def test_redact_masks_secrets_and_known_values():
    s = planted()
    text = f"error: {s['github-token']} rejected for hunter2-value; key {'gh' + 'p_' + 'x' * 36}"
    out = redact(text, values=("hunter2-value", "ab"))
    assert s["github-token"] not in out and "hunter2-value" not in out
    assert "ghp_**** (40 characters)" in out and "****;" in out
    assert "x" * 36 not in out  # placeholders are masked too


def test_withhold_splits_in_order():
    s = planted()
    texts = {
        "alpha": "Plans releases.",
        "bravo": f"Deploy with {s['aws-access-key']}.",
        "charlie": "Writes tests.",
        "delta": f'Set password = "{s["generic-credential"]}".',
    }
    allowed, withheld = withhold(texts)
    assert list(allowed) == ["alpha", "charlie"]
    assert allowed["alpha"] == "Plans releases."
    assert withheld == [("bravo", "aws-access-key"), ("delta", "generic-credential")]
    allowed, withheld = withhold([("x", "itk_a1b2c3d4e5f6")], (("internal-token", r"itk_[a-z0-9]{12}"),))
    assert allowed == {} and withheld == [("x", "internal-token")]


def test_import_is_cheap():
    code = (
        "import sys, skillsift.secrets.scan; "
        "print(sorted(m for m in ('numpy', 'yaml', 'jsonschema') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow  # the whole corpus of real skills
def test_real_corpus_has_no_findings():
    """0 findings on the real skills of ../shared/corpora: raw lines, parsed values and embedded text."""

    from skillsift.catalog.embedtext import embedded_text
    from skillsift.catalog.load import parse_skill
    from skillsift.checks.secrets import skill_findings

    real = corpora()
    files = sorted(real.rglob("SKILL.md"))
    assert len(files) > 2000
    findings = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = str(path.relative_to(real))
        skill, _problems = parse_skill(text, path.parent.name, path=rel)
        embedded = embedded_text(skill, ("name", "description", "triggers", "keywords"), True, 2000) if skill else ""
        for f, _value in skill_findings(text, skill=skill, embedded=embedded):
            findings.append((rel, f.line, f.kind))
    assert findings == []
