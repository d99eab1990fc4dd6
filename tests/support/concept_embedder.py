"""A deterministic 5-dimension test embedder ("concepts-v1", fingerprint ``test@local``).

Words (the text lowercased and split on anything that is not ``a``-``z``) vote for one
concept dimension each, +1 per occurrence:

* dim 0: refund, reimburse, money, back, returned, purchase, customer
* dim 1: deploy, rollout, roll, staging, cluster, service, out
* dim 2: dispute, chargeback, bank, charge
* dim 3: git, branching, pull, request, conventions

every other word (including the template labels ``name``, ``description``...) adds 0.05
to dim 4.  The raw vote vector is what :func:`concept_vector` returns; the provider rows
are L2-normalised (an all-zero vote stays zero).

Two uses:

* in process: :class:`ConceptEmbedder` has the provider attributes skillsift expects
  (``fingerprint``, ``model``, ``dims``, ``networked``, ``external``, ``max_batch``) and
  records every call, with seams to refuse texts or fail with a given error;
* as a ``command`` provider: ``python tests/support/concept_embedder.py [--sleep S] [--log FILE]
  [--reject WORD] [--dims N]`` reads ``{"input": [...]}`` on stdin and prints
  ``{"vectors": [[...], ...]}``.  ``--sleep`` waits before answering (a slow provider),
  ``--log`` appends one JSON line per call (the texts it was given), ``--reject`` exits 3 when a
  text contains WORD, ``--dims`` pads or cuts the vectors (to change the model's width);
  ``--nan WORD`` / ``--short WORD`` / ``--wide WORD``: a batch holding a text that contains
  WORD is answered with a NaN component, one vector too few, or one dimension more (a
  provider that breaks its contract mid-build).

The script part uses the standard library only.
"""

from __future__ import annotations

import json
import math
import re
import sys
import time

FINGERPRINT = "test@local"
MODEL = "concepts-v1"
DIMS = 5
OTHER_WEIGHT = 0.05

CONCEPTS = (
    frozenset({"refund", "reimburse", "money", "back", "returned", "purchase", "customer"}),
    frozenset({"deploy", "rollout", "roll", "staging", "cluster", "service", "out"}),
    frozenset({"dispute", "chargeback", "bank", "charge"}),
    frozenset({"git", "branching", "pull", "request", "conventions"}),
)
_WORD_OF = {word: dim for dim, words in enumerate(CONCEPTS) for word in words}
_SPLIT = re.compile(r"[^a-z]+")


def concept_vector(text: str) -> list[float]:
    """The raw (not normalised) concept votes of ``text``."""
    votes = [0.0] * DIMS
    for word in _SPLIT.split(text.lower()):
        if not word:
            continue
        dim = _WORD_OF.get(word)
        if dim is None:
            votes[DIMS - 1] += OTHER_WEIGHT
        else:
            votes[dim] += 1.0
    return votes


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else list(vector)


class ConceptEmbedder:
    """The concepts-v1 embedder as an in-process provider, recording each call.

    ``reject``: a predicate on one text; a batch holding such a text raises
    ``InputRejected`` (the provider refuses these inputs).  ``fail_at``: ``{call number
    (1-based): exception}``; that call raises the exception instead of answering.
    ``transform``: ``f(rows, texts) -> rows`` applied to the answer (to break it on purpose).
    """

    def __init__(self, *, fingerprint: str = FINGERPRINT, model: str = MODEL, max_batch: int | None = None,
                 networked: bool = False, external: bool = False, reject=None, fail_at=None, transform=None):
        self.fingerprint = fingerprint
        self.model = model
        self.dims = DIMS
        self.max_batch = max_batch
        self.networked = networked
        self.external = external
        self.reject = reject
        self.fail_at = dict(fail_at or {})
        self.transform = transform
        self.calls: list[list[str]] = []

    @property
    def call_sizes(self) -> list[int]:
        return [len(batch) for batch in self.calls]

    @property
    def sent(self) -> list[str]:
        return [text for batch in self.calls for text in batch]

    def embed(self, texts):
        import numpy as np

        from skillsift.embed.base import InputRejected

        texts = list(texts)
        self.calls.append(texts)
        failure = self.fail_at.get(len(self.calls))
        if failure is not None:
            raise failure
        if self.reject is not None:
            for text in texts:
                if self.reject(text):
                    raise InputRejected("HTTP 400: the provider refused an input")
        rows = [unit(concept_vector(text)) for text in texts]
        if self.transform is not None:
            return self.transform(rows, texts)
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), DIMS)


def refund_catalog():
    """The reference's refundCatalog of §10.3 (ids = names, digest ``sha256:<name>``)."""
    from skillsift.catalog.skill import Skill

    return [
        Skill("issue-refund", "Reimburse a customer for a returned purchase", keywords=("reimburse",),
              digest="sha256:issue-refund"),
        Skill("deploy-staging", "Roll a service out to the staging cluster", keywords=("rollout",),
              digest="sha256:deploy-staging"),
        Skill("dispute-charge", "Handle a chargeback dispute from a bank", digest="sha256:dispute-charge"),
        Skill("git-workflow", "Branching and pull request conventions", digest="sha256:git-workflow"),
    ]


def command_argv(*options: str) -> list[str]:
    """The argv that runs this file as a command provider with ``options``."""
    import os

    return [sys.executable, os.path.abspath(__file__), *options]


def user_config(*options: str, extra: str = "") -> str:
    """A user config (TOML) selecting this embedder as the command provider, plus ``extra``."""
    argv = ", ".join(json.dumps(arg) for arg in command_argv(*options))
    return f'[embeddings]\nprovider = "command"\ncommand = [{argv}]\n{extra}'


def _options(argv: list[str]) -> dict:
    opts = {"sleep": 0.0, "log": "", "reject": "", "dims": DIMS, "nan": "", "short": "", "wide": ""}
    args = iter(argv)
    for flag in args:
        key = flag.lstrip("-")
        if key not in opts:
            sys.exit(f"concept_embedder: unknown option {flag}")
        value = next(args, None)
        if value is None:
            sys.exit(f"concept_embedder: {flag} needs a value")
        opts[key] = type(opts[key])(value)
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = _options(sys.argv[1:] if argv is None else argv)
    texts = json.loads(sys.stdin.buffer.read().decode("utf-8"))["input"]
    if opts["log"]:
        with open(opts["log"], "a", encoding="utf-8") as handle:
            handle.write(json.dumps(texts) + "\n")
    if opts["sleep"]:
        time.sleep(opts["sleep"])
    if opts["reject"] and any(opts["reject"] in text for text in texts):
        sys.stderr.write(f"refused: an input mentions {opts['reject']}\n")
        return 3
    width = opts["dims"]
    vectors = []
    for text in texts:
        vector = concept_vector(text)
        vector = (vector + [0.0] * width)[:width]
        if not any(vector):
            vector[0] = 1.0  # the command protocol refuses zero vectors
        vectors.append(vector)

    def hit(word: str) -> bool:
        return bool(word) and any(word in text for text in texts)

    if hit(opts["nan"]):
        vectors[-1][0] = float("nan")
    if hit(opts["short"]):
        vectors = vectors[:-1]
    if hit(opts["wide"]):
        vectors = [vector + [0.5] for vector in vectors]
    sys.stdout.write(json.dumps({"vectors": vectors}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
