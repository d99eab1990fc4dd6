"""The ranking's specification: small pure functions every fast path of the ranker must equal.

- :mod:`~skillsift.ranker.model.bm25f`: the BM25F points of a term in a document;
- :mod:`~skillsift.ranker.model.fusion`: the fusions of the lexical and vector lists, ``blend``
  (the one named reference of skillsift's own fusion, over complete lists) and ``zscore``;
- :mod:`~skillsift.ranker.model.pin`: the exact-id pin;
- :mod:`~skillsift.ranker.model.lift`: how known requests lift a skill's similarity.

The modules beside this package (screens, block maxima, the postings cache, the blend's fast
paths, the screened known-request read) compute the same results with less work; one
differential test module, tests/ranker/test_fusion_differential.py, holds each of them equal to
these definitions on random and real data (docs/ranking-speed.md).
"""
