"""The ports: `typing.Protocol`s in domain vocabulary, split into capabilities.

A caller depends on the narrowest capability it calls. Ports hold no logic.
"""
