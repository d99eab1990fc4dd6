"""Near misses of every length-bounded secret rule and of the placeholder thresholds.

Each rule below is tried at its boundary: a value of exactly the shortest length the rule
accepts is reported, the same value one character short is not, and the same value behind
a prefix that differs in one character is not.  A second test checks that each one-short
value sits *exactly* at the boundary: the rule's expression with its length bound lowered
by one matches it.  Together they make loosening a rule (a ``ghp_`` token of 35
characters, an AWS key id of 15, an OpenAI key of 39) fail a test, as the placeholder
tests below do for the placeholder thresholds (a run of six repeated characters, fewer
than five distinct characters in ten, 60% of the value in consecutive runs).

No token sits in the source: values are built from a seeded generator at run time.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pytest

from skillsift.secrets.scan import PATTERNS, is_placeholder, scan_text
from tests.support.secret_samples import ALNUM, DIGITS, HEX, LOWER, UPPER, rand


@dataclass(frozen=True)
class Bound:
    """A rule's value: ``prefix`` then ``n`` characters of ``alphabet`` (then ``suffix``).

    ``bound`` is the quantifier of the rule's expression that sets ``n`` (``"{36,}"``);
    ``wrong`` is the prefix with one character changed, which no rule of that kind takes.
    """

    kind: str
    prefix: str
    wrong: str
    alphabet: str
    n: int
    bound: str
    suffix: str = ""
    line: str = "{v}"  # how the value stands in a line of a skill


def _j(*parts: str) -> str:
    return "".join(parts)


BOUNDS = (
    Bound("github-token", _j("gh", "p_"), _j("gh", "x_"), ALNUM, 36, "{36,}", line="GITHUB_TOKEN={v}"),
    Bound("github-fine-grained-token", _j("github", "_pat_"), _j("github", "_pak_"), ALNUM, 22, "{22,}"),
    Bound("aws-access-key", _j("AK", "IA"), _j("AK", "IB"), UPPER + DIGITS, 16, "{16}",
          line="aws_access_key_id = {v}"),
    Bound("openai-api-key", _j("s", "k-"), _j("s", "q-"), ALNUM, 40, "{40,}", line="OPENAI_API_KEY={v}"),
    Bound("anthropic-api-key", _j("sk-", "ant-"), _j("sk-", "ent-"), ALNUM, 20, "{20,}"),
    Bound("npm-token", _j("np", "m_"), _j("np", "n_"), ALNUM, 36, "{36}"),
    Bound("pypi-token", _j("py", "pi-"), _j("py", "pa-"), ALNUM, 50, "{50,}"),
    Bound("rubygems-token", _j("ruby", "gems_"), _j("ruby", "gams_"), HEX, 48, "{48}"),
    Bound("docker-hub-token", _j("dckr", "_pat_"), _j("dckr", "_pet_"), ALNUM, 27, "{27,}"),
    Bound("google-api-key", _j("AI", "za"), _j("AI", "zb"), ALNUM, 35, "{35}"),
    Bound("google-oauth-secret", _j("GOC", "SPX-"), _j("GOC", "SPY-"), ALNUM, 28, "{28}"),
    Bound("stripe-live-key", _j("sk", "_live_"), _j("sk", "_lime_"), ALNUM, 24, "{24,}"),
    Bound("stripe-test-key", _j("sk", "_test_"), _j("sk", "_tost_"), ALNUM, 24, "{24,}"),
    Bound("stripe-webhook-secret", _j("wh", "sec_"), _j("wh", "sac_"), ALNUM, 24, "{24,}"),
    Bound("huggingface-token", _j("h", "f_"), _j("h", "g_"), ALNUM, 30, "{30,}"),
    Bound("groq-api-key", _j("gs", "k_"), _j("gs", "x_"), ALNUM, 48, "{48,}"),
    Bound("replicate-token", _j("r", "8_"), _j("r", "9_"), ALNUM, 37, "{37}"),
    Bound("xai-api-key", _j("xa", "i-"), _j("xa", "o-"), ALNUM, 70, "{70,}"),
    Bound("perplexity-api-key", _j("ppl", "x-"), _j("ppl", "y-"), ALNUM, 40, "{40,}"),
    Bound("pinecone-api-key", _j("pc", "sk_"), _j("pc", "sx_"), ALNUM, 40, "{40,}"),
    Bound("mailgun-api-key", _j("ke", "y-"), _j("ke", "w-"), HEX, 32, "{32}", line="api:{v}"),
    Bound("shopify-token", _j("shp", "at_"), _j("shp", "xt_"), ALNUM, 32, "{32,}"),
    Bound("digitalocean-token", _j("do", "p_v1_"), _j("do", "p_v2_"), ALNUM, 60, "{60,}"),
    Bound("databricks-token", _j("da", "pi"), _j("da", "px"), HEX, 32, "{32}"),
    Bound("linear-api-key", _j("lin", "_api_"), _j("lin", "_apx_"), ALNUM, 40, "{40}"),
    Bound("pulumi-token", _j("pu", "l-"), _j("pu", "x-"), HEX, 40, "{40}"),
    Bound("newrelic-key", _j("NR", "AK-"), _j("NR", "AX-"), UPPER + DIGITS, 27, "{27}"),
    Bound("sentry-token", _j("sntr", "ys_"), _j("sntr", "yx_"), ALNUM, 40, "{40,}"),
    Bound("supabase-token", _j("sb", "p_"), _j("sb", "x_"), ALNUM, 32, "{32,}"),
    Bound("vault-token", _j("hv", "s."), _j("hv", "x."), ALNUM, 24, "{24,}", line="VAULT_TOKEN={v}"),
    Bound("bitbucket-token", _j("AT", "BB"), _j("AT", "BX"), ALNUM, 32, "{32,}"),
    Bound("artifactory-token", _j("AK", "Cp"), _j("AK", "Cq"), ALNUM, 69, "{69}"),
    Bound("figma-token", _j("fi", "gd_"), _j("fi", "gx_"), ALNUM, 40, "{40,}"),
    Bound("notion-token", _j("nt", "n_"), _j("nt", "x_"), ALNUM, 40, "{40,}"),
    Bound("buildkite-token", _j("bk", "ua_"), _j("bk", "ux_"), HEX, 40, "{40}"),
    Bound("netlify-token", _j("nf", "p_"), _j("nf", "x_"), ALNUM, 36, "{36,}"),
    Bound("flyio-token", _j("fo", "1_"), _j("fo", "2_"), ALNUM, 43, "{43}"),
    Bound("atlassian-token", _j("ATA", "TT3"), _j("ATA", "TT4"), ALNUM, 180, "{180,}"),
    Bound("dropbox-token", _j("s", "l."), _j("s", "m."), ALNUM, 130, "{130,}"),
    Bound("facebook-access-token", _j("EA", "A"), _j("EB", "A"), ALNUM, 90, "{90,}"),
    Bound("gitlab-token", _j("gl", "pat-"), _j("gl", "pax-"), ALNUM, 20, "{20,}", line="token {v}"),
    Bound("twilio-api-key", _j("S", "K"), _j("S", "Q"), HEX, 32, "{{32}}", line="api key sid {v}"),
    Bound("twilio-account-sid", _j("A", "C"), _j("A", "Q"), HEX, 32, "{{32}}", line="account {v}"),
    Bound("age-secret-key", _j("AGE-SECRET", "-KEY-1"), _j("AGE-SECRET", "-KEY-2"), UPPER + DIGITS, 58, "{58}"),
    Bound("langsmith-api-key", _j("lsv2", "_pt_"), _j("lsv2", "_px_"), HEX, 32, "{32}", suffix="_0123abcdef"),
    Bound("grafana-token", _j("gl", "sa_"), _j("gl", "sx_"), ALNUM, 32, "{32}", suffix="_0a1b2c3d"),
    Bound("airtable-token", _j("pa", "t"), _j("pa", "x"), ALNUM, 14, "{14}",
          suffix="." + "a1b2c3d4e5f60718" * 4),
)
RULE_BY_KIND = {rule.kind: rule for rule in PATTERNS}


def _value(bound: Bound, n: int, seed: int) -> str:
    rng = random.Random(f"{bound.kind}-{seed}")
    # A mix of classes that passes every value check (letter+digit, mixed) and no placeholder rule.
    return rand(rng, bound.alphabet, n)


def _kinds(text: str) -> list[str]:
    return [finding.kind for finding in scan_text(f"Configure it:\n\n    {text}\n")]


def test_every_bound_names_a_rule_whose_expression_holds_it():
    for bound in BOUNDS:
        rule = RULE_BY_KIND[bound.kind]
        assert bound.bound.replace("{{", "{").replace("}}", "}") in rule.regex, bound.kind
    assert len({b.kind for b in BOUNDS}) == len(BOUNDS)


@pytest.mark.parametrize("bound", BOUNDS, ids=lambda b: b.kind)
def test_at_the_bound_is_found_one_short_and_a_wrong_prefix_are_not(bound):
    for seed in range(3):
        body = _value(bound, bound.n, seed)
        exact = bound.line.format(v=bound.prefix + body + bound.suffix)
        assert bound.kind in _kinds(exact), (seed, exact)
        short = bound.line.format(v=bound.prefix + body[:-1] + bound.suffix)
        assert bound.kind not in _kinds(short), (seed, short)
        wrong = bound.line.format(v=bound.wrong + body + bound.suffix)
        assert bound.kind not in _kinds(wrong), (seed, wrong)
        if bound.bound.endswith("}") and "," not in bound.bound:
            # An exact length: one character more is no longer this kind of token either.
            extra = "7" if bound.alphabet != ALNUM else "Q"
            longer = bound.line.format(v=bound.prefix + body + extra + bound.suffix)
            assert bound.kind not in _kinds(longer), (seed, longer)


def _loosened(regex: str, bound: str) -> str:
    inner = bound.replace("{{", "{").replace("}}", "}")
    n = int(re.match(r"\{(\d+)", inner).group(1))  # type: ignore[union-attr]
    looser = inner.replace(str(n), str(n - 1), 1)
    return regex.replace(inner, looser, 1)


@pytest.mark.parametrize("bound", BOUNDS, ids=lambda b: b.kind)
def test_one_short_sits_exactly_at_the_bound(bound):
    """Lowering the rule's bound by one makes its expression take the one-short value."""
    rule = RULE_BY_KIND[bound.kind]
    short = bound.prefix + _value(bound, bound.n - 1, 0) + bound.suffix
    flags = re.IGNORECASE if rule.folded else 0
    assert not re.search(rule.regex, short, flags)
    assert re.search(_loosened(rule.regex, bound.bound), short, flags)


# --- placeholder thresholds --------------------------------------------------------------

_RNG_ALPHABET = LOWER + UPPER + DIGITS


def _random_body(n: int, seed: int, avoid: str = "") -> str:
    rng = random.Random(seed)
    while True:
        value = rand(rng, "".join(c for c in _RNG_ALPHABET if c not in avoid), n)
        if not is_placeholder(value):
            return value


@pytest.mark.parametrize("seed", range(5))
def test_a_run_of_six_is_a_placeholder_and_five_is_not(seed):
    body = _random_body(30, seed, avoid="Z")
    assert is_placeholder(body[:10] + "Z" * 6 + body[10:])
    assert not is_placeholder(body[:10] + "Z" * 5 + body[10:])


def test_fewer_than_five_distinct_characters_in_ten_is_a_placeholder():
    assert is_placeholder("a1b2" * 3)  # 12 characters, 4 distinct
    assert not is_placeholder("a1b2c" * 3)  # 15 characters, 5 distinct
    assert not is_placeholder("a1b2a1b2a")  # 9 characters: too short to judge by distinct characters


def test_sixty_percent_in_consecutive_runs_is_a_placeholder():
    filler = "q7XmW"  # no two neighbours consecutive
    assert is_placeholder("abc" + "789" + filler[:4])  # 6 of 10 characters in runs: the threshold itself
    assert is_placeholder("abcdef" + filler[:4])
    assert not is_placeholder("abcde" + filler)  # 5 of 10: below it
    assert not is_placeholder("abc" + "78" + filler)  # a pair is not a run
    assert not is_placeholder("abcdef123")  # 9 characters: too short to judge by runs


@pytest.mark.parametrize("word", ["your", "example", "changeme", "redacted", "dummy"])
def test_placeholder_words_in_three_forms_but_not_mixed_case(word):
    body = _random_body(20, 11)
    for form in (word, word.upper(), word.capitalize()):
        assert is_placeholder(body[:8] + form + body[8:])
    mixed = "".join(c.upper() if i % 2 else c for i, c in enumerate(word))
    assert not is_placeholder(body[:8] + mixed + body[8:])


def test_a_token_at_its_bound_with_a_placeholder_word_is_not_reported():
    value = _j("gh", "p_") + "Your" + _value(BOUNDS[0], 32, 0)
    assert "github-token" not in _kinds(value)
    assert "github-token" in _kinds(_j("gh", "p_") + "Yqur" + _value(BOUNDS[0], 32, 0))


@pytest.mark.parametrize("line", [
    "api_key = 'sk-or-v1-project1-key'",
    "OPENROUTER_API_KEY=sk-or-v1-project1-key",
    'client = OpenAI(api_key="sk-proj-my-test-key")',
    "token: ghp_team-api-token",
])
def test_a_value_made_of_words_naming_what_it_stands_for_is_a_placeholder(line):
    assert scan_text(line) == []


@pytest.mark.parametrize("line", [
    "OPENROUTER_API_KEY=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",
    "api_key = 'sk-or-v1-project1-Kq7ZpX2mWv9RtY4n'",  # one random piece: a key
    "password = 'correct-horse-battery-staple'",  # words, but none names a stand-in: judged as before
])
def test_a_random_piece_keeps_a_value_a_secret(line):
    from skillsift.secrets.scan import _named_stand_in, _rules

    value = line.split("=", 1)[1].strip(" '")
    assert not _named_stand_in(_rules().prefixes.sub("", value, count=1))
