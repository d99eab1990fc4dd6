"""Ranking: tokenizer, BM25F, vector search, fusion and the exact-id pin."""
