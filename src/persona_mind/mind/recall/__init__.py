"""Recall: the lexical index (BM25 over stemmed text and tags), the semantic ranker port,
hybrid fusion, excerpts and the per-store index cache.
"""
