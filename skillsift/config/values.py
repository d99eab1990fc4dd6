"""The allowed values of the configuration, written once: every module that lists them imports them here."""

from __future__ import annotations

from ..catalog.embedtext import DEFAULT_EMBED_FIELDS as DEFAULT_EMBED_FIELDS  # the embedded fields by default

MODES = ("lexical", "hybrid", "vector")
MODE_WORDS = "lexical, hybrid or vector"
FUSIONS = ("auto", "rrf", "weighted", "blend", "zscore", "zscore-mnz")
DTYPES = ("float32", "float16")
LONG_QUERIES = ("max-piece", "truncate")  # how a query longer than the model's window is embedded
PROVIDERS = ("local", "openai", "command")
JUDGE_CACHES = ("repository", "user", "off")  # where the judge's answers are kept (docs/judge.md)
CODE = "AR9D0"
SEVERITIES = ("error", "warning", "note", "off")  # [validate.severity]
MAX_FLIPS_LIMIT = 100_000  # docs/configuration.md, "Numbers"
DESCRIPTION_LIMIT_MAX = 1_000_000

DEFAULT_FIELDS = ("name", "triggers", "keywords", "description")  # the fields that can be embedded
# the weight of a skill's best known-request cosine (docs/ranking-quality.md, "Known requests")
DEFAULT_EXAMPLE_WEIGHT = 0.6
# the zscore-mnz fusion (docs/ranking-quality.md, "Fusion channels"): the bonus of a candidate in both lists'
# first MNZ_DEPTH, and the weight of the known requests' own lexical channel
DEFAULT_MNZ_BONUS = 0.25
DEFAULT_MNZ_DEPTH = 50
DEFAULT_REQUEST_LEXICAL_WEIGHT = 0.6
DEFAULT_INDEX_DIR = ".skillsift/index"
LOCAL_DIR = ".skillsift/local"

ENV_MODE = "SKILLSIFT_SEARCH_MODE"
ENV_LOG_QUERIES = "SKILLSIFT_LOG_QUERIES"
ENV_ALLOW_NETWORK = "SKILLSIFT_ALLOW_NETWORK"
