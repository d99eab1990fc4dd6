"""Made-up secrets, one generator per built-in rule, and the placeholder of each.

Everything is built at run time from a seeded random generator, so no token sits in the
source.  ``sample(kind, rng)`` returns ``(line, value)``: a line as a skill would hold it
and the characters the scanner must report.  ``placeholder(kind)`` is the same line with
an obvious stand-in that must not be reported.  The planted set of the secrets benchmark
(``bench/bench_secrets.py``) and the scanner tests share these.
"""

from __future__ import annotations

import base64
import json
import random
import string

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def rand(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` characters of ``alphabet`` holding at least one lower, upper and digit when it can."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        need = [set(a) & set(alphabet) for a in (LOWER, UPPER, DIGITS)]
        if all(not group or any(c in group for c in value) for group in need):
            return value


def _b64(obj) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def _p(*parts: str) -> str:
    return "".join(parts)


def _uuid(rng):
    return "-".join(rand(rng, HEX, n) for n in (8, 4, 4, 4, 12))


# kind -> rng -> (value, line)
GENERATORS = {
    "private-key": lambda r: (v := _p("-----BEGIN RSA ", "PRIVATE KEY-----"), v + "\n" + rand(r, B64, 64)),
    "age-secret-key": lambda r: ((v := _p("AGE-SECRET", "-KEY-1") + rand(r, UPPER + DIGITS, 58)), v),
    "putty-private-key": lambda r: ((v := _p("PuTTY-User", "-Key-File-2: ")), v + "ssh-rsa"),
    "aws-access-key": lambda r: ((v := _p("AK", "IA") + rand(r, UPPER + DIGITS, 16)), f"aws_access_key_id = {v}"),
    "aws-secret-key": lambda r: ((v := rand(r, B64, 40)), f'aws_secret_access_key = "{v}"'),
    "github-token": lambda r: ((v := _p("gh", "p_") + rand(r, ALNUM, 36)), f"GITHUB_TOKEN={v}"),
    "github-fine-grained-token": lambda r: ((v := _p("github", "_pat_") + rand(r, ALNUM + "_", 82)), v),
    "gitlab-token": lambda r: ((v := _p("gl", "pat-") + rand(r, URLSAFE, 20)), f"token {v}"),
    "npm-token": lambda r: ((v := _p("np", "m_") + rand(r, ALNUM, 36)), f"//registry.npmjs.org/:_authToken={v}"),
    "pypi-token": lambda r: ((v := _p("py", "pi-AgEIcHlwaS5vcmc") + rand(r, URLSAFE, 70)), f"password = {v}"),
    "rubygems-token": lambda r: ((v := _p("ruby", "gems_") + rand(r, HEX, 48)), v),
    "docker-hub-token": lambda r: ((v := _p("dckr", "_pat_") + rand(r, URLSAFE, 27)), v),
    "slack-webhook": lambda r: (
        (v := "T" + rand(r, UPPER + DIGITS, 10) + "/B" + rand(r, UPPER + DIGITS, 10) + "/" + rand(r, ALNUM, 24)),
        _p("https://hooks.", "slack.com/services/") + v),
    "slack-token": lambda r: ((v := _p("xo", "xb-") + rand(r, DIGITS, 12) + "-" + rand(r, DIGITS, 13) + "-"
                                + rand(r, ALNUM, 24)), f"SLACK_BOT_TOKEN={v}"),
    "discord-webhook": lambda r: ((v := rand(r, URLSAFE, 68)),
                                  _p("https://discord.com/api/", "webhooks/") + rand(r, DIGITS, 18) + "/" + v),
    "discord-bot-token": lambda r: ((v := "M" + rand(r, ALNUM, 25) + "." + rand(r, URLSAFE, 6) + "."
                                     + rand(r, URLSAFE, 38)), f"bot token {v}"),
    "telegram-bot-token": lambda r: ((v := rand(r, DIGITS, 10) + ":AA" + rand(r, URLSAFE, 33)),
                                     f"TELEGRAM_BOT_TOKEN={v}"),
    "google-api-key": lambda r: ((v := _p("AI", "za") + rand(r, URLSAFE, 35)), f"key={v}"),
    "google-oauth-secret": lambda r: ((v := _p("GOC", "SPX-") + rand(r, URLSAFE, 28)), v),
    "stripe-live-key": lambda r: ((v := _p("sk", "_live_") + rand(r, ALNUM, 32)), v),
    "stripe-test-key": lambda r: ((v := _p("sk", "_test_") + rand(r, ALNUM, 32)), v),
    "anthropic-api-key": lambda r: ((v := _p("sk-", "ant-api03-") + rand(r, URLSAFE, 93)), f"ANTHROPIC_API_KEY={v}"),
    "openai-api-key": lambda r: ((v := _p("sk-", "proj-") + rand(r, URLSAFE, 48)), f"OPENAI_API_KEY={v}"),
    "huggingface-token": lambda r: ((v := _p("h", "f_") + rand(r, ALNUM, 34)), f"HF_TOKEN={v}"),
    "groq-api-key": lambda r: ((v := _p("gs", "k_") + rand(r, ALNUM, 52)), v),
    "replicate-token": lambda r: ((v := _p("r", "8_") + rand(r, ALNUM, 37)), v),
    "xai-api-key": lambda r: ((v := _p("xa", "i-") + rand(r, ALNUM, 80)), v),
    "perplexity-api-key": lambda r: ((v := _p("ppl", "x-") + rand(r, ALNUM, 48)), v),
    "langsmith-api-key": lambda r: ((v := _p("lsv2", "_pt_") + rand(r, HEX, 32) + "_" + rand(r, HEX, 10)), v),
    "pinecone-api-key": lambda r: ((v := _p("pc", "sk_") + rand(r, ALNUM, 60)), v),
    "sendgrid-api-key": lambda r: ((v := _p("S", "G.") + rand(r, URLSAFE, 22) + "." + rand(r, URLSAFE, 43)),
                                   f"SENDGRID_API_KEY={v}"),
    "twilio-api-key": lambda r: ((v := _p("S", "K") + rand(r, HEX, 32)), f"api key sid {v}"),
    "twilio-account-sid": lambda r: ((v := _p("A", "C") + rand(r, HEX, 32)), f"account {v}"),
    "mailgun-api-key": lambda r: ((v := _p("ke", "y-") + rand(r, HEX, 32)), f"api:{v}"),
    "mailchimp-api-key": lambda r: ((v := rand(r, HEX, 32) + "-us" + rand(r, DIGITS, 2)), v),
    "shopify-token": lambda r: ((v := _p("shp", "at_") + rand(r, HEX, 32)), f"X-Shopify-Access-Token: {v}"),
    "digitalocean-token": lambda r: ((v := _p("do", "p_v1_") + rand(r, HEX, 64)), v),
    "heroku-api-key": lambda r: ((v := _uuid(r)), f"HEROKU_API_KEY={v}"),
    "azure-storage-key": lambda r: ((v := rand(r, B64, 86) + "=="),
                                    f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={v};"),
    "databricks-token": lambda r: ((v := _p("da", "pi") + rand(r, HEX, 32)), v),
    "doppler-token": lambda r: ((v := _p("dp", ".pt.") + rand(r, ALNUM, 43)), v),
    "linear-api-key": lambda r: ((v := _p("lin", "_api_") + rand(r, ALNUM, 40)), v),
    "postman-api-key": lambda r: ((v := _p("PM", "AK-") + rand(r, HEX, 24) + "-" + rand(r, HEX, 34)), v),
    "pulumi-token": lambda r: ((v := _p("pu", "l-") + rand(r, HEX, 40)), v),
    "newrelic-key": lambda r: ((v := _p("NR", "AK-") + rand(r, UPPER + DIGITS, 27)), v),
    "grafana-token": lambda r: ((v := _p("gl", "sa_") + rand(r, ALNUM, 32) + "_" + rand(r, HEX, 8)), v),
    "sentry-token": lambda r: ((v := _p("sntr", "ys_") + rand(r, ALNUM, 60)), v),
    "planetscale-token": lambda r: ((v := _p("pscale", "_tkn_") + rand(r, ALNUM, 43)), v),
    "supabase-token": lambda r: ((v := _p("sb", "p_") + rand(r, HEX, 40)), v),
    "vault-token": lambda r: ((v := _p("hv", "s.") + rand(r, URLSAFE, 90)), f"VAULT_TOKEN={v}"),
    "terraform-cloud-token": lambda r: ((v := rand(r, LOWER + DIGITS, 14) + _p(".atlas", "v1.")
                                         + rand(r, LOWER + DIGITS, 67)), v),
    "tailscale-key": lambda r: ((v := _p("tsk", "ey-auth-") + rand(r, ALNUM, 12) + "-" + rand(r, ALNUM, 32)), v),
    "square-token": lambda r: ((v := _p("sq0", "atp-") + rand(r, URLSAFE, 22)), v),
    "atlassian-token": lambda r: ((v := _p("ATA", "TT3") + rand(r, URLSAFE, 186)), v),
    "bitbucket-token": lambda r: ((v := _p("AT", "BB") + rand(r, ALNUM, 32)), v),
    "artifactory-token": lambda r: ((v := _p("AK", "Cp") + rand(r, ALNUM, 69)), v),
    "figma-token": lambda r: ((v := _p("fi", "gd_") + rand(r, URLSAFE, 40)), v),
    "notion-token": lambda r: ((v := _p("nt", "n_") + rand(r, ALNUM, 46)), v),
    "airtable-token": lambda r: ((v := _p("pa", "t") + rand(r, ALNUM, 14) + "." + rand(r, HEX, 64)), v),
    "buildkite-token": lambda r: ((v := _p("bk", "ua_") + rand(r, HEX, 40)), v),
    "circleci-token": lambda r: ((v := _p("CCI", "PAT_") + rand(r, ALNUM, 22) + "_" + rand(r, HEX, 40)), v),
    "netlify-token": lambda r: ((v := _p("nf", "p_") + rand(r, ALNUM, 40)), v),
    "flyio-token": lambda r: ((v := _p("fo", "1_") + rand(r, URLSAFE, 43)), v),
    "stripe-webhook-secret": lambda r: ((v := _p("wh", "sec_") + rand(r, ALNUM, 32)), f"STRIPE_WEBHOOK={v}"),
    "azure-ad-client-secret": lambda r: ((v := rand(r, ALNUM, 3) + rand(r, DIGITS, 1) + "Q~"
                                          + rand(r, ALNUM + "_~.-", 34)), f"client: {v}"),
    "azure-sas-token": lambda r: ((v := rand(r, ALNUM + "+/", 43) + "%3D"),
                                  "https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=" + v),
    "dropbox-token": lambda r: ((v := _p("s", "l.") + rand(r, URLSAFE, 138)), v),
    "mapbox-secret-token": lambda r: ((v := _p("s", "k.") + "eyJ" + rand(r, URLSAFE, 60) + "." + rand(r, URLSAFE, 22)),
                                      v),
    "facebook-access-token": lambda r: ((v := _p("EA", "A") + "C" + rand(r, ALNUM, 150)), v),
    "basic-auth": lambda r: ((v := base64.b64encode(f"deploy:{rand(r, ALNUM, 16)}".encode()).decode()),
                             f"Authorization: Basic {v}"),
    "jwt": lambda r: ((v := _b64({"alg": "HS256", "typ": "JWT"}) + "." + _b64({"sub": rand(r, DIGITS, 8)}) + "."
                       + rand(r, URLSAFE, 43)), f"Authorization: Bearer {v}"),
    "url-password": lambda r: ((v := rand(r, ALNUM, 16)), f"postgres://admin:{v}@db.internal:5432/app"),
    "bearer-token": lambda r: ((v := rand(r, URLSAFE, 40)), f"curl -H 'Authorization: Bearer {v}'"),
    "generic-credential": lambda r: ((v := rand(r, ALNUM, 24)), f'password = "{v}"'),
}

# Lines holding an obvious stand-in: never reported.
PLACEHOLDERS = {
    "private-key": _p("-----BEGIN RSA ", "PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----"),
    "age-secret-key": _p("AGE-SECRET", "-KEY-1") + "X" * 58,
    "putty-private-key": "PuTTY key files start with a header line",
    "aws-access-key": "aws_access_key_id = " + _p("AK", "IA") + "IOSFODNN7EXAMPLE",
    "aws-secret-key": 'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    "github-token": "GITHUB_TOKEN=" + _p("gh", "p_") + "x" * 36,
    "github-fine-grained-token": _p("github", "_pat_") + "your-key-here",
    "gitlab-token": "token " + _p("gl", "pat-") + "xxxxxxxxxxxxxxxxxxxx",
    "npm-token": "//registry.npmjs.org/:_authToken=" + _p("np", "m_") + "<token>",
    "pypi-token": "password = " + _p("py", "pi-") + "...",
    "rubygems-token": _p("ruby", "gems_") + "0" * 48,
    "docker-hub-token": _p("dckr", "_pat_") + "your-key-here",
    "slack-webhook": _p("https://hooks.", "slack.com/services/") + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "slack-token": "SLACK_BOT_TOKEN=" + _p("xo", "xb-") + "your-token-here",
    "discord-webhook": _p("https://discord.com/api/", "webhooks/") + "<id>/<token>",
    "discord-bot-token": "bot token <token>",
    "telegram-bot-token": "TELEGRAM_BOT_TOKEN=123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
    "google-api-key": "key=" + _p("AI", "za") + "your-key-here",
    "google-oauth-secret": _p("GOC", "SPX-") + "xxxx",
    "stripe-live-key": _p("sk", "_live_") + "...",
    "stripe-test-key": _p("sk", "_test_") + "xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "anthropic-api-key": "ANTHROPIC_API_KEY=" + _p("sk-", "ant-") + "...",
    "openai-api-key": "OPENAI_API_KEY=" + _p("sk-", "...") + "",
    "huggingface-token": "HF_TOKEN=" + _p("h", "f_") + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "groq-api-key": _p("gs", "k_") + "your-key-here",
    "replicate-token": _p("r", "8_") + "<token>",
    "xai-api-key": _p("xa", "i-") + "your-key-here",
    "perplexity-api-key": _p("ppl", "x-") + "xxxx",
    "langsmith-api-key": _p("lsv2", "_pt_") + "<token>",
    "pinecone-api-key": _p("pc", "sk_") + "your-key-here",
    "sendgrid-api-key": "SENDGRID_API_KEY=" + _p("S", "G.") + "xxxx.xxxx",
    "twilio-api-key": "api key sid " + _p("S", "K") + "x" * 32,
    "twilio-account-sid": "account " + _p("A", "C") + "x" * 32,
    "mailgun-api-key": "api:" + _p("ke", "y-") + "your-key-here",
    "mailchimp-api-key": "0" * 32 + "-us1",
    "shopify-token": "X-Shopify-Access-Token: " + _p("shp", "at_") + "<token>",
    "digitalocean-token": _p("do", "p_v1_") + "your-key-here",
    "heroku-api-key": "HEROKU_API_KEY=<token>",
    "azure-storage-key": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=<your-key-here>;",
    "databricks-token": _p("da", "pi") + "x" * 32,
    "doppler-token": _p("dp", ".pt.") + "xxxx",
    "linear-api-key": _p("lin", "_api_") + "your-key-here",
    "postman-api-key": _p("PM", "AK-") + "<token>",
    "pulumi-token": _p("pu", "l-") + "0" * 40,
    "newrelic-key": _p("NR", "AK-") + "X" * 27,
    "grafana-token": _p("gl", "sa_") + "<token>",
    "sentry-token": _p("sntr", "ys_") + "your-key-here",
    "planetscale-token": _p("pscale", "_tkn_") + "xxxx",
    "supabase-token": _p("sb", "p_") + "<token>",
    "vault-token": "VAULT_TOKEN=" + _p("hv", "s.") + "xxxx",
    "terraform-cloud-token": "xxxxxxxxxxxxxx" + _p(".atlas", "v1.") + "x" * 67,
    "tailscale-key": _p("tsk", "ey-auth-") + "<token>",
    "square-token": _p("sq0", "atp-") + "x" * 22,
    "atlassian-token": _p("ATA", "TT3") + "your-key-here",
    "bitbucket-token": _p("AT", "BB") + "x" * 32,
    "artifactory-token": _p("AK", "Cp") + "x" * 69,
    "figma-token": _p("fi", "gd_") + "your-key-here",
    "notion-token": _p("nt", "n_") + "<token>",
    "airtable-token": _p("pa", "t") + "x" * 14 + "." + "0" * 64,
    "buildkite-token": _p("bk", "ua_") + "<token>",
    "circleci-token": _p("CCI", "PAT_") + "<token>",
    "netlify-token": _p("nf", "p_") + "x" * 40,
    "flyio-token": _p("fo", "1_") + "your-key-here",
    "stripe-webhook-secret": "STRIPE_WEBHOOK=" + _p("wh", "sec_") + "...",
    "azure-ad-client-secret": "client: <client-secret>",
    "azure-sas-token": "https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=<signature>",
    "dropbox-token": _p("s", "l.") + "xxxx",
    "mapbox-secret-token": _p("s", "k.") + "eyJ...",
    "facebook-access-token": _p("EA", "A") + "your-key-here",
    "basic-auth": "Authorization: Basic " + base64.b64encode(b"user:pass").decode(),
    "jwt": "Authorization: Bearer <token>",
    "url-password": "postgres://user:pass@localhost:5432/app",
    "bearer-token": "curl -H 'Authorization: Bearer $API_TOKEN'",
    "generic-credential": 'password = "your-key-here"',
}


def sample(kind: str, rng: random.Random) -> tuple[str, str]:
    """(line, value) of one made-up secret of ``kind``."""
    value, line = GENERATORS[kind](rng)
    return line, value


# More shapes of the same secrets, as people write them: name -> (kind, rng -> (value, line)).
VARIANTS = {
    "aws-secret-unquoted": ("aws-secret-key", lambda r: ((v := rand(r, B64, 40)), f"aws_secret_access_key={v}")),
    "aws-secret-bare": ("aws-secret-key", lambda r: ((v := rand(r, B64, 40)), f"the AWS secret is {v} for prod")),
    "api-key-unquoted-hex": ("generic-credential", lambda r: ((v := rand(r, HEX, 32)), f"api_key: {v}")),
    "export-api-token": ("generic-credential", lambda r: ((v := rand(r, ALNUM, 32)), f"export API_TOKEN={v}")),
    "twilio-auth-token": ("generic-credential", lambda r: ((v := rand(r, HEX, 32)), f"TWILIO_AUTH_TOKEN={v}")),
    "json-api-key": ("generic-credential", lambda r: ((v := rand(r, ALNUM, 28)), f'{{"apiKey": "{v}"}}')),
    "client-secret-yaml": ("generic-credential", lambda r: ((v := rand(r, URLSAFE, 30)), f"client_secret: {v}")),
    "db-password-env": ("generic-credential", lambda r: ((v := rand(r, ALNUM, 18)), f"DB_PASSWORD='{v}'")),
    "secret-key-camel": ("generic-credential", lambda r: ((v := rand(r, ALNUM, 24)), f"secretKey: '{v}'")),
    "https-deploy-password": ("url-password", lambda r: ((v := rand(r, ALNUM, 14)),
                                                         f"git clone https://deploy:{v}@git.corp.net/app.git")),
    "redis-password": ("url-password", lambda r: ((v := rand(r, ALNUM, 20)), f"redis://:{v}@cache.internal:6379/0")),
    "mysql-root-password": ("url-password", lambda r: ((v := rand(r, ALNUM, 12)), f"mysql://root:{v}@10.0.0.5/app")),
    "github-token-elided": ("github-token", lambda r: ((v := _p("gh", "p_") + rand(r, ALNUM, 36)), f"use {v}...")),
    "slack-user-token": ("slack-token", lambda r: ((v := _p("xo", "xp-") + rand(r, DIGITS, 12) + "-"
                                                     + rand(r, DIGITS, 12) + "-" + rand(r, HEX, 32)), v)),
    "heroku-new-key": ("heroku-api-key", lambda r: ((v := _p("HR", "KU-") + rand(r, URLSAFE, 60)), v)),
    "npm-legacy-auth-token": ("generic-credential", lambda r: ((v := _uuid(r)),
                                                                f"//registry.npmjs.org/:_authToken={v}")),
    "django-secret-key": ("generic-credential",
                          lambda r: ((v := "django-insecure-" + rand(r, ALNUM + "#!%^*(-_=+)", 50)),
                                     f"SECRET_KEY = '{v}'")),
    "mongodb-srv-password": ("url-password", lambda r: ((v := rand(r, ALNUM, 16)),
                                                        f"mongodb+srv://admin:{v}@cluster0.mongodb.net/app")),
    "openai-legacy-key": ("openai-api-key", lambda r: ((v := _p("sk-", "") + rand(r, ALNUM, 48)), f"key: {v}")),
}

PLACEMENTS = ("description", "trigger", "keyword", "body", "name")


def planted_set(seed: int = 13, placements=PLACEMENTS):
    """Every rule and variant, each planted once in each placement: [(id, placement, kind, line, value)]."""
    rng = random.Random(seed)
    out = []
    shapes = [(kind, kind, GENERATORS[kind]) for kind in sorted(GENERATORS)]
    shapes += [(name, kind, gen) for name, (kind, gen) in sorted(VARIANTS.items())]
    for shape, kind, gen in shapes:
        for placement in placements:
            value, line = gen(rng)
            if "\n" in line and placement != "body":
                line = line.split("\n")[0]
                value = line
            out.append((f"{shape}-{placement}", placement, kind, line, value))
    return out


def skill_text(skill_id: str, placement: str, line: str) -> str:
    """A SKILL.md holding ``line`` in ``placement`` (YAML values written JSON-quoted, so escaped)."""
    name = json.dumps(f"{skill_id} {line}" if placement == "name" else skill_id)
    description = json.dumps(f"Deploys the service; {line}" if placement == "description" else
                             f"Deploys the service ({skill_id}) to the cluster and checks the rollout.")
    triggers = ["deploy the service"] + ([f"when asked to {line}"] if placement == "trigger" else [])
    keywords = ["deploy"] + ([line] if placement == "keyword" else [])
    body = "# Deploy\n\nRun the rollout, then check the dashboards.\n"
    if placement == "body":
        body += f"\n```\n{line}\n```\n"
    return (f"---\nname: {name}\ndescription: {description}\ntriggers: {json.dumps(triggers)}\n"
            f"keywords: {json.dumps(keywords)}\n---\n{body}")


def write_planted(root, seed: int = 13, placements=PLACEMENTS, layout: str = ".claude/skills"):
    """Write the planted set under ``root``; returns its entries (see :func:`planted_set`)."""
    from pathlib import Path

    entries = planted_set(seed, placements)
    for skill_id, placement, _kind, line, _value in entries:
        path = Path(root) / layout / skill_id / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(skill_text(skill_id, placement, line), encoding="utf-8")
    return entries


def planted(seed: int = 7) -> dict[str, str]:
    """One made-up secret per built-in kind (built at run time: no token sits in the source)."""
    rng = random.Random(seed)
    return {kind: sample(kind, rng)[1] for kind in GENERATORS}


def planted_lines(seed: int = 7) -> dict[str, tuple[str, str]]:
    """kind -> (line, value) of one made-up secret per kind."""
    rng = random.Random(seed)
    return {kind: sample(kind, rng) for kind in GENERATORS}
