"""The secret scanner: AR001 findings, AR9D3 withholding, the query gate and the query log.

One scanner serves every place skill text or a query goes: ``validate`` reports every
finding (AR001), the index build withholds a skill whose embedded text holds a secret
from any provider whose text leaves the process (AR9D3, :func:`withhold`), the
embedding gate refuses to send a query holding one, and the query log drops such
queries (:func:`detect_secret`).  docs/secrets.md describes the rules and how they were
chosen.

Rules
    :data:`PATTERNS` is the one table of built-in patterns: a kind (the stable id AR9D3, the
    SARIF rule and the baseline use), a label, a Python ``re`` expression, the literal
    needles one of which every match contains (a cheap test that skips the regex on
    texts that cannot match), a value check and a help text.  Order is priority: when
    two rules match the same characters, the earlier one names the finding.  Each
    regex is compiled on first use, and only when one of its needles is in the text,
    so a hook scanning a few clean files compiles almost nothing.

Value checks
    A rule may judge the matched value further: ``letter+digit`` (an ASCII letter and
    digit), ``mixed`` (upper case, lower case and digit), ``entropy`` (secret-looking
    names assigned a random-looking value: see :func:`_assignment_ok`), ``url`` (the
    password of a ``scheme://user:password@host`` URL), ``aws-secret`` (a bare
    40-character base64 string that looks random).

Placeholders
    A match is not a secret when its value is obviously a stand-in (see
    :func:`is_placeholder`): a placeholder word (``your``, ``example``,
    ``changeme``...), template syntax (``<token>``, ``${VAR}``, ``$VAR``,
    ``{{ var }}``), masking (``***``, ``xxxx``), a run of one repeated character or an
    obvious sequence (``abc123def456``).  An elision after a *complete* token
    (``ghp_<36 characters>...``) does not make it a placeholder; only a private key
    header followed by ``...`` is an example.

Allowance
    A finding whose line holds ``skillsift: allow-secret`` (in any comment style) is
    still reported, with ``allowed=True``, so validate can count allowances; it
    neither fails validation nor withholds the skill.

Configured patterns
    ``[secrets] patterns`` come from a repository, so they are compiled with RE2
    (``google-re2``), whose matching time is linear in the text: a pattern such as
    ``(a+)+$`` cannot hang a hook.  A pattern RE2 cannot compile (backreferences,
    lookaround) is a configuration error naming the pattern.

Only ``re`` is imported up front; ``re2`` only when patterns are configured.

Longer than 450 lines because :data:`PATTERNS` (about 180 lines) is the one table of built-in
rules, and it stays next to the matching, value checks and placeholder rules that read it.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Hashable, Iterable, Mapping
from functools import cache, lru_cache

from ..bytesets import SetGate, byte_set
from ..cache import regexes
from ..records import record
from ..words import with_article

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the hooks' path)
if TYPE_CHECKING:
    from typing import TypeVar

__all__ = [
    "BUILTIN_PATTERNS",
    "PATTERNS",
    "Rule",
    "SecretFinding",
    "compile_pattern",
    "detect_secret",
    "NEEDLE_SETS",
    "holds_nul",
    "is_placeholder",
    "mask",
    "redact",
    "scan_many",
    "scan_text",
    "scan_values",
    "withhold",
]

ALLOW_MARKER = "skillsift: allow-secret"
GENERIC_KIND = "generic-credential"


def _fold(word: str) -> str:
    """``word`` as RE2 ``(?i)`` reads it: each ASCII letter becomes its simple-fold orbit."""
    extra = {"k": "\u212a", "s": "\u017f"}
    return _each_letter(word, lambda ch: f"[{ch.lower()}{ch.upper()}{extra.get(ch.lower(), '')}]")


def _each_letter(word: str, letter) -> str:
    """``word`` as a pattern: each ASCII letter as ``letter`` writes it, anything else escaped."""
    return "".join(letter(ch) if ch.isascii() and ch.isalpha() else re.escape(ch) for ch in word)


_SPACE = r"[\t\n\f\r ]"  # RE2's \s (no vertical tab)


def _fold_bytes(word: str) -> str:
    """:func:`_fold` for a prefilter, which RE2 reads in UTF-8 bytes one by one (Latin-1): the
    long s and the Kelvin sign as their UTF-8 bytes."""
    extra = {"k": r"|\xe2\x84\xaa", "s": r"|\xc5\xbf"}
    return _each_letter(word, lambda ch: f"(?:{ch.lower()}|{ch.upper()}{extra.get(ch.lower(), '')})")


# The end of a secret-looking name and its separator: where an assignment can be (see _assignments).
_HINT_WORDS = ("key", "secret", "token", "word", "wd", "phrase", "pass", "credential", "credentials", "creds")
_HINT_TAIL = rf"[\"']?{_SPACE}*(?::=|=>|[:=])"
# The characters a URL's user and password may hold (the url-password rule)
_URL_PART = r"[^\t\n\f\r :@/?#\"'<>\[\]{}`]"
_NAME_CHARS = "A-Za-z0-9_.\\-\u017f\u212a"
# A secret-looking name assigned a value: `password = "..."`, `aws_secret_access_key: ...`,
# `export API_TOKEN=...`, `"client-secret": "..."`, `apiKey => '...'`.  The name is judged
# by :func:`_secret_name` (its last word), the value by :func:`_assignment_ok`.
_ASSIGNMENT = (
    rf"(?<![{_NAME_CHARS}])([A-Za-z_][{_NAME_CHARS}]{{0,80}})[\"']?{_SPACE}*(?::=|=>|[:=]){_SPACE}*"
    r"(?:[\"']([^\t\n\f\r \"'\\<>{}`]{8,200})[\"']|([A-Za-z0-9/+_.=~-]{16,200})(?![^\t\n\f\r ,;)\]}\"'`]))"
)
_HEX = "[0-9a-fA-F]"
_END = r"(?:\b|(?![A-Za-z0-9_]))"  # the end of a token, also after a final "-" (a superset of \b)
_UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


@record(frozen=True)
class Rule:
    """One built-in rule of the table (see the module docstring)."""

    kind: str
    label: str
    regex: str
    needles: tuple[str, ...]  # a match contains one of these (case-folded when ``folded``)
    check: str = ""  # "" | letter+digit | mixed | entropy | url | aws-secret
    help: str = ""  # what it is and what to do (SARIF help text)
    folded: bool = False
    elidable: bool = False  # "..." right after the match marks an example (a key header)
    # an RE2 expression every match holds, for a rule whose needles are in most texts: looked for
    # in the same one pass as the needles (see _needles_held), it spares the rule's own regex (and
    # there it stands for the needles: _set_entries)
    prefilter: str = ""


PATTERNS: tuple[Rule, ...] = (
    Rule("private-key", "private key block", r"-{5}BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-{5}",
         ("PRIVATE KEY",), help="A PEM/OpenSSH/PGP private key. Remove it and issue a new key pair.",
         elidable=True),
    Rule("age-secret-key", "age secret key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", ("AGE-SECRET-KEY-",),
         help="An age encryption identity. Remove it and generate a new identity."),
    Rule("putty-private-key", "PuTTY private key", r"PuTTY-User-Key-File-[0-9]+: ", ("PuTTY-User-Key-File-",),
         help="A PuTTY private key file. Remove it and issue a new key pair."),
    Rule("aws-access-key", "AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
         ("AKIA", "ASIA", "ABIA", "ACCA"),
         help="An AWS access key id. Deactivate it in IAM and create a new key."),
    Rule("github-token", "GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b", ("gh",),
         prefilter="gh[pousr]_[A-Za-z0-9]{36}",
         help="A GitHub personal, OAuth, app or refresh token. Revoke it in the GitHub settings."),
    Rule("github-fine-grained-token", "GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{22,}\b",
         ("github_pat_",), help="A GitHub fine-grained personal access token. Revoke it in the GitHub settings."),
    Rule("gitlab-token", "GitLab token",
         r"\bgl(?:pat|ptt|dt|rt|cbt|soat|ffct|imt|oas|agent)-[A-Za-z0-9_.-]{20,}|\bGR1348941[A-Za-z0-9_-]{20,}",
         ("gl", "GR1348941"),
         prefilter=r"gl(?:pat|ptt|dt|rt|cbt|soat|ffct|imt|oas|agent)-[A-Za-z0-9_.-]{20}|GR1348941[A-Za-z0-9_-]{20}",
         help="A GitLab personal, project, deploy, runner or trigger token. Revoke it in GitLab."),
    Rule("npm-token", "npm access token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",),
         help="An npm access token. Revoke it with 'npm token revoke' or on npmjs.com."),
    Rule("pypi-token", "PyPI API token", r"\bpypi-[A-Za-z0-9_-]{50,}", ("pypi-",),
         help="A PyPI (or TestPyPI) API token. Remove it on pypi.org (Account settings, API tokens)."),
    Rule("rubygems-token", "RubyGems API key", r"\brubygems_[0-9a-f]{48}\b", ("rubygems_",),
         help="A RubyGems API key. Revoke it on rubygems.org."),
    Rule("docker-hub-token", "Docker Hub access token", r"\bdckr_pat_[A-Za-z0-9_-]{27,}", ("dckr_pat_",),
         help="A Docker Hub personal access token. Revoke it in the Docker Hub security settings."),
    Rule("slack-webhook", "Slack webhook URL",
         r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})", ("hooks.slack.com",),
         check="letter+digit", help="A Slack incoming webhook. Regenerate it in the Slack app settings."),
    Rule("slack-token", "Slack token", r"\b(?:xox[abprseo]|xapp)-[A-Za-z0-9-]{10,}" + _END, ("xox", "xapp-"),
         help="A Slack bot, user, app or configuration token. Revoke it in the Slack app settings."),
    Rule("discord-webhook", "Discord webhook URL",
         r"discord(?:app)?\.com/api/webhooks/[0-9]{15,22}/([A-Za-z0-9_-]{50,})", ("discord",),
         help="A Discord webhook. Delete and recreate it in the channel settings."),
    Rule("discord-bot-token", "Discord bot token",
         r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}" + _END, (".",), check="mixed",
         prefilter=r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",
         help="A Discord bot token. Reset it in the Discord developer portal."),
    Rule("telegram-bot-token", "Telegram bot token", r"\b[0-9]{6,12}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])",
         (":",), check="mixed", prefilter="[0-9]{6}:[A-Za-z0-9_-]{35}",
         help="A Telegram bot token. Revoke it with @BotFather (/revoke)."),
    Rule("google-api-key", "Google API key", r"\bAIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_])", ("AIza",),
         help="A Google Cloud / Firebase API key. Delete or restrict it in the Google Cloud console."),
    Rule("google-oauth-secret", "Google OAuth client secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_])",
         ("GOCSPX-",),
         help="A Google OAuth client secret. Reset it in the Google Cloud console."),
    Rule("stripe-live-key", "Stripe live key", r"\b[sr]k_live_[0-9A-Za-z]{24,}\b", ("k_live_",),
         help="A Stripe live secret or restricted key. Roll it in the Stripe dashboard."),
    Rule("stripe-test-key", "Stripe test key", r"\b[sr]k_test_[0-9A-Za-z]{24,}\b", ("k_test_",),
         help="A Stripe test secret or restricted key. Roll it in the Stripe dashboard."),
    Rule("stripe-webhook-secret", "Stripe webhook signing secret", r"\bwhsec_[A-Za-z0-9+/=]{24,}", ("whsec_",),
         help="A Stripe webhook signing secret. Roll it in the Stripe dashboard (Webhooks)."),
    Rule("anthropic-api-key", "Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}" + _END, ("sk-ant-",),
         help="An Anthropic API key. Revoke it in the Anthropic console."),
    Rule("openai-api-key", "OpenAI API key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{40,}" + _END, ("sk-",),
         help="An OpenAI API key. Revoke it in the OpenAI platform settings."),
    Rule("huggingface-token", "Hugging Face token", r"\b(?:hf|api_org)_[A-Za-z0-9]{30,}\b", ("hf_", "api_org_"),
         help="A Hugging Face access token. Invalidate it in the Hugging Face settings."),
    Rule("groq-api-key", "Groq API key", r"\bgsk_[A-Za-z0-9]{48,}\b", ("gsk_",),
         help="A Groq API key. Delete it in the Groq console."),
    Rule("replicate-token", "Replicate API token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",), check="letter+digit",
         help="A Replicate API token. Revoke it in the Replicate account settings."),
    Rule("xai-api-key", "xAI API key", r"\bxai-[A-Za-z0-9]{70,}\b", ("xai-",),
         help="An xAI API key. Revoke it in the xAI console."),
    Rule("perplexity-api-key", "Perplexity API key", r"\bpplx-[A-Za-z0-9]{40,}\b", ("pplx-",),
         help="A Perplexity API key. Revoke it in the Perplexity settings."),
    Rule("langsmith-api-key", "LangSmith API key", r"\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\b", ("lsv2_",),
         help="A LangSmith API key. Revoke it in the LangSmith settings."),
    Rule("pinecone-api-key", "Pinecone API key", r"\bpcsk_[A-Za-z0-9_]{40,}\b", ("pcsk_",),
         help="A Pinecone API key. Revoke it in the Pinecone console."),
    Rule("sendgrid-api-key", "SendGrid API key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_])",
         ("SG.",),
         help="A SendGrid API key. Delete it in the SendGrid settings."),
    Rule("twilio-api-key", "Twilio API key", rf"\bSK{_HEX}{{32}}\b", ("SK",), check="letter+digit",
         prefilter=f"SK{_HEX}{{32}}",
         help="A Twilio API key sid. Delete the key in the Twilio console."),
    Rule("twilio-account-sid", "Twilio account sid", rf"\bAC{_HEX}{{32}}\b", ("AC",), check="letter+digit",
         prefilter=f"AC{_HEX}{{32}}",
         help="A Twilio account sid (it travels with the auth token). Rotate the auth token in the Twilio console."),
    Rule("mailgun-api-key", "Mailgun API key", r"\bkey-[0-9a-zA-Z]{32}\b", ("key-",), check="letter+digit",
         help="A Mailgun API key. Rotate it in the Mailgun settings."),
    Rule("mailchimp-api-key", "Mailchimp API key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", ("-us",),
         check="letter+digit", prefilter="[0-9a-f]{32}-us[0-9]",
         help="A Mailchimp API key. Revoke it in the Mailchimp account settings."),
    Rule("shopify-token", "Shopify token", r"\bshp(?:at|ca|pa|ss)_[A-Za-z0-9]{32,}\b", ("shp",),
         help="A Shopify access token or shared secret. Rotate it in the Shopify admin."),
    Rule("digitalocean-token", "DigitalOcean token", r"\bdo[opr]_v1_[A-Za-z0-9]{60,}\b", ("_v1_",),
         help="A DigitalOcean personal, OAuth or refresh token. Revoke it in the DigitalOcean console."),
    Rule("heroku-api-key", "Heroku API key",
         rf"\bHRKU-[A-Za-z0-9_-]{{60}}(?![A-Za-z0-9_])|{_fold('heroku')}[A-Za-z0-9_ .\-:=\"']{{0,40}}?\b({_UUID})\b",
         ("hrku-", "heroku"), folded=True,
         help="A Heroku API key. Regenerate it with 'heroku authorizations:rotate' or in the account settings."),
    Rule("azure-storage-key", "Azure storage or Service Bus key",
         r"\b(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,}={0,2})", ("AccountKey=", "SharedAccessKey="),
         help="An Azure storage account key or shared access key. Rotate it in the Azure portal."),
    Rule("azure-ad-client-secret", "Azure AD client secret",
         r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])", ("Q~",),
         help="A Microsoft Entra ID (Azure AD) application client secret. Delete it in the app registration."),
    Rule("azure-sas-token", "Azure shared access signature",
         r"[?&;]sig=([A-Za-z0-9%+/]{30,}(?:%3D|=){0,2})", ("sig=",), check="letter+digit",
         help="An Azure shared access signature in a URL or connection string. Revoke it (rotate the key it "
              "was signed with)."),
    Rule("databricks-token", "Databricks token", r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b", ("dapi",),
         check="letter+digit", help="A Databricks personal access token. Revoke it in the Databricks settings."),
    Rule("doppler-token", "Doppler token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b", ("dp.",),
         help="A Doppler token. Revoke it in the Doppler dashboard."),
    Rule("linear-api-key", "Linear API key", r"\blin_api_[A-Za-z0-9]{40}\b", ("lin_api_",),
         help="A Linear API key. Revoke it in the Linear settings."),
    Rule("postman-api-key", "Postman API key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("PMAK-",),
         help="A Postman API key. Revoke it in the Postman settings."),
    Rule("pulumi-token", "Pulumi access token", r"\bpul-[a-f0-9]{40}\b", ("pul-",),
         help="A Pulumi access token. Revoke it in the Pulumi console."),
    Rule("newrelic-key", "New Relic key", r"\bNR(?:AK|AA|II|JS)-[A-Za-z0-9]{27}\b",
         ("NRAK-", "NRAA-", "NRII-", "NRJS-"),
         help="A New Relic user or license key. Delete it in the New Relic API keys page."),
    Rule("grafana-token", "Grafana token",
         r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}", ("glsa_", "glc_"),
         help="A Grafana service account or Cloud token. Revoke it in Grafana."),
    Rule("sentry-token", "Sentry token", r"\bsntry[su]_[A-Za-z0-9+/=_]{40,}", ("sntry",),
         help="A Sentry auth token. Revoke it in the Sentry settings."),
    Rule("planetscale-token", "PlanetScale token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}" + _END,
         ("pscale_",),
         help="A PlanetScale token or password. Revoke it in the PlanetScale dashboard."),
    Rule("supabase-token", "Supabase token", r"\bsb(?:p|_secret)_[A-Za-z0-9_-]{32,}" + _END, ("sbp_", "sb_secret_"),
         help="A Supabase access token or secret key. Revoke it in the Supabase dashboard."),
    Rule("vault-token", "HashiCorp Vault token", r"\bhv[sb]\.[A-Za-z0-9_-]{24,}" + _END, ("hvs.", "hvb."),
         check="letter+digit", help="A HashiCorp Vault token. Revoke it with 'vault token revoke'."),
    Rule("terraform-cloud-token", "Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}\b",
         (".atlasv1.",), help="A Terraform Cloud / Enterprise API token. Revoke it in the user settings."),
    Rule("tailscale-key", "Tailscale key",
         r"\btskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}\b",
         ("tskey-",), help="A Tailscale auth or API key. Revoke it in the Tailscale admin console."),
    Rule("square-token", "Square token",
         r"\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}" + _END + r"|\bEAAA[A-Za-z0-9_-]{60}(?![A-Za-z0-9_])",
         ("sq0", "EAAA"), check="letter+digit",
         help="A Square access token or secret. Revoke it in the Square dashboard."),
    Rule("atlassian-token", "Atlassian API token", r"\bATATT3[A-Za-z0-9_=-]{180,}", ("ATATT3",),
         help="An Atlassian API token. Revoke it in the Atlassian account security settings."),
    Rule("bitbucket-token", "Bitbucket app password", r"\bATBB[A-Za-z0-9_=.-]{32,}\b", ("ATBB",), check="letter+digit",
         help="A Bitbucket app password. Revoke it in the Bitbucket settings."),
    Rule("artifactory-token", "Artifactory token", r"\bAKCp[A-Za-z0-9]{69}\b|\bcmVmdGtuOjAxOj[A-Za-z0-9]{50,}",
         ("AKCp", "cmVmdGtuOjAxOj"), help="A JFrog Artifactory API key or reference token. Revoke it in JFrog."),
    Rule("figma-token", "Figma token", r"\bfig[dou]_[A-Za-z0-9_-]{40,}" + _END, ("fig",), check="letter+digit",
         prefilter="fig[dou]_[A-Za-z0-9_-]{40}",
         help="A Figma personal access token. Revoke it in the Figma settings."),
    Rule("notion-token", "Notion integration token", r"\bntn_[A-Za-z0-9]{40,}\b|\bsecret_[A-Za-z0-9]{43}\b",
         ("ntn_", "secret_"), check="mixed",
         help="A Notion integration secret. Regenerate it in the Notion integrations page."),
    Rule("airtable-token", "Airtable token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", ("pat",),
         prefilter=r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",
         help="An Airtable personal access token. Revoke it in the Airtable developer hub."),
    Rule("buildkite-token", "Buildkite token", r"\bbkua_[a-f0-9]{40}\b", ("bkua_",),
         help="A Buildkite API access token. Revoke it in the Buildkite settings."),
    Rule("circleci-token", "CircleCI token", r"\bCCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}\b", ("CCIP",),
         help="A CircleCI personal or project token. Revoke it in CircleCI."),
    Rule("netlify-token", "Netlify token", r"\bnf[pcu]_[A-Za-z0-9]{36,}\b", ("nfp_", "nfc_", "nfu_"),
         check="letter+digit", help="A Netlify access token. Revoke it in the Netlify user settings."),
    Rule("flyio-token", "Fly.io token",
         r"\bFlyV1 fm[12]_[A-Za-z0-9+/=_,-]{60,}|\bfo1_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_])",
         ("FlyV1 ", "fo1_"), help="A Fly.io access token. Revoke it with 'fly tokens revoke'."),
    Rule("dropbox-token", "Dropbox access token", r"\bsl\.[A-Za-z0-9_-]{130,}", ("sl.",),
         help="A Dropbox short-lived access token. Revoke it in the Dropbox app console."),
    Rule("mapbox-secret-token", "Mapbox secret token", r"\bsk\.eyJ[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{20,}",
         ("sk.eyJ",), help="A Mapbox secret access token. Delete it in the Mapbox account."),
    Rule("facebook-access-token", "Facebook access token", r"\bEAA[A-Za-z0-9]{90,}", ("EAA",), check="mixed",
         help="A Facebook / Meta access token. Invalidate it in the Meta developer console."),
    Rule("jwt", "JSON web token", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}" + _END,
         ("eyJ",),
         help="A signed JSON web token (its claims are readable by anyone). Revoke the session or rotate the "
              "signing key."),
    Rule("url-password", "password in a URL",
         rf"\b[A-Za-z][A-Za-z0-9+.-]{{1,20}}://({_URL_PART}{{0,64}}):({_URL_PART}{{1,128}})@(?=[A-Za-z0-9\[])",
         ("://",), check="url", prefilter=rf"://{_URL_PART}*:{_URL_PART}+@",
         help="A password written into a connection URL. Change the password and read it from the environment."),
    Rule("basic-auth", "HTTP basic credentials", rf"\b{_fold('basic')}[ \t]+([A-Za-z0-9+/]{{12,}}={{0,2}})",
         ("basic",), folded=True, check="basic",
         prefilter=rf"{_fold_bytes('basic')}[ \t]+[A-Za-z0-9+/]{{12}}",
         help="An HTTP Basic authorization header (base64 of user:password). Change the password."),
    Rule("bearer-token", "bearer token", rf"\b{_fold('bearer')}[ \t]+([A-Za-z0-9._~+/-]{{20,}}=*)",
         ("bearer",), folded=True, check="entropy",
         prefilter=rf"{_fold_bytes('bearer')}[ \t]+[A-Za-z0-9._~+/-]{{20}}",
         help="An HTTP bearer token. Revoke it where it was issued and read it from the environment."),
    Rule("aws-secret-key", "40-character secret key (the shape of an AWS secret access key)",
         r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", (), check="aws-secret",
         prefilter="[A-Za-z0-9/+]{40}",
         help="A 40-character random base64 string, the shape of an AWS secret access key. Rotate it in IAM."),
    Rule(GENERIC_KIND, "hard-coded credential", _ASSIGNMENT,
         ("key", "secret", "token", "passw", "pwd", "pass", "credential", "creds", "auth"), folded=True,
         check="entropy",
         prefilter="(?:" + "|".join(_fold_bytes(word) for word in _HINT_WORDS) + ")" + _HINT_TAIL,
         help="A secret-looking name (password, secret, token, api_key, ...) assigned a random-looking value. "
              "Remove it, rotate it and read it from the environment."),
)

# (kind, label, regex) of every built-in rule, in priority order.
BUILTIN_PATTERNS: tuple[tuple[str, str, str], ...] = tuple((r.kind, r.label, r.regex) for r in PATTERNS)


@record(frozen=True)
class SecretFinding:
    """One secret: where it is and a masked excerpt that is safe to print."""

    kind: str  # rule kind: "aws-access-key", ..., or the name of a configured pattern
    label: str  # human name used in messages
    line: int  # 1-based line of the secret's first character
    column: int  # 1-based column (in characters) of the secret's first character
    masked: str  # first 4 characters + "****" + " (N characters)", or all "*" when N <= 8
    allowed: bool = False  # the line carries the "skillsift: allow-secret" marker

    @property
    def message(self) -> str:
        return f"looks like {with_article(self.label)} ({self.masked})"


class _Compiled:
    """A rule whose regex is compiled on first use.

    A leading ``\\b`` is taken out of the compiled regex and checked on each match
    instead (the first character of such a match is always an ASCII word character, so
    this is the same test): Python's engine then finds the literal prefix
    (``ghp_``, ``AKIA``) at C speed instead of trying the regex at every position.
    """

    __slots__ = ("rule", "kind", "label", "_regex", "configured", "bounded")

    def __init__(self, rule: Rule, regex=None, configured: bool = False):
        self.rule = rule
        self.kind = rule.kind
        self.label = rule.label
        self._regex = regex
        self.configured = configured
        self.bounded = not configured and rule.regex.startswith("\\b") and rule.kind != GENERIC_KIND \
            and rule.check != "url"

    @property
    def regex(self):
        if self._regex is None:
            src = self.rule.regex[2:] if self.bounded else self.rule.regex
            self._regex = regexes.compile(src, re.ASCII)
        return self._regex

    def finditer(self, text: str):
        """The matches of the rule's regex in ``text``, leftmost first, as ``finditer`` gives them."""
        if self.rule.kind == GENERIC_KIND:
            yield from _assignments(self.regex, text)
            return
        if self.rule.check == "url":
            yield from _urls(self.regex, text)
            return
        if self.rule.kind == _BASE64_KIND and NEEDLE_SETS.on:
            yield from _base64_keys(self.regex, text)
            return
        if not self.bounded:
            yield from self.regex.finditer(text)
            return
        if self.kind in _STARTS and NEEDLE_SETS.on:
            yield from _bounded_at(self.regex, text, _byte_starts(self.kind, text))
            return
        search, pos, n = self.regex.search, 0, len(text)
        while pos <= n:
            m = search(text, pos)
            if m is None:
                return
            start = m.start()
            if start and _WORD_CHAR(text[start - 1]):
                pos = start + 1  # no word boundary before it: look again one character on
                continue
            yield m
            pos = m.end() if m.end() > start else start + 1


#: The rules whose regex starts with no literal (``\\bntn_...|\\bsecret_...``, ``basic`` in either case), which
#: Python's engine tries at every character of the class it starts with, and the RE2 expression of the
#: beginnings of their matches (they do not overlap): the rule is tried where one is (:func:`_bounded_at`).
_STARTS = {"notion-token": "ntn_|secret_", "basic-auth": _fold_bytes("basic")}


def _bounded_at(regex: re.Pattern, text: str, starts: list[int]):
    """The matches of a bounded rule (a word boundary before each; see :class:`_Compiled`) as searching
    finds them, ``regex`` tried only at ``starts``, where every match of it starts, in order: the
    leftmost match from a position is at the first of the later starts where the regex matches."""
    match, pos = regex.match, 0
    for start in starts:
        if start < pos:
            continue
        m = match(text, start)
        if m is None:
            continue
        if start and _WORD_CHAR(text[start - 1]):
            pos = start + 1  # no word boundary before it: look again one character on
            continue
        yield m
        pos = m.end() if m.end() > start else start + 1


def _WORD_CHAR(ch: str) -> bool:  # noqa: N802 - the ASCII \w of RE2 and of re.ASCII
    return ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ("0" <= ch <= "9")


_NAME_SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-\u017f\u212a")


@lru_cache(maxsize=2)
def _assignment_hint(lowered: bool) -> re.Pattern:
    """The end of a secret-looking name and its separator: where an assignment can be.

    ``lowered``: for text already lower-cased (much faster to search); otherwise each
    letter is an RE2 case-fold class.
    """
    words = "|".join(_HINT_WORDS if lowered else (_fold(w) for w in _HINT_WORDS))
    return regexes.compile(rf"(?:{words}){_HINT_TAIL}", re.ASCII)


@lru_cache(maxsize=4)
def _byte_regex(name: str):
    """An RE2 regex that reads UTF-8 bytes one by one (Latin-1): ``hint``, the assignment hint with each
    letter in either case (the generic rule's prefilter), ``base64-run``, a run of 40 or more
    characters of the ``aws-secret-key`` rule, as long as it goes, or a rule kind of :data:`_STARTS`,
    the beginnings of its matches."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False
    source = _rule(GENERIC_KIND).prefilter if name == "hint" else _STARTS.get(name, "[A-Za-z0-9/+]{40,}")
    return re2.compile(source.encode("ascii"), options)


def _rule(kind: str) -> Rule:
    return next(rule for rule in PATTERNS if rule.kind == kind)


def _byte_starts(name: str, text: str) -> list[int]:
    """The start of each match of :func:`_byte_regex` ``name`` in ``text``, leftmost first, one after
    another, as string offsets.

    Each expression starts at an ASCII character or at the long s or the Kelvin sign, so its matches
    in the UTF-8 bytes start at whole characters; byte offsets become string offsets by decoding
    what precedes each.
    """
    data = _utf8(text)
    starts = [m.start() for m in _byte_regex(name).finditer(data)]
    if len(data) == len(text):
        return starts
    out, byte, char = [], 0, 0
    for start in starts:
        char += len(data[byte:start].decode("utf-8", "surrogatepass"))
        byte = start
        out.append(char)
    return out


def _hint_starts(text: str) -> list[int]:
    """The start of each :func:`_assignment_hint` match in ``text``, in either case, as Python's
    engine finds them in the lower-cased text, searched by RE2 in linear time (see :func:`_assignments`).

    The hint's letters are written in either case, the Kelvin sign and the long s with ``k`` and ``s``
    (the only characters outside ASCII that ``lower`` maps into ASCII or that fold to an ASCII letter),
    so no text is lowered: its matches are those of the lowered hint in the lowered text.
    """
    return _byte_starts("hint", text)


_BASE64_KIND = "aws-secret-key"


def _base64_keys(full: re.Pattern, text: str):
    """Matches of the ``aws-secret-key`` rule, tried only at the start of each run of 40 or more of its
    characters (found by RE2 once the needle sets have imported it).

    The rule's match is a whole run of exactly 40 characters (none of them before it, none and no
    ``=`` after it), so it starts where a run starts, and runs do not overlap: the rule matched at the
    start of each run finds what searching the text finds, in the same order.
    """
    for start in _byte_starts("base64-run", text):
        m = full.match(text, start)
        if m is not None:
            yield m


def _python_hint_starts(text: str) -> list[int]:
    """:func:`_hint_starts` by Python's engine, over the lower-cased text when lower-casing keeps every
    offset (the Kelvin sign becomes ``k``; the long s, which ``lower`` keeps, is replaced by ``s``)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        if "\u017f" in lowered:
            lowered = lowered.replace("\u017f", "s")
        return [hint.start() for hint in _assignment_hint(True).finditer(lowered)]
    return [hint.start() for hint in _assignment_hint(False).finditer(text)]


def _assignments(full: re.Pattern, text: str):
    """Matches of the assignment rule, tried only where :func:`_assignment_hint` is found.

    The rule's name is a whole run of name characters ending in a secret word, so each
    hint is walked back to the start of its run and the rule is matched there.
    """
    # RE2 once the needle sets have imported it (past the first 64 KiB a process scans): a hook over
    # a few small files does not pay its import for this
    starts = _hint_starts(text) if NEEDLE_SETS.on else _python_hint_starts(text)
    seen = set()
    for start in starts:
        limit = max(0, start - 81)
        while start > limit and text[start - 1] in _NAME_SET:
            start -= 1
        if start in seen:
            continue
        seen.add(start)
        m = full.match(text, start)
        if m is not None:
            yield m


#: Characters the URL rule reads from a match's start: a scheme (21), ``://``, a user (64), ``:``,
#: a password (128), ``@`` and the character after it.
_URL_SPAN = 21 + 3 + 64 + 1 + 128 + 1 + 1


def _urls(full: re.Pattern, text: str):
    """Matches of the URL rule, searched from just before each ``://`` (a scheme is 2 to 21 characters).

    A match holds its ``://`` 2 to 21 characters after its start, so one that starts at most at
    ``pos - 2`` is read whole within ``_URL_SPAN`` characters of its start: each ``://`` is
    searched in that window only (a URL without a password no longer costs a search to the end
    of the text), and a window without a match starting by ``pos - 2`` moves on to the next
    ``://``: a match starting later holds a later ``://``, so it starts at most 21 characters
    before that one, in the next window.
    """
    last_end, pos, n = 0, text.find("://"), len(text)
    while pos != -1:
        m = full.search(text, max(last_end, pos - 21), min(n, pos - 2 + _URL_SPAN))
        if m is not None and m.start() <= pos - 2:
            yield m
            last_end = m.end()
            pos = text.find("://", max(last_end, pos + 1))
        else:
            pos = text.find("://", pos + 1)


@lru_cache(maxsize=1)
def _builtin() -> tuple[_Compiled, ...]:
    return tuple(_Compiled(rule) for rule in PATTERNS)


def compile_pattern(src: str):
    """A configured pattern compiled with RE2 (linear-time matching); raises ValueError."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(src, options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"{reason} (patterns use RE2 syntax: no backreferences or lookaround)") from None


@lru_cache(maxsize=32)
def _compile_extra(extra: tuple[tuple[str, str], ...]) -> tuple[_Compiled, ...]:
    out = []
    for name, src in extra:
        try:
            regex = compile_pattern(src)
        except ValueError as exc:
            raise ValueError(
                f"secret pattern {name!r} is not a valid regular expression ({exc}); "
                "fix or remove it in the [secrets] patterns of the config"
            ) from None
        out.append(_Compiled(Rule(name, name, src, ()), regex, configured=True))
    return tuple(out)


def _patterns(extra_patterns) -> tuple[_Compiled, ...]:
    if not extra_patterns:
        return _builtin()
    extra = tuple((str(name), str(src)) for name, src in extra_patterns)
    return _builtin() + (_compile_extra(extra) if extra else ())


def mask(value: str) -> str:
    """The printable stand-in of a secret value."""
    n = len(value)
    if n <= 8:
        return "*" * n
    return f"{value[:4]}**** ({n} characters)"


# --- placeholders -----------------------------------------------------------------------
# Known prefixes are removed before the repeated-character rule so that "ghp_" + 36 "x"
# is judged on its 36 "x".
_PLACEHOLDER_WORDS = (
    "your", "example", "sample", "dummy", "placeholder", "changeme", "change_me", "change-me", "replaceme",
    "replace_me", "replace-me", "replacewith", "replace_with", "replace-with", "redacted", "fake", "xxxx",
)


def _placeholder_forms() -> tuple[str, ...]:
    """The placeholder words as a person writes them: lower case, upper case or capitalised
    (``your``, ``YOUR``, ``Your``; not ``yOuR``, which a random token can hold), and masking.

    A value holds a placeholder word when one of these is in it: a plain substring test for each,
    which a process scanning a catalog asks only of its few matches, where the one regex of their
    alternation cost a millisecond to compile (tests/secrets/test_placeholder_words.py keeps that
    regex as the reference)."""
    forms: set[str] = set()
    for word in _PLACEHOLDER_WORDS:
        forms.update((word, word.upper(), word.capitalize()))
    return (*sorted(forms, key=lambda w: (-len(w), w)), "***", "...", "\u2026")


_PLACEHOLDER_FORMS = _placeholder_forms()


@record(frozen=True)
class _PlaceholderRules:
    prefixes: re.Pattern
    template: re.Pattern
    repeated: re.Pattern
    elision: re.Pattern


@lru_cache(maxsize=1)
def _rules() -> _PlaceholderRules:
    return _PlaceholderRules(
        prefixes=regexes.compile(
            r"^(?:AKIA|ASIA|ABIA|ACCA|gh[pousr]_|npm_|github_pat_|gl[a-z]{1,5}-|xox[a-z]-|xapp-|AIza|[sr]k_live_|"
            r"[sr]k_test_|sk-ant-(?:api[0-9]{2}-)?|sk-proj-|sk-|hf_|pypi-|shp[a-z]{2}_|do[opr]_v1_|key-|SG\.|"
            r"SK|AC|dapi|lin_api_|dckr_pat_|HRKU-|[a-z0-9]{2,8}_)"
        ),
        template=regexes.compile(
            r"<[^<>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|^\$[A-Za-z_][A-Za-z0-9_]*$|%\([^)]*\)s|(?<![A-Za-z0-9])%s(?![A-Za-z0-9])"
        ),
        repeated=regexes.compile(r"(.)\1{5,}", re.DOTALL),
        elision=regexes.compile(r"\.\.\.|\u2026|\*{3}"),
    )


_SEQUENCES = ("abcdefghijklmnopqrstuvwxyz", "0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _sequential(body: str) -> bool:
    """Most of ``body`` is runs of 3+ consecutive letters or digits (``abc123def456``)."""
    if len(body) < 10:
        return False
    covered = 0
    i = 0
    while i < len(body):
        j = i + 1
        while j < len(body) and any(body[j - 1 : j + 1] in seq for seq in _SEQUENCES):
            j += 1
        if j - i >= 3:
            covered += j - i
        i = j
    return covered * 10 >= len(body) * 6


def is_placeholder(value: str, following: str = "", *, elidable: bool = False) -> bool:
    """True when ``value`` is a stand-in for a secret rather than a secret.

    ``following`` is the text right after the match; an elision there (``...``) marks
    an example only for ``elidable`` rules (a private key header followed by ``...``):
    a complete token followed by ``...`` is still a token.  The rules, in order:

    1. a placeholder word (lower case, upper case or capitalised) or masking anywhere in the value:
       ``your``, ``example``, ``sample``, ``dummy``, ``placeholder``, ``changeme``,
       ``replace_me``/``replace_with``, ``redacted``, ``fake``, ``xxxx``, ``***``,
       ``...``;
    2. template syntax: ``<...>``, ``${...}``, ``{{...}}``, a bare ``$VAR``, ``%s``;
    3. after a known key prefix, one character repeated six or more times in a row,
       (in ten or more characters) fewer than five distinct characters, or mostly
       runs of consecutive letters or digits (``abc123def456...``);
    4. after a known key prefix, nothing but words in two or more pieces, one naming what the value
       stands for (``sk-or-v1-project1-key``; :func:`_named_stand_in`);
    5. for an elidable rule, an elision (``...``, ``…``, ``***``) right after the match.
    """
    if any(form in value for form in _PLACEHOLDER_FORMS):
        return True
    rules = _rules()
    if rules.template.search(value):
        return True
    body = rules.prefixes.sub("", value, count=1)
    if rules.repeated.search(body) or (len(body) >= 10 and len(set(body)) < 5) or _sequential(body):
        return True
    if _named_stand_in(body):
        return True
    return elidable and bool(rules.elision.match(following))


#: Words a stand-in uses to name what it stands for (``sk-or-v1-project1-key``, ``my-api-token``).
_STAND_IN_WORDS = frozenset({
    "key", "keys", "token", "tokens", "secret", "password", "pass", "passwd", "pwd", "api", "apikey", "project",
    "test", "testing", "demo", "my", "here", "value", "foo", "bar", "baz", "abc", "xyz", "org", "user", "account",
    "app", "local", "dev", "prod", "staging", "tenant", "client", "id", "env", "workspace", "team", "service",
})
_SEGMENT = regexes.compile(r"[a-z]{2,12}[0-9]{0,2}|v[0-9]{1,2}|[0-9]{1,2}")


def _named_stand_in(body: str) -> bool:
    """``body`` (a value without its known prefix) is made only of words, in two or more pieces split at
    ``-``, ``_``, ``.`` or ``:``, and one of them names what the value stands for (:data:`_STAND_IN_WORDS`):
    ``or-v1-project1-key``.  A person wrote it as an example: a generated key has a random piece
    (the reasoning of detect-secrets' word-list and gibberish filters, by another rule)."""
    pieces = [piece for piece in re.split(r"[-_.:]+", body) if piece]
    if len(pieces) < 2:
        return False
    words = []
    for piece in pieces:
        if piece not in (piece.lower(), piece.capitalize(), piece.upper()):
            return False  # mixed case inside a piece: generated
        low = piece.lower()
        if not _SEGMENT.fullmatch(low):
            return False
        letters = low.rstrip("0123456789")
        if len(letters) > 3 and not re.search("[aeiouy]", letters):
            return False  # not a word: no vowel
        words.append(letters)
    return any(word in _STAND_IN_WORDS for word in words)


# --- value checks -----------------------------------------------------------------------


def _entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    n = len(value)
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _has(value: str, lower=False, upper=False, digit=False, letter=False) -> bool:
    if lower and not any("a" <= c <= "z" for c in value):
        return False
    if upper and not any("A" <= c <= "Z" for c in value):
        return False
    if digit and not any("0" <= c <= "9" for c in value):
        return False
    return not letter or any("a" <= c <= "z" or "A" <= c <= "Z" for c in value)


# The last word of a name decides whether it names a secret: `db_password`, `API_TOKEN`,
# `clientSecret`; `token_type`, `max_tokens`, `tokenizer` and `password_file` do not.
_SECRET_WORDS = frozenset({
    "secret", "token", "password", "passwd", "pwd", "passphrase", "pass", "credential", "credentials",
    "creds", "apikey", "secretkey", "accesskey", "privatekey", "authtoken", "accesstoken",
})
_KEY_OWNERS = frozenset({
    "api", "access", "secret", "private", "auth", "master", "account", "signing", "encryption", "client",
    "app", "service", "admin", "license", "licence", "storage", "shared", "webhook", "deploy", "bot", "session",
    "consumer", "subscription", "write", "hmac", "sas", "sendgrid", "stripe", "openai", "anthropic", "mailgun",
})


# The regexes of the value checks, each compiled on first use (the hook imports this module).
_VALUE_REGEXES = {
    "word_split": r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])",
    # Words people type into example credentials ("SecurePass123!", "my-secret-key-123",
    # "generate-with-openssl-rand-base64-32"); a random value almost never holds them.
    "example_words": (
        r"pass(?:word)?|secret|secure|super|admin|test|demo|change|hello|world|welcome|default|local|"
        r"private|public|strong|random|string|value|token|here|generate|openssl|rand|base64|insert|"
        r"database|user|login|access|qwerty|letmein|master|my|key|jwt|api|dev|prod|staging|with|this|that|"
        r"some|long|very|foo|bar|baz|abc|xyz|temp|encrypt|sign|session|cookie|app|service|server|client|"
        r"mongo|postgres|mysql|redis|root|guest|auth|code|data|info|name|mail|email|new|old|one|two"
    ),
    "base64": r"[A-Za-z0-9+/]{8,}={0,2}",
    "identifier": r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?",
    "hex_only": r"[0-9a-fA-F]+",
}


@cache
def _rx(name: str) -> re.Pattern:
    return regexes.compile(_VALUE_REGEXES[name])


def _secret_name(name: str) -> bool:
    words = [w for w in _rx("word_split").split(name.replace("\u212a", "K").replace("\u017f", "s")) if w]
    words = [w.casefold() for w in words]
    if not words:
        return False
    last = words[-1]
    if last in _SECRET_WORDS or (len(words) >= 2 and words[-2] + last in _SECRET_WORDS):
        return True
    return last == "key" and len(words) >= 2 and words[-2] in _KEY_OWNERS




def _wordy(value: str) -> bool:
    """Mostly example words (``SecurePass123!``): written by a person as an example, not random."""
    covered = [False] * len(value)
    for m in _rx("example_words").finditer(value.lower()):
        if len(m.group()) >= 4 or not (value[m.start() - 1: m.start()].isalpha()
                                       or value[m.end(): m.end() + 1].islower()):
            for i in range(m.start(), m.end()):
                covered[i] = True
    if sum(covered) * 10 >= len(value) * 4:
        return True
    if len(value) % 4 == 0 and _rx("base64").fullmatch(value):  # base64 of an example ("password-1234")
        import base64
        import binascii

        try:
            decoded = base64.b64decode(value, validate=True).decode("ascii")
        except (binascii.Error, UnicodeDecodeError):
            return False
        return decoded.isprintable() and _wordy(decoded)
    return False


_COMMON_PASSWORDS = frozenset({
    "password", "passwd", "pass", "secret", "changeme", "postgres", "postgresql", "root", "admin", "guest",
    "test", "user", "mysql", "redis", "mongo", "default", "pwd", "letmein", "qwerty", "token", "apikey",
})


def _random_looking(value: str, *, min_len: int, hex_entropy: float, entropy: float) -> bool:
    if len(value) < min_len or not _has(value, letter=True, digit=True) or _wordy(value):
        return False
    core = value.replace("-", "")  # a UUID is judged as the hex it is
    if core and _rx("hex_only").fullmatch(core):
        return _entropy(core) >= hex_entropy
    return _entropy(value) >= entropy


def _assignment_ok(name: str, quoted: str | None, bare: str | None) -> bool:
    """A secret-looking name assigned a random-looking value.

    The name's last word must name a secret (:data:`_SECRET_WORDS`, or ``key`` after
    ``api``/``access``/``secret``/...).  A quoted value of 20 or more characters needs an
    ASCII letter and digit (the reference rule); a shorter quoted value (12 or more) or
    an unquoted one (16 or more) must also look random (Shannon entropy at least 3.0
    bits per character for hex, 3.3 otherwise) and not be an identifier (a dotted name
    or a call such as ``os.environ.get``, an ``ENV_VAR_NAME``).
    """
    if not _secret_name(name):
        return False
    if quoted is not None:
        if len(quoted) >= 20 and _has(quoted, letter=True, digit=True) and "/" not in quoted[:1]:
            return _entropy(quoted) >= 2.5 and not _wordy(quoted)
        return _random_looking(quoted, min_len=12, hex_entropy=3.0, entropy=3.3) and not _identifier(quoted)
    return bare is not None and _random_looking(bare, min_len=16, hex_entropy=3.0, entropy=3.3) \
        and not _identifier(bare)


def _identifier(value: str) -> bool:
    """A name from code rather than a value: ``os.environ.get``, ``MY_API_KEY_2``, ``config.v2.token``."""
    if _rx("hex_only").fullmatch(value):
        return False
    if "." in value and _rx("identifier").fullmatch(value):
        return True
    return "_" in value and (value.isupper() or value.islower()) and _rx("identifier").fullmatch(value) is not None \
        and _entropy(value) < 4.0


def _url_password_ok(user: str, password: str) -> bool:
    if password == user or password.casefold() in _COMMON_PASSWORDS or password.startswith("$"):
        return False
    return len(password) >= 8 and _has(password, letter=True, digit=True) and _entropy(password) >= 2.5 \
        and not _wordy(password)


def _aws_secret_ok(value: str) -> bool:
    if not _has(value, lower=True, upper=True, digit=True) or _rx("hex_only").fullmatch(value):
        return False
    if value.count("/") > 6 or _wordy(value):
        return False  # a path, or words
    return _entropy(value) >= 4.3


def _basic_ok(value: str) -> bool:
    """``value`` is base64 of ``user:password`` with a password that is not a stand-in."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    user, sep, password = decoded.partition(":")
    if not sep or not decoded.isprintable() or is_placeholder(password):
        return False
    return len(password) >= 6 and not _wordy(password) and password.casefold() not in _COMMON_PASSWORDS \
        and password != user


def _value_span(m, rule: Rule) -> tuple[int, int] | None:
    """(start, end) of the secret value of match ``m``, or None when the rule's check rejects it."""
    check = rule.check
    if check == "entropy" and rule.kind == GENERIC_KIND:
        name, quoted, bare = m.group(1), m.group(2), m.group(3)
        if not _assignment_ok(name, quoted, bare):
            return None
        group = 2 if quoted is not None else 3
        return m.start(group), m.end(group)
    if check == "url":
        if not _url_password_ok(m.group(1), m.group(2)):
            return None
        return m.start(2), m.end(2)
    groups = m.re.groups
    group = 0
    for g in range(1, groups + 1):
        if m.start(g) != -1:
            group = g
            break
    start, end = m.start(group), m.end(group)
    value = m.string[start:end]
    if check == "letter+digit" and not _has(value, letter=True, digit=True):
        return None
    if check == "mixed" and not _has(value, lower=True, upper=True, digit=True):
        return None
    if check == "entropy" and (value.startswith("eyJ")  # a JSON web token: the jwt rule judges it
                               or not _random_looking(value, min_len=20, hex_entropy=3.0, entropy=3.5)):
        return None
    if check == "aws-secret" and not _aws_secret_ok(value):
        return None
    if check == "basic" and not _basic_ok(value):
        return None
    return start, end


# --- scanning ---------------------------------------------------------------------------


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _locate(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset``."""
    index = bisect_right(starts, offset) - 1
    return index + 1, offset - starts[index] + 1


def _line_text(text: str, starts: list[int], line: int) -> str:
    begin = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(text)
    return text[begin:end]


# The needle test of each rule is a substring search of the whole text, one per needle: on the
# corpus of real skills (16 MB of text) that was half of the scan.  Past NEEDLE_SETS.after characters
# in one process (64 KiB: the substring tests of that much text, about 14 ms, cost about twice what
# importing RE2 and compiling the sets cost, about 6 ms, and a hook over the 27 skills of
# examples/acme, 41 KB, stays below it), every needle is looked for in one pass instead: an RE2 set (a
# DFA that reads the text's UTF-8 bytes once) of the plain needles as literals, of the case-folded
# needles and of the rules' prefilters (Rule.prefilter), so the regex of a rule whose needle is in
# most texts (":", ".", "key") or that has none runs only where a match can be.  It answers the same question as the
# substring tests, which needles the text holds, for the rules without a prefilter (a rule with one is called
# for by its prefilter alone: _set_entries).  A hook that scans a few files never pays for
# importing RE2 and building the sets; validate, which scans a whole catalog, uses them from its
# first text on (it opens NEEDLE_SETS: :mod:`skillsift.bytesets`).
#
# A case-folded needle is in ``text.casefold()`` where the text holds it letter by letter in either
# case (the long s and the Kelvin sign fold to "s" and "k": _fold_bytes), unless the text holds one
# of the characters whose folding is longer than one character and holds an ASCII letter (``ß`` is
# "ss", ``ﬁ`` is "fi"): the set reports those too, and a text holding one has its folded needles
# looked for in its case folding, as before.
NEEDLE_SETS = SetGate()
#: The characters whose case folding is more than one character and holds an ASCII character
#: (tests/secrets/test_needle_set.py derives them from every code point).
_LONG_FOLDS = "\u00df\u0130\u0149\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"


#: The rules whose prefilter goes in the second set: each counts 27 or more characters through runs of
#: letters and digits (telegram-bot-token's counts from a run of digits and a ":"), and with the needles in
#: one automaton they multiply its states (on the corpus of real skills, a pass three times as slow).
_SECOND_SET = frozenset({"aws-secret-key", "mailchimp-api-key", "discord-bot-token"})


def _set_entries() -> tuple[list[tuple[str, str, str]], ...]:
    """The entries of the needle sets, each ``(what, name, RE2 expression over UTF-8 bytes)``: ``what`` is
    ``plain`` or ``folded`` (a needle), ``prefilter`` (a rule's kind) or ``long-fold``.

    Two sets: a prefilter that counts through runs of letters and digits (:data:`_SECOND_SET`,
    ``[A-Za-z0-9/+]{40}``) goes in a set of its own kind, as the two kinds of automaton together
    multiply their states (a slower pass than two).

    The needles of a rule with a prefilter are not in the sets: its prefilter alone calls for it.  Each
    such prefilter holds one of its rule's needles but the generic rule's (its words ``word``, ``wd`` and
    ``phrase`` hold none), whose findings all hold one (:func:`_secret_name`), so where only its prefilter
    is found it runs and finds nothing.  Those needles were the ones in most texts (``:``, ``.``, ``key``,
    ``gh``, ``SK``...): on the corpus of real skills, a first pass a fifth faster, cold or warm."""
    first: list[tuple[str, str, str]] = []
    needled = [rule for rule in PATTERNS if not rule.prefilter]  # (a prefilter alone calls for its rule)
    for needle in sorted({n for rule in needled if not rule.folded for n in rule.needles}):
        first.append(("plain", needle, re.escape(needle)))
    for needle in sorted({n for rule in needled if rule.folded for n in rule.needles}):
        first.append(("folded", needle, _fold_bytes(needle)))
    first.append(("long-fold", "", "(?:" + "|".join(
        "".join(f"\\x{b:02x}" for b in ch.encode("utf-8")) for ch in _LONG_FOLDS) + ")"))
    second: list[tuple[str, str, str]] = []
    for rule in PATTERNS:
        if rule.prefilter:
            (second if rule.kind in _SECOND_SET else first).append(("prefilter", rule.kind, rule.prefilter))
    return first, second


@lru_cache(maxsize=1)
def _needle_sets():
    """((set, entries), ...) for the entries of :func:`_set_entries`, compiled."""
    return tuple((byte_set([expression.encode("ascii") for _what, _name, expression in entries]), entries)
                 for entries in _set_entries())


def _set_held(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(plain needles, case-folded needles, kinds whose prefilter matches) of ``text``, by the sets.

    Texts that hold the same entries get the same answer: it is made once per set of entries found
    (:data:`_HELD`; on the corpus of real skills, 59 answers for 4,391 readings), and its
    frozensets, whose hashes are kept, make :func:`_candidates` a lookup.  A text holding one of the
    long foldings has its folded needles looked for in its case folding, as before."""
    data = _utf8(text)
    (first, entries), (second, _entries) = _needle_sets()
    found = first.Match(data)
    more = second.Match(data)
    key = (frozenset(found) if found else _NOTHING, frozenset(more) if more else _NOTHING)
    held = _HELD.get(key)
    if held is None:
        held = _held_entries(key)
        if len(_HELD) < 4096:  # (bounded: a few hundred on a catalog of real skills)
            _HELD[key] = held
    if _long_fold() in key[0]:
        haystack = text.casefold()
        return held[0], frozenset(n for n in _rule_index()[1] if n in haystack), held[2]
    return held


_NOTHING: frozenset[int] = frozenset()
#: :func:`_set_held`'s answer for each pair of entry numbers found (by the first set, by the second).
_HELD: dict[tuple[frozenset[int], frozenset[int]], tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}


def _held_entries(key: tuple[frozenset[int], frozenset[int]]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(plain needles, case-folded needles, kinds whose prefilter matches) of the entries ``key`` numbers."""
    held: dict[str, set[str]] = {"plain": set(), "folded": set(), "prefilter": set(), "long-fold": set()}
    for numbers, (_set, entries) in zip(key, _needle_sets(), strict=True):
        for number in numbers:
            what, name, _expression = entries[number]
            held[what].add(name)
    return frozenset(held["plain"]), frozenset(held["folded"]), frozenset(held["prefilter"])


@lru_cache(maxsize=1)
def _long_fold() -> int:
    """The number of the long-fold entry in the first set (see :func:`_set_entries`)."""
    return next(n for n, (what, _name, _expression) in enumerate(_needle_sets()[0][1]) if what == "long-fold")


@lru_cache(maxsize=1)
def _rule_index() -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]], frozenset[int]]:
    """(plain needle -> rule numbers, folded needle -> rule numbers, the rules called for by their
    prefilter alone or with nothing to hold): the needles of the sets (:func:`_set_entries`)."""
    by_needle: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    for n, rule in enumerate(PATTERNS):
        for needle in () if rule.prefilter else rule.needles:
            by_needle[rule.folded].setdefault(needle, []).append(n)
    plain, folded = ({k: tuple(v) for k, v in table.items()} for table in by_needle)
    return plain, folded, frozenset(n for n, rule in enumerate(PATTERNS) if rule.prefilter or not rule.needles)


@lru_cache(maxsize=256)  # (the texts of one file share one reading: scan_many)
def _candidates(plain: frozenset[str], folded: frozenset[str], prefiltered: frozenset[str]) -> tuple[_Compiled, ...]:
    """The built-in rules a text may match: its prefilter found, or one of its needles held (or none to hold)."""
    by_plain, by_folded, needleless = _rule_index()
    numbers = set(needleless)
    for needle in plain:
        numbers.update(by_plain.get(needle, ()))
    for needle in folded:
        numbers.update(by_folded.get(needle, ()))
    compiled = _builtin()
    return tuple(compiled[n] for n in sorted(numbers)
                 if not compiled[n].rule.prefilter or compiled[n].rule.kind in prefiltered)


def _needles_held(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]] | None:
    """(plain needles, case-folded needles, kinds whose prefilter matches) of ``text``, or None:
    test each rule's own needles and run every regex."""
    if not NEEDLE_SETS.count(len(text)):
        return None
    return _set_held(text)


#: The last two texts encoded and their bytes, the last used first (:func:`_utf8`).
_kept_utf8: list[tuple[str, bytes]] = [("", b""), ("", b"")]


def _utf8(text: str) -> bytes:
    """The UTF-8 bytes of ``text`` (a lone surrogate kept), the last two texts' kept: a file's text is
    encoded once for its NUL test (:func:`holds_nul`), the needle sets and the RE2 searches, its
    values' bytes read by the sets in between (:func:`scan_many`)."""
    kept = _kept_utf8
    last = kept[0]
    if last[0] is text:
        return last[1]
    before = kept[1]
    if before[0] is text:
        kept[0], kept[1] = before, last
        return before[1]
    kept[1], kept[0] = last, (text, text.encode("utf-8", "surrogatepass"))
    return kept[0][1]


def holds_nul(text: str) -> bool:
    """``"\\0" in text`` (a binary file).  Past the first 64 KiB a process scans, where the needle sets
    read each text's UTF-8 bytes, it is asked of those bytes (kept for the sets: :func:`_utf8`), where
    the C library's ``memchr`` finds a NUL: Python looks for it in a text of two-byte characters
    one character at a time, and on the corpus of real skills that was a twentieth of the scan.
    UTF-8 writes U+0000 as the byte 0 and no other character with one."""
    if not NEEDLE_SETS.on:
        return "\0" in text
    return b"\0" in _utf8(text)


_UNSET = object()


def _matches(text: str, extra_patterns, *, placeholders: bool = False,
             held=_UNSET) -> list[tuple[int, int, _Compiled]]:
    """(start, end, pattern) of every secret value in ``text``; placeholders only on request.

    ``held``: :func:`_needles_held` of a text holding ``text`` (the needles and prefilters of a longer
    text are a superset of its own: a rule that runs for nothing finds nothing), else of ``text``.
    """
    claimed: list[tuple[int, int]] = []
    found: list[tuple[int, int, _Compiled]] = []
    folded = None
    if held is _UNSET:
        held = _needles_held(text)
    patterns = _patterns(extra_patterns)
    if held is not None:  # only the rules whose needles and prefilter the text holds, in table order
        patterns = _candidates(*held) + patterns[len(PATTERNS):]
    for pattern in patterns:
        rule = pattern.rule
        if held is None and rule.needles:
            if rule.folded:
                if folded is None:
                    folded = text.casefold()
                haystack = folded
            else:
                haystack = text
            if not any(needle in haystack for needle in rule.needles):
                continue
        for m in pattern.finditer(text):
            if pattern.configured:
                group = 1 if pattern.regex.groups >= 1 and m.start(1) != -1 else 0
                span: tuple[int, int] | None = (m.start(group), m.end(group))
            else:
                span = _value_span(m, rule)
            if span is None:
                continue
            start, end = span
            if start == end or any(start < c_end and c_start < end for c_start, c_end in claimed):
                continue
            claimed.append((start, end))  # a placeholder also claims its characters
            if not placeholders and is_placeholder(text[start:end], text[end : end + 16].lstrip()[:3],
                                                   elidable=rule.elidable):
                continue
            found.append((start, end, pattern))
    return sorted(found, key=lambda f: (f[0], f[1]))


def _cached_matches(text: str, extra_patterns, cache, held=_UNSET) -> list[tuple[int, int, _Compiled]]:
    """:func:`_matches` through ``cache`` (a :class:`skillsift.cache.secret_scans.ScanCache`)."""
    patterns = _patterns(extra_patterns)
    key = cache.key(text, tuple((str(name), str(src)) for name, src in extra_patterns))
    spans = cache.get(key, len(text), len(patterns))
    if spans is not None:
        return [(start, end, patterns[number]) for start, end, number in spans]
    found = _matches(text, extra_patterns, held=held.get() if isinstance(held, _HeldPart) else held)
    number = {id(pattern): n for n, pattern in enumerate(patterns)} if found else {}  # (most texts hold none)
    cache.put(key, [(start, end, number[id(pattern)]) for start, end, pattern in found])
    return found


def scan_values(text: str, extra_patterns=(), cache=None) -> list[tuple[SecretFinding, str]]:
    """(finding, matched value) for every secret in ``text``, in text order (see :func:`scan_text`).

    ``cache``: a :class:`skillsift.cache.secret_scans.ScanCache` that remembers where the rules
    matched texts seen before (validate passes one; the findings are the same).
    """
    return _values(text, extra_patterns, cache, _UNSET)


def scan_many(texts, extra_patterns=(), cache=None) -> list[list[tuple[SecretFinding, str]]]:
    """:func:`scan_values` of each of ``texts``, in order, the needles and prefilters read twice: in the
    first text (a file) and in the others together (a SKILL.md's values, a few hundred characters).
    A rule a text's reading does not call for finds nothing in it, and the values' reading holds each
    value's needles, so the findings are the same; on the corpus of real skills a file calls for a
    rule in a fifth of the files, its values in one file of a hundred.  The texts are not joined
    into one (a copy of the file's text and of its bytes), and the file is not scanned for the rules
    only its values call for."""
    texts = list(texts)
    if len(texts) < 2:
        return [_values(text, extra_patterns, cache, _UNSET) for text in texts]
    if cache is not None:
        later = _HeldLater(texts)  # a warm cache answers every text: no reading at all
        return [_values(text, extra_patterns, cache, _HeldPart(later, number > 0))
                for number, text in enumerate(texts)]
    rest = _needles_held("\0".join(texts[1:]))
    held = _needles_held(texts[0])
    if held is not None and rest is not None and not extra_patterns \
            and not _candidates(*held) and not _candidates(*rest):
        return [[] for _text in texts]  # no rule to run on any of them (most files)
    return [_values(texts[0], extra_patterns, cache, held)] \
        + [_values(text, extra_patterns, cache, rest) for text in texts[1:]]


class _HeldLater:
    """The needles of a file and of its values (:func:`scan_many`), read at the first of its texts the
    scan cache does not answer."""

    __slots__ = ("texts", "value")

    def __init__(self, texts: list[str]):
        self.texts = texts
        self.value: tuple | None = None

    def get(self, values: bool):
        if self.value is None:
            self.value = (_needles_held(self.texts[0]), _needles_held("\0".join(self.texts[1:])))
        return self.value[values]


class _HeldPart:
    """One text's share of a :class:`_HeldLater`: the file's reading, or its values'."""

    __slots__ = ("later", "values")

    def __init__(self, later: _HeldLater, values: bool):
        self.later, self.values = later, values

    def get(self):
        return self.later.get(self.values)


def _values(text: str, extra_patterns, cache, held) -> list[tuple[SecretFinding, str]]:
    if not text:
        return []
    if cache is None:
        found = _matches(text, extra_patterns, held=held)
    else:
        found = _cached_matches(text, extra_patterns, cache, held)
    if not found:
        return []
    starts = _line_starts(text)
    out = []
    for start, end, pattern in found:
        line, column = _locate(starts, start)
        allowed = ALLOW_MARKER in _line_text(text, starts, line)
        value = text[start:end]
        out.append((SecretFinding(kind=pattern.kind, label=pattern.label, line=line, column=column,
                                  masked=mask(value), allowed=allowed), value))
    return out


def scan_text(text: str, extra_patterns=()) -> list[SecretFinding]:
    """Every secret in ``text``, in text order.

    ``extra_patterns`` are ``(name, regex)`` pairs (RE2 syntax) checked after the
    built-in rules; a pattern with a group reports its first group as the secret.  The
    whole text is matched at once (a ``password:`` and its value may sit on two lines);
    line and column point at the secret value.  Raises ``ValueError`` naming the
    pattern when a configured regex does not compile.
    """
    return [finding for finding, _value in scan_values(text, extra_patterns)]


def redact(text: str, values=(), extra_patterns=()) -> str:
    """``text`` with every secret replaced by its mask and each of ``values`` by ``****``.

    For text skillsift did not write (a command's stderr, an error from elsewhere) that
    may be shown to the user.  Erring on the safe side, anything shaped like a secret is
    masked, placeholders included.  ``values`` are known sensitive strings (the values of
    passed environment variables); those shorter than 4 characters are left alone.
    """
    if not text:
        return text
    for value in sorted({v for v in values if v and len(v) >= 4}, key=len, reverse=True):
        text = text.replace(value, "****")
    pieces, last = [], 0
    for start, end, _pattern in _matches(text, extra_patterns, placeholders=True):
        pieces.append(text[last:start])
        pieces.append(mask(text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def detect_secret(text: str, extra_patterns=()) -> str | None:
    """The kind of the first secret in ``text`` that is not allowed, else None."""
    for finding in scan_text(text, extra_patterns):
        if not finding.allowed:
            return finding.kind
    return None


if TYPE_CHECKING:
    _Name = TypeVar("_Name", bound=Hashable)


def withhold(texts_by_name: Mapping[_Name, str] | Iterable[tuple[_Name, str]],
             extra_patterns=()) -> tuple[dict[_Name, str], list[tuple[_Name, str]]]:
    """Split the texts an index build would send into (allowed, withheld).

    ``texts_by_name`` maps skill name to its embedded text (any ordered mapping or an
    iterable of pairs).  ``allowed`` keeps the input order; ``withheld`` lists
    ``(name, kind)`` for every text holding a secret, in input order.  The caller
    emits one AR9D3 warning per withheld skill and never sends its text.
    """
    items = texts_by_name.items() if hasattr(texts_by_name, "items") else texts_by_name
    allowed: dict[_Name, str] = {}
    withheld: list[tuple[_Name, str]] = []
    for name, text in items:
        kind = detect_secret(text, extra_patterns)
        if kind is None:
            allowed[name] = text
        else:
            withheld.append((name, kind))
    return allowed, withheld
