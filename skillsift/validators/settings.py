"""The ``[validate]`` settings now live in :mod:`skillsift.config.validate`; this name stays for imports."""

from ..config.schema import read_settings  # noqa: F401
from ..config.validate import (  # noqa: F401
    DEFAULT_CASES,
    DEFAULT_DESCRIPTION_LIMITS,
    DEFAULT_NEAR_DUPLICATE,
    DEFAULT_NEAR_DUPLICATE_COSINE,
    DEFAULT_SECRETS_BASELINE,
    SEVERITIES,
    ValidateSettings,
)
