"""The shared store: one index in PostgreSQL (+ pgvector) for a team, beside the local cache.

`docai index --store URL` writes it (`indexer`); every other command reads it (`search`):
the database finds the candidates (BM25 and TF-IDF over an inverted index, nearest
windows over an HNSW index), and docai scores them with the very code the local index
uses (`docai.retrieval.search_index.SearchIndex` over the candidates, with the collection's
statistics), so both stores give the same answers. See docs/team.md.
"""
