"""index_documents: splitting documents into the chunk corpus, idempotently."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from redstring import SourceDocument, index_documents, new_tenant_id
from redstring.building import SlidingWindowChunker
from redstring.errors import (
    DimensionMismatchError,
    DuplicateDocumentError,
    InvalidArgumentError,
    ModelError,
)
from redstring.stores import InMemoryChunkStore
from tests.factories import make_entity
from tests.unit.composition.support import RecordingChunkStore, RecordingEmbeddings

DIMENSION = 16
SMALL = SlidingWindowChunker(size=60, overlap=10)

ADA = SourceDocument(
    id="ada.txt",
    text=(
        "Ada Lovelace was an English mathematician. She wrote notes on the Analytical "
        "Engine. Her notes contain what is called the first algorithm."
    ),
    metadata={"author": "encyclopedia", "year": 1843},
)
BABBAGE = SourceDocument(
    id="babbage.txt",
    text=(
        "Charles Babbage designed the Difference Engine. He later designed the Analytical "
        "Engine, which was never finished in his lifetime."
    ),
)


@pytest.mark.asyncio
async def test_each_document_becomes_the_chunks_of_its_source() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    report = await index_documents([ADA, BABBAGE], chunks=store, tenant_id=tenant, chunker=SMALL)
    stored = await store.chunks_of_source("ada.txt", tenant)
    spans = SMALL.split(ADA.text)
    assert [c.text for c in stored] == [s.text for s in spans]
    assert [c.index for c in stored] == list(range(len(spans)))
    assert all(ADA.text[c.start : c.end] == c.text for c in stored)
    assert all(c.metadata == ADA.metadata and c.embedding is None for c in stored)
    babbage = await store.chunks_of_source("babbage.txt", tenant)
    assert report.documents == 2
    assert report.unchanged == 0
    assert report.chunks_written == len(stored) + len(babbage)
    assert report.embedded == 0


@pytest.mark.asyncio
async def test_re_running_on_unchanged_documents_writes_and_embeds_nothing() -> None:
    store = RecordingChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    first = await index_documents(
        [ADA, BABBAGE], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=SMALL
    )
    before = await store.chunks_of_source("ada.txt", tenant)
    calls = (list(store.replaced), list(embeddings.document_batches))
    again = await index_documents(
        [ADA, BABBAGE], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=SMALL
    )
    assert first.embedded == first.chunks_written > 0
    assert (again.documents, again.unchanged, again.chunks_written, again.embedded) == (2, 2, 0, 0)
    assert (store.replaced, embeddings.document_batches) == calls
    assert await store.chunks_of_source("ada.txt", tenant) == before


@pytest.mark.asyncio
async def test_a_changed_document_replaces_its_source_and_re_embeds_only_new_text() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    original = SourceDocument(id="doc", text="Alpha passage stays.\n\nBeta passage goes.")
    chunker = SlidingWindowChunker(size=25, overlap=0)
    await index_documents(
        [original], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=chunker
    )
    [kept, _] = await store.chunks_of_source("doc", tenant)
    changed = SourceDocument(id="doc", text="Alpha passage stays.\n\nGamma passage arrives.")
    report = await index_documents(
        [changed], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=chunker
    )
    now = await store.chunks_of_source("doc", tenant)
    assert [c.text for c in now] == ["Alpha passage stays.", "Gamma passage arrives."]
    assert now[0] == kept
    assert (report.unchanged, report.chunks_written, report.embedded) == (0, 2, 1)
    assert embeddings.document_batches == [2, 1]
    assert (await store.lexical_candidates(["beta"], tenant)).candidates == []
    assert len((await store.lexical_candidates(["gamma"], tenant)).candidates) == 1


@pytest.mark.asyncio
async def test_planning_reads_no_chunk_in_full_and_a_change_keeps_the_stored_vectors() -> None:
    store = RecordingChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    chunker = SlidingWindowChunker(size=25, overlap=0)
    text = "Alpha passage stays.\n\nBeta passage goes.\n\nDelta also stays."

    async def index(text: str) -> None:
        await index_documents(
            [SourceDocument(id="doc", text=text)],
            chunks=store,
            tenant_id=tenant,
            embeddings=embeddings,
            chunker=chunker,
        )

    await index(text)
    [alpha, beta, delta] = await store.chunks_of_source("doc", tenant)
    store.read_in_full.clear()
    store.vectors_sent.clear()
    await index(text)  # unchanged: planned from the manifest alone
    assert store.read_in_full == []
    await index(text.replace("Beta passage goes.", "Gamma passage arrives."))
    # A change reads no chunk in full and sends only the new passage's vector (ADR 0255).
    assert store.read_in_full == []
    assert sorted(store.vectors_kept) == sorted([alpha.id, delta.id])
    [gamma] = store.vectors_sent
    assert gamma not in {alpha.id, beta.id, delta.id}
    after = await store.chunks_of_source("doc", tenant)
    assert [c.embedding is not None for c in after] == [True, True, True]
    assert [after[0].embedding, after[2].embedding] == [alpha.embedding, delta.embedding]
    assert after[2].start != delta.start  # placed anew, its vector kept


@pytest.mark.asyncio
async def test_moving_a_passage_rewrites_its_offsets_without_re_embedding_it() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    chunker = SlidingWindowChunker(size=25, overlap=0)
    await index_documents(
        [SourceDocument(id="doc", text="Alpha passage stays.")],
        chunks=store,
        tenant_id=tenant,
        embeddings=embeddings,
        chunker=chunker,
    )
    report = await index_documents(
        [SourceDocument(id="doc", text="   Alpha passage stays.")],
        chunks=store,
        tenant_id=tenant,
        embeddings=embeddings,
        chunker=chunker,
    )
    [moved] = await store.chunks_of_source("doc", tenant)
    assert (moved.start, report.chunks_written, report.embedded) == (3, 1, 0)
    assert moved.embedding is not None


@pytest.mark.asyncio
async def test_entity_ids_on_a_kept_passage_survive_a_change_elsewhere_in_its_document() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    chunker = SlidingWindowChunker(size=25, overlap=0)
    await index_documents(
        [SourceDocument(id="doc", text="Alpha passage stays.\n\nBeta passage goes.")],
        chunks=store,
        tenant_id=tenant,
        chunker=chunker,
    )
    [alpha, _] = await store.chunks_of_source("doc", tenant)
    ada = make_entity(tenant_id=tenant)
    await store.upsert_chunks([alpha.model_copy(update={"entity_ids": [ada.id]})])
    await index_documents(
        [SourceDocument(id="doc", text="Alpha passage stays.\n\nGamma arrives.")],
        chunks=store,
        tenant_id=tenant,
        chunker=chunker,
    )
    assert [c.text for c in await store.chunks_of_entity(ada.id, tenant)] == [
        "Alpha passage stays."
    ]


@pytest.mark.asyncio
async def test_embedding_runs_in_batches_across_documents_with_the_document_side() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    chunker = SlidingWindowChunker(size=12, overlap=0)
    documents = [
        SourceDocument(id=f"doc-{n}", text=" ".join(f"word{n}x{i} more" for i in range(5)))
        for n in range(3)
    ]
    total = sum(len(chunker.split(d.text)) for d in documents)
    report = await index_documents(
        documents,
        chunks=store,
        tenant_id=tenant,
        embeddings=embeddings,
        chunker=chunker,
        batch_size=4,
    )
    assert total > 8
    assert embeddings.document_batches == [4] * (total // 4) + ([total % 4] if total % 4 else [])
    assert embeddings.query_batches == []
    assert report.embedded == total
    stored = [c for d in documents for c in await store.chunks_of_source(d.id, tenant)]
    vectors = await embeddings.embed([c.text for c in stored])
    assert [c.embedding for c in stored] == [pytest.approx(v) for v in vectors]


@pytest.mark.asyncio
async def test_a_dimension_mismatch_is_refused_before_any_embedding_call() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION * 2)
    tenant = new_tenant_id()
    with pytest.raises(DimensionMismatchError) as caught:
        await index_documents([ADA], chunks=store, tenant_id=tenant, embeddings=embeddings)
    assert (caught.value.expected, caught.value.actual) == (DIMENSION, DIMENSION * 2)
    assert embeddings.document_batches == []
    assert await store.chunks_of_source("ada.txt", tenant) == []


@pytest.mark.asyncio
async def test_two_documents_with_one_id_are_refused_and_nothing_is_written() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    twin = SourceDocument(id="ada.txt", text="Another version.")
    with pytest.raises(DuplicateDocumentError, match=r"ada\.txt"):
        await index_documents([BABBAGE, ADA, twin], chunks=store, tenant_id=tenant)
    assert await store.chunks_of_source("babbage.txt", tenant) == []


@pytest.mark.asyncio
@pytest.mark.parametrize("batch_size", [0, -1])
async def test_a_batch_size_below_one_is_refused(batch_size: int) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        await index_documents(
            [ADA],
            chunks=InMemoryChunkStore(dimension=DIMENSION),
            tenant_id=new_tenant_id(),
            batch_size=batch_size,
        )


@pytest.mark.asyncio
async def test_unembedded_chunks_are_embedded_when_a_provider_is_given_later() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    await index_documents([ADA], chunks=store, tenant_id=tenant, chunker=SMALL)
    without = await index_documents([ADA], chunks=store, tenant_id=tenant, chunker=SMALL)
    later = await index_documents(
        [ADA], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=SMALL
    )
    settled = await index_documents(
        [ADA], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=SMALL
    )
    assert without.unchanged == 1
    assert later.unchanged == 0
    assert later.embedded == len(SMALL.split(ADA.text))
    assert settled.unchanged == 1
    assert all(c.embedding is not None for c in await store.chunks_of_source("ada.txt", tenant))


@pytest.mark.asyncio
async def test_a_passage_repeated_in_one_document_is_stored_once_at_its_first_place() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    text = "Chorus line here.\n\nVerse one.\n\nChorus line here."
    await index_documents(
        [SourceDocument(id="song", text=text)],
        chunks=store,
        tenant_id=tenant,
        chunker=SlidingWindowChunker(size=20, overlap=0),
    )
    stored = await store.chunks_of_source("song", tenant)
    assert [(c.text, c.index, c.start) for c in stored] == [
        ("Chorus line here.", 0, 0),
        ("Verse one.", 1, 19),
    ]


@pytest.mark.asyncio
async def test_progress_reports_each_count_once_after_the_batch_or_document_that_moved_it() -> None:
    seen: list[tuple[int, int]] = []
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    await index_documents([ADA], chunks=store, tenant_id=tenant, chunker=SMALL)
    await index_documents(
        [ADA, BABBAGE, SourceDocument(id="empty", text="  ")],
        chunks=store,
        tenant_id=tenant,
        chunker=SMALL,
        embeddings=RecordingEmbeddings(dimension=DIMENSION),
        batch_size=3,
        progress=lambda done, total: seen.append((done, total)),
    )
    # ADA has 4 chunks, BABBAGE 3, "empty" none: 7 in all, embedded 3 at a time.
    # (0, 7) once split; batch 1 (ADA 1-3); batch 2 (ADA 4, BABBAGE 1-2), then ADA
    # written; batch 3 (BABBAGE 3), then BABBAGE and "empty" settled: no count moves
    # as a document settles, so none is reported again (a progress bar redrew each).
    assert seen == [(0, 7), (3, 7), (6, 7), (7, 7)]


@pytest.mark.asyncio
async def test_documents_that_settle_without_moving_the_count_report_nothing_more() -> None:
    seen: list[tuple[int, int]] = []
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    await index_documents([ADA], chunks=store, tenant_id=tenant, chunker=SMALL)
    blanks = [SourceDocument(id=f"blank-{n}", text=" ") for n in range(50)]
    await index_documents(
        [*blanks, ADA],
        chunks=store,
        tenant_id=tenant,
        chunker=SMALL,
        embeddings=RecordingEmbeddings(dimension=DIMENSION),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(0, 4), (4, 4)]


@pytest.mark.asyncio
async def test_the_same_document_in_two_tenants_is_stored_twice_under_one_chunk_id() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    first, second = new_tenant_id(), new_tenant_id()
    await index_documents([ADA], chunks=store, tenant_id=first, chunker=SMALL)
    report = await index_documents([ADA], chunks=store, tenant_id=second, chunker=SMALL)
    mine = await store.chunks_of_source("ada.txt", first)
    theirs = await store.chunks_of_source("ada.txt", second)
    assert report.unchanged == 0
    assert [c.id for c in mine] == [c.id for c in theirs]
    assert {c.tenant_id for c in mine} == {first}
    assert {c.tenant_id for c in theirs} == {second}


@pytest.mark.asyncio
async def test_new_metadata_alone_rewrites_the_source_without_re_embedding() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    await index_documents(
        [ADA], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=SMALL
    )
    retitled = ADA.model_copy(update={"metadata": {"author": "someone else"}})
    report = await index_documents(
        [retitled], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=SMALL
    )
    stored = await store.chunks_of_source("ada.txt", tenant)
    assert (report.unchanged, report.chunks_written, report.embedded) == (0, len(stored), 0)
    assert all(c.metadata == {"author": "someone else"} for c in stored)


class _OneVectorShort(RecordingEmbeddings):
    """A provider that answers a batch with one vector too few."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return (await super().embed(texts))[:-1]


@pytest.mark.asyncio
async def test_a_provider_returning_too_few_vectors_is_a_model_error_and_writes_nothing() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    with pytest.raises(ModelError, match="one vector per text"):
        await index_documents(
            [ADA],
            chunks=store,
            tenant_id=tenant,
            embeddings=_OneVectorShort(dimension=DIMENSION),
            chunker=SMALL,
        )
    assert await store.chunks_of_source("ada.txt", tenant) == []


@pytest.mark.asyncio
@pytest.mark.parametrize("emptied", ["", " \n\n  "])
async def test_a_document_emptied_takes_its_passages_out_and_says_so(emptied: str) -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    await index_documents([ADA, BABBAGE], chunks=store, tenant_id=tenant, chunker=SMALL)
    empty = ADA.model_copy(update={"text": emptied})
    report = await index_documents([empty, BABBAGE], chunks=store, tenant_id=tenant, chunker=SMALL)
    assert await store.chunks_of_source("ada.txt", tenant) == []
    assert (report.documents, report.unchanged, report.empty, report.chunks_written) == (
        2,
        1,
        1,
        0,
    )
    assert report.removed == ["ada.txt"]
    # Empty again, and holding nothing: empty, not unchanged, and nothing removed.
    again = await index_documents([empty], chunks=store, tenant_id=tenant, chunker=SMALL)
    assert (again.unchanged, again.empty, again.removed) == (0, 1, [])


@pytest.mark.asyncio
async def test_a_new_empty_or_blank_document_is_counted_empty_not_unchanged() -> None:
    store = RecordingChunkStore(dimension=DIMENSION)
    tenant = new_tenant_id()
    blank = [SourceDocument(id="empty.md", text=""), SourceDocument(id="blank.md", text=" \n\t")]
    report = await index_documents([ADA, *blank], chunks=store, tenant_id=tenant, chunker=SMALL)
    assert (report.documents, report.unchanged, report.empty, report.removed) == (3, 0, 2, [])
    assert store.replaced == ["ada.txt"]  # nothing written for the empty ones
    again = await index_documents([ADA, *blank], chunks=store, tenant_id=tenant, chunker=SMALL)
    assert (again.unchanged, again.empty, again.chunks_written) == (1, 2, 0)


@pytest.mark.asyncio
async def test_a_batch_size_that_is_no_whole_number_is_refused_before_anything_is_written() -> None:
    store = InMemoryChunkStore(dimension=DIMENSION)
    with pytest.raises(InvalidArgumentError) as raised:
        await index_documents(
            [ADA],
            chunks=store,
            tenant_id=new_tenant_id(),
            batch_size="8",  # type: ignore[arg-type]
        )
    assert raised.value.name == "batch_size"
