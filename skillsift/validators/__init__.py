"""The engine the checks run on: the workspace, the runner, the declarations' generator and suppressions.

The check modules are :mod:`skillsift.checks`, each declaring its checks (``check(...)``).

The registry of the checks (codes, names, severities, scopes, triggers, presets) is data generated
from those declarations into :mod:`skillsift.config.check_table` and read by
:mod:`skillsift.config.checks`, below this layer, so that the config and the renderers read it
without importing a check; it is re-exported here.  :mod:`.runner` runs the checks over a
:class:`~skillsift.validators.workspace.Workspace`.
"""

from __future__ import annotations

from ..config.checks import BY_CODE as BY_CODE
from ..config.checks import CHECKS as CHECKS
from ..config.checks import CODES as CODES
from ..config.checks import OPT_IN as OPT_IN
from ..config.checks import SEVERITY_CHOICES as SEVERITY_CHOICES
from ..config.checks import Check as Check
from ..config.checks import expand_codes as expand_codes
from ..config.checks import get as get
