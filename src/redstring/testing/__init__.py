"""Compliance suites: one per port, for any adapter to be pointed at.

Written only against `redstring.ports` and `redstring.domain`. An adapter
passes by subclassing the suite and providing a factory fixture; see each
suite's docstring.
"""
