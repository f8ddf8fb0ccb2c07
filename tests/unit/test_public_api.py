"""The public surface: the root and its namespaces, exactly the supported names, closed.

The surface is the root package and the namespaces listed in `SURFACE`
(ADR 0166). Each name has one home; only `RedstringError` is also at the root.

The closure rule, checked per namespace: every type named in an exported
signature that is *defined in redstring* must be exported by some namespace,
or a caller who wants to annotate a variable, construct an argument or catch
a result has to import an internal module. Types defined outside redstring
(builtins, `typing`, the standard library such as `UUID` or `Sequence`, and
third-party ones such as pydantic's `JsonValue`) are the caller's to import
from their own home, so they are excluded. A signature is: a function's
parameters and return; for a class, walking its MRO through every class
defined in redstring, its annotated public attributes (pydantic fields), its
`__init__`, and its public methods and properties.

The errors a public callable can raise are covered from the other side:
every exception class any library module defines or imports is in
`redstring.errors`, so whatever a public call raises on purpose can be caught
by a public name.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import redstring

SURFACE: dict[str, set[str]] = {
    "redstring": {
        "Redstring",
        "AsyncRedstring",
        "index_documents",
        "build_graph",
        "Retriever",
        "ChunkRetriever",
        "SourceDocument",
        "StoredChunk",
        "TextSpan",
        "Entity",
        "Relationship",
        "RetrievalMode",
        "SearchRequest",
        "RetrievalResult",
        "ScoredEntity",
        "ChunkRetrievalResult",
        "ScoredChunk",
        "ChunkMatch",
        "TenantId",
        "EntityId",
        "RelationshipId",
        "ChunkId",
        "tenant_id_for",
        "new_tenant_id",
        "entity_id_for",
        "relationship_id_for",
        "chunk_id_for",
        "sample_docs",
        "RedstringError",
    },
    "redstring.answers": {
        "EntityAnswer",
        "EntityDetail",
        "EntityHit",
        "EntitySearchAnswer",
        "Neighbour",
        "PassageHit",
        "PassageSearchAnswer",
        "StatsAnswer",
        "TenantCatalogue",
        "TenantStats",
    },
    "redstring.building": {
        "AUTO",
        "AutoDomain",
        "ChunkFailure",
        "DomainSchema",
        "GraphBuildReport",
        "IndexProgressCallback",
        "IndexReport",
        "MergeSummary",
        "SkippedFile",
        "SlidingWindowChunker",
    },
    "redstring.fusion": {
        "ENTITY_CONFIDENCE",
        "PASSAGE_CONFIDENCE",
        "SUGGESTED_MIN_CONFIDENCE",
        "ChannelCalibration",
        "ConfidenceCalibration",
        "ConvexFusion",
        "EvidenceFusion",
        "FusionStrategy",
        "NormalizedQuery",
        "PooledEvidenceFusion",
        "ReciprocalRankFusion",
        "WordCover",
    },
    "redstring.stores": {
        "ApproximateVectorStore",
        "CacheBudget",
        "CheckReport",
        "DamagedRow",
        "InMemoryChunkStore",
        "InMemoryEventLog",
        "InMemoryGraphStore",
        "InMemoryVectorStore",
        "SqliteChunkStore",
        "SqliteDatabase",
        "SqliteEventLog",
        "SqliteGraphStore",
        "SqliteStores",
        "SqliteVectorStore",
        "StaleNameIndex",
        "StoreOpener",
        "StoreSet",
        "open_sqlite",
        "PgVectorStore",
        "PostgresChunkStore",
        "PostgresDatabase",
        "PostgresEventLog",
        "PostgresGraphStore",
        "PostgresStores",
        "open_postgres",
        "RebuildReport",
        "RekeyReport",
        "Schema",
        "catch_up_stores",
        "rebuild_stores",
        "rekey_graph",
        "undo_merge",
    },
    "redstring.providers": {
        "EngineFiles",
        "FakeEmbeddingProvider",
        "FakeLlmProvider",
        "LocalEmbeddingProvider",
        "ModelFiles",
        "MultilingualEmbeddingProvider",
        "OpenAICompatibleEmbeddingProvider",
        "OpenAICompatibleLlmProvider",
        "Refusal",
    },
    "redstring.ports": {
        "Analyzer",
        "BlockingIndex",
        "BlockingIndexMaintenance",
        "AnswerMemory",
        "CheckedLlmProvider",
        "ChunkModels",
        "ChunkPurge",
        "ChunkReader",
        "ChunkStore",
        "ChunkSummary",
        "ChunkWriter",
        "CorpusStats",
        "DocumentChunked",
        "DocumentExtracted",
        "EmbeddingProvider",
        "EntitiesEmbedded",
        "EntitiesMerged",
        "EntitiesRetired",
        "Event",
        "EventLog",
        "GraphPurge",
        "GraphReader",
        "GraphStore",
        "GraphSummary",
        "GraphWriter",
        "LexicalCandidate",
        "ChunkManifest",
        "LexicalCandidates",
        "LexicalChunkSource",
        "LlmProvider",
        "MergeUndone",
        "SemanticChunkSource",
        "ServedLlmProvider",
        "SharedTransaction",
        "VectorMatch",
        "VectorModels",
        "VectorPurge",
        "VectorRecord",
        "VectorSearcher",
        "VectorStore",
        "VectorWriter",
    },
    "redstring.testing": {
        "ChunkStoreCompliance",
        "EmbeddingProviderCompliance",
        "EventLogCompliance",
        "GraphStoreCompliance",
        "VectorStoreCompliance",
    },
    # The tree itself (drawn in its docstring) is checked in test_errors_namespace.py.
    "redstring.errors": set(importlib.import_module("redstring.errors").__all__),
}

#: Names at the root that also have a home namespace (the tree's root).
ALSO_AT_ROOT = {"RedstringError"}

SRC = Path(redstring.__file__).parent


def namespace(name: str) -> types.ModuleType:
    return importlib.import_module(name)


def exported(name: str) -> Iterator[object]:
    module = namespace(name)
    for attribute in module.__all__:
        yield getattr(module, attribute)


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_each_namespace_exports_exactly_its_supported_names(name: str) -> None:
    module = namespace(name)
    assert set(module.__all__) == SURFACE[name]
    assert len(module.__all__) == len(SURFACE[name])  # no name listed twice


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_exported_name_resolves(name: str) -> None:
    module = namespace(name)
    assert [n for n in module.__all__ if not hasattr(module, n)] == []


def test_the_namespaces_are_attributes_of_the_root() -> None:
    for name in SURFACE.keys() - {"redstring", "redstring.testing"}:
        assert getattr(redstring, name.removeprefix("redstring.")) is namespace(name)


def test_each_name_has_one_home() -> None:
    homes: dict[str, list[str]] = {}
    for name, names in SURFACE.items():
        for attribute in names:
            homes.setdefault(attribute, []).append(name)
    shared = {attribute for attribute, where in homes.items() if len(where) > 1}
    assert shared == ALSO_AT_ROOT
    assert redstring.RedstringError is namespace("redstring.errors").RedstringError


def _is_redstring_defined(obj: object) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "redstring"


def _named_types(hint: object) -> Iterator[object]:
    """Every class or NewType named in `hint`, through unions and generics."""
    if isinstance(hint, typing.NewType | type):
        yield hint
    for arg in typing.get_args(hint):
        yield from _named_types(arg)
    origin = typing.get_origin(hint)
    if origin is not None and origin not in (typing.Union, types.UnionType):
        yield origin


def _hints(obj: Callable[..., object] | type) -> dict[str, object]:
    # PEP 695 type parameters (`def read[T](...)`) are not module globals, so
    # string annotations naming them resolve only with the function's own.
    params = {param.__name__: param for param in getattr(obj, "__type_params__", ())}
    return typing.get_type_hints(obj, localns=params)


def _signature_hints(obj: object) -> Iterator[tuple[str, object]]:
    if inspect.isfunction(obj):
        for name, hint in _hints(obj).items():
            yield f"{obj.__qualname__}:{name}", hint
        return
    if not isinstance(obj, type):
        yield from ((f"{obj!r}", named) for named in _named_types(obj))
        return
    for klass in obj.__mro__:
        if not _is_redstring_defined(klass):
            continue
        for name, hint in typing.get_type_hints(klass).items():
            if not name.startswith("_"):
                yield f"{klass.__qualname__}.{name}", hint
        for name, member in vars(klass).items():
            if name.startswith("_") and name != "__init__":
                continue
            target = member.fget if isinstance(member, property) else member
            if isinstance(target, classmethod | staticmethod):
                target = target.__func__
            if inspect.isfunction(target):
                for param, hint in _hints(target).items():
                    yield f"{klass.__qualname__}.{name}:{param}", hint


def _public_ids() -> set[int]:
    return {id(obj) for name in SURFACE for obj in exported(name)}


def leaks(name: str, public: set[int]) -> list[str]:
    found: set[str] = set()
    for obj in exported(name):
        for where, hint in _signature_hints(obj):
            for named in _named_types(hint):
                if _is_redstring_defined(named) and id(named) not in public:
                    found.add(f"{where} names {named!r}")
    return sorted(found)


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_redstring_type_named_in_a_namespace_s_signatures_is_public(name: str) -> None:
    assert leaks(name, _public_ids()) == []


def test_the_closure_check_sees_a_type_that_is_not_public() -> None:
    """The check above can fail: drop one public type and its users leak it."""
    from redstring.domain.retrieval import ScoredEntity  # noqa: PLC0415 - the point

    public = _public_ids() - {id(ScoredEntity)}
    assert any("ScoredEntity" in leak for leak in leaks("redstring", public))
    assert redstring.TenantId in {
        n for _, h in _signature_hints(redstring.Retriever) for n in _named_types(h)
    }


def _library_modules() -> Iterator[str]:
    """Every module of the installed library except the command line's."""
    for info in pkgutil.walk_packages([str(SRC)], prefix="redstring."):
        if not info.name.startswith("redstring.cli"):
            yield info.name


def _defined_errors() -> set[type]:
    found: set[type] = set()
    for module_name in _library_modules():
        module = importlib.import_module(module_name)
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, BaseException)
                and _is_redstring_defined(obj)
            ):
                found.add(obj)
    return found


def test_every_error_class_the_library_defines_is_in_the_errors_namespace() -> None:
    errors = namespace("redstring.errors")
    public = {id(getattr(errors, name)) for name in errors.__all__}
    assert sorted(cls.__qualname__ for cls in _defined_errors() if id(cls) not in public) == []


def test_the_postgres_adapters_load_on_first_use_and_name_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import redstring, sys; print('psycopg' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "False\n"
    stores = namespace("redstring.stores")
    monkeypatch.setitem(sys.modules, "redstring.vector.postgres", None)
    with pytest.raises(namespace("redstring.errors").MissingExtraError) as missing:
        _ = stores.PgVectorStore
    assert str(missing.value) == (
        "this needs redstring.vector.postgres (the `postgres` extra), which is not installed. "
        "Install the extra: pip install 'redstring[postgres]'."
    )
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = stores.no_such_thing


def test_the_approximate_vector_store_names_the_ann_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("redstring.vector.approximate", "redstring.vector.ivf"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setitem(sys.modules, "faiss", None)
    with pytest.raises(namespace("redstring.errors").MissingExtraError) as missing:
        _ = namespace("redstring.stores").ApproximateVectorStore
    assert missing.value.extra == "ann"


def test_the_sqlite_stores_ivf_search_names_the_ann_extra_before_touching_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delitem(sys.modules, "redstring.vector.ivf", raising=False)
    monkeypatch.setitem(sys.modules, "faiss", None)
    stores = namespace("redstring.stores")
    with pytest.raises(namespace("redstring.errors").MissingExtraError) as missing:
        stores.open_sqlite(tmp_path / "a.db", dimension=4, search_mode="ivf")
    assert missing.value.extra == "ann"
    assert not (tmp_path / "a.db").exists()
    stores.open_sqlite(tmp_path / "b.db", dimension=4).database.close()  # exact needs no faiss
