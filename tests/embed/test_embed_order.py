"""Length-sorted batching: the order texts are sent in, the local model's token budget, and
that neither changes a vector or the order results come back in."""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.catalog.skill import Skill
from skillsift.embed import local
from skillsift.embed.base import ProviderUnavailable
from skillsift.embed.order import length_order
from skillsift.index.build import build_index, plan_build
from tests.support.concept_embedder import ConceptEmbedder, refund_catalog

EXTRA_REASON = "skillsift[embed] is not installed"


class CountingEmbedder(ConceptEmbedder):
    """The concept embedder that pads its batches: it counts tokens and records each call."""

    def __init__(self):
        super().__init__()
        self.calls_seen: list[list[str]] = []

    def count_tokens(self, texts):
        return [len(t.split()) for t in texts]

    def embed(self, texts):
        self.calls_seen.append(list(texts))
        return super().embed(texts)


def test_length_order_sorts_by_token_count_stably_and_leaves_other_providers_alone():
    counting = CountingEmbedder()
    texts = ["a b c", "a", "a b", "x", "p q r"]
    assert length_order(counting, texts) == [1, 3, 2, 0, 4]
    assert length_order(ConceptEmbedder(), texts) == [0, 1, 2, 3, 4]
    assert length_order(counting, []) == []


def test_length_order_falls_back_to_input_order_when_counting_fails():
    class Broken(CountingEmbedder):
        def count_tokens(self, texts):
            raise ProviderUnavailable("no model")

    assert length_order(Broken(), ["a b", "a"]) == [0, 1]


def test_batch_plan_closes_a_batch_at_the_token_budget():
    assert local.batch_plan([10] * 100, 64, token_budget=1024) == [list(range(64)), list(range(64, 100))]
    assert local.batch_plan([100] * 25, 64, token_budget=1024) == [list(range(10)), list(range(10, 20)),
                                                                    list(range(20, 25))]
    # Longer than the budget: alone.  Sorted shortest first, ties in input order.
    assert local.batch_plan([300, 5, 300, 5], 64, token_budget=256) == [[1, 3], [0], [2]]
    plan = local.batch_plan([7, 250, 3, 90, 90, 12] * 40, 64)
    assert sorted(i for batch in plan for i in batch) == list(range(240))
    for batch in plan:
        lengths = [[7, 250, 3, 90, 90, 12][i % 6] for i in batch]
        assert len(batch) <= 64 and (len(batch) == 1 or len(batch) * max(lengths) <= local.TOKEN_BUDGET)


def test_a_build_sends_texts_shortest_first_and_keeps_catalog_order():
    skills = refund_catalog()
    counting = CountingEmbedder()
    plan = plan_build(skills, None, provider=counting)
    result = build_index(plan, counting, batch_size=2)
    sent = [t for call in counting.calls_seen for t in call]
    lengths = [len(t.split()) for t in sent]
    assert lengths == sorted(lengths) and len(sent) == len(plan.to_embed)
    plain = build_index(plan_build(skills, None, provider=ConceptEmbedder()), ConceptEmbedder(), batch_size=2)
    assert [i.id for i in result.index.items] == [i.id for i in plain.index.items]
    assert result.embedded == plain.embedded == [item.id for item in plan.to_embed]
    assert result.index.matrix.tobytes() == plain.index.matrix.tobytes()


def _texts() -> list[str]:
    base = [
        "git",
        "Write conventional commit messages from staged changes",
        "name: pdf\ndescription: Extract text and tables from PDF files\ntriggers: read a pdf; ocr",
        "word " * 400,
        "Résumé parsing for job applications, with naïve heuristics",
        "deploy " * 60,
        "refund a customer's duplicate charge " * 8,
    ]
    return [f"{text} {n}" for n in range(12) for text in base]


def test_local_vectors_are_byte_identical_whatever_the_batching(provider):
    texts = _texts()
    together = provider.embed(texts)
    alone = np.stack([provider.embed([t])[0] for t in texts])
    assert together.tobytes() == alone.tobytes()
    tight = local.LocalProvider(max_batch=3)
    assert tight.embed(texts).tobytes() == together.tobytes()
    reversed_rows = provider.embed(texts[::-1])[::-1]
    assert reversed_rows.tobytes() == together.tobytes()


def test_a_local_build_stores_the_vectors_of_texts_embedded_one_by_one(provider):
    skills = [Skill(name=f"skill-{n:02d}", description=text)
              for n, text in enumerate(_texts()[:30])]
    plan = plan_build(skills, None, provider=provider)
    result = build_index(plan, provider, batch_size=8)
    assert [i.id for i in result.index.items] == [s.name for s in skills]
    expected = np.stack([provider.embed([item.text])[0] for item in plan.to_embed])
    assert np.asarray(result.index.matrix, dtype=np.float32).tobytes() == expected.tobytes()


def _run_python(code: str) -> str:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_loading_the_local_model_gives_numpy_blas_one_thread(provider):
    pytest.importorskip("threadpoolctl", reason=EXTRA_REASON)
    out = _run_python(
        "import numpy, threadpoolctl\n"
        "from skillsift.embed import local\n"
        "local.LocalProvider().load()\n"
        "print(sorted({i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas'}))\n"
    )
    assert out in ("[1]", "[]")  # [] only where numpy has no threaded BLAS at all


def test_without_threadpoolctl_the_model_still_loads(provider):
    out = _run_python(
        "import sys\n"
        "sys.modules['threadpoolctl'] = None\n"
        "from skillsift.embed import local\n"
        "p = local.LocalProvider()\n"
        "print(p.embed(['deploy']).shape, local.limit_blas_threads())\n"
    )
    assert out == "(1, 384) False"
