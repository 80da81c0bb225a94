"""`python -m bench`: how fast docai builds, reloads, updates and searches its index.

Each phase runs in its own process (`bench.phase`), so peak memory is per phase and no
phase warms a cache for the next one. See `bench/__main__.py` for what is measured.
"""
