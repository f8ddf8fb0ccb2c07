"""The top layer: the only modules that hold collaborators no lower layer may hold together."""

from redstring.composition.build_graph import GraphBuildReport, MergeSummary, build_graph
from redstring.composition.rebuild import rebuild_stores
from redstring.composition.undo import undo_merge
from redstring.extraction.domains import AUTO, AutoDomain

__all__ = [
    "AUTO",
    "AutoDomain",
    "GraphBuildReport",
    "MergeSummary",
    "build_graph",
    "rebuild_stores",
    "undo_merge",
]
