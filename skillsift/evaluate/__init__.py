"""Evaluation of the ranking against labelled queries (``skillsift eval``).

The modules are layered so that the logic stays pure and testable:

* :mod:`.cases` reads and checks a cases file (strict YAML, every problem with its line; the
  parser is :mod:`skillsift.casefile`, which the ranker's examples files share);
* :mod:`.metrics` scores one case and aggregates many;
* :mod:`.intervals` computes the bootstrap intervals and paired differences;
* :mod:`.calibrate` proposes a ``vector_min_sim`` from the cosines of the cases;
* :mod:`.gates` parses ``--min``, loads baselines, compares flips and lists failed gates;
* :mod:`.run` runs the cases through a ranker, once per mode, and assembles the result;
* :mod:`.whynot` explains the misses of a result and checks trigger proposals (``--why``);
* :mod:`.outcomes`, :mod:`.compare` and :mod:`.verdict` reduce two results (a pull request's
  base and head) to per-case outcomes, compare them and decide the ``skillsift ci`` verdict
  (pure; the ``ci`` door and the pull-request report share them);
* :mod:`skillsift.render.evaluation` renders a result as text, JSON, JUnit XML or Markdown.
"""

from ..casefile import CASES_INVALID  # noqa: F401  (re-exported)

EVAL_REGRESSION = "AR9D4"
SCHEMA_VERSION = 1
