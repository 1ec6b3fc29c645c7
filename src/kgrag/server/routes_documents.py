"""``/v1/workspaces/{workspace}/documents``: upload (then index in the background), list, show, reindex,
delete (or preview what a delete would remove).

Uploads only ever write under the workspace's ``uploads/`` directory with generated names; deleting a
document removes it from the index through ``ws.indexing.remove`` and deletes its file only when that
file is one of the server's own uploads (never a file the CLI indexed from elsewhere;
cf. https://github.com/HKUDS/LightRAG/issues/2110).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, File, Query, UploadFile
from pydantic import BaseModel, Field

from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError
from kgrag.server.index_jobs import Status, contract_status, document_reason, start_index_job
from kgrag.server.jobs import JobOut
from kgrag.server.state import HostedWorkspace
from kgrag.server.uploads import UploadOutcome
from kgrag.workspace.documents_api import DocumentSize

router = APIRouter(tags=["documents"])

NOT_FOUND: dict[int | str, dict[str, str]] = {404: {"description": "No such document."}}


class DocumentOut(BaseModel):
    """A document as a status table shows it; ``name``/``source_name`` never carry a directory."""

    id: str
    title: str
    name: str = Field(description="The file name (as uploaded, for the server's uploads).")
    source_name: str = Field(description="Same as ``name``, with a record's ``#n`` for JSON records.")
    status: Status
    stage: str = Field(description="The indexer's own state: pending, chunked, embedded, indexed or failed.")
    error: str | None = Field(description="Why it failed, one line, without paths; null unless failed.")
    chunks: int
    entities: int
    n_chars: int
    updated_at: float
    uploaded: bool
    duplicate_of: str | None = Field(None, description="The document whose content this one copies.")


class DocumentList(BaseModel):
    counts: dict[str, int]
    chunks: int
    total: int = Field(description="Documents matching the filters (``documents`` is one page of them).")
    offset: int
    documents: list[DocumentOut]


SortKey = Literal["order", "name", "status", "chunks", "entities", "updated"]
_SIZED = {"chunks": lambda size: size.chunks, "entities": lambda size: size.entities}


class FileResult(BaseModel):
    """One uploaded file (or zip entry): accepted for indexing, or refused with why."""

    name: str
    status: Literal["accepted", "refused"]
    reason: str | None = None
    bytes: int | None = None


class UploadResult(BaseModel):
    files: list[FileResult]
    job_id: str | None = Field(description="The indexing job for the accepted files (null with index=false).")
    job: JobOut | None
    skipped: list[dict[str, str]] = Field(description="Zip entries not extracted, with why (also in ``files``).")


class DeleteResult(BaseModel):
    """What a delete removed (or, with ``dry_run``, would remove)."""

    document: DocumentOut
    dry_run: bool
    chunks: int
    entities: int = Field(description="Entities with no other provenance, which go with the document.")
    relations: int
    entities_touched: int = Field(description="Entities that lose some provenance (re-summarised, not removed).")
    communities_stale: bool = Field(description="Community reports describe entities that change: rebuild them.")
    taken_over: bool = Field(description="A copy of the document takes it over: only the record goes.")
    removed: list[str] = Field(description="File names of the records removed (empty on a dry run).")
    file_deleted: bool


class JobStarted(BaseModel):
    job_id: str
    job: JobOut


def _is_upload(hosted: HostedWorkspace, source: str) -> Path | None:
    """The uploaded file behind ``source`` when it lies inside this workspace's uploads directory."""
    root = hosted.uploads.directory.resolve()
    try:
        path = Path(source.partition("#")[0]).resolve()
    except (OSError, ValueError):
        return None
    return path if path.is_relative_to(root) and path != root else None


def _out(hosted: HostedWorkspace, doc: DocumentRecord, size: DocumentSize | None = None) -> DocumentOut:
    size = size or DocumentSize()
    shown = hosted.source_name(doc.source)
    return DocumentOut(
        id=doc.id,
        title=hosted.scrub(hosted.uploads.shown_name(doc.title)) if doc.title else shown,
        name=shown.partition("#")[0],
        source_name=shown,
        status=contract_status(doc.status),
        stage=str(doc.status),
        error=hosted.scrub(document_reason(doc)) if doc.status == DocumentStatus.FAILED else None,
        chunks=size.chunks,
        entities=size.entities,
        n_chars=doc.n_chars,
        updated_at=doc.updated_at,
        uploaded=_is_upload(hosted, doc.source) is not None,
        duplicate_of=doc.metadata.get("duplicate_of"),
    )


def _document(hosted: HostedWorkspace, doc_id: str) -> DocumentRecord:
    doc = hosted.ws.documents.get(doc_id)
    if doc is None:
        raise ApiError(404, "not_found", f"no document {doc_id[:80]!r}")
    return doc


@router.get("/documents", response_model=DocumentList, summary="List documents with status, reason and size")
def list_documents(
    hosted: WorkspaceDep,
    status: Annotated[DocumentStatus | None, Query(description="Only this status.")] = None,
    state: Annotated[Status | None, Query(description="Only this shown status: indexed, failed or pending.")] = None,
    q: Annotated[str | None, Query(max_length=200, description="Only names containing this text.")] = None,
    sort: Annotated[SortKey, Query(description="Order: indexing order, name, status, size or time.")] = "order",
    descending: Annotated[bool, Query(description="Reverse the order.")] = False,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    limit: Annotated[int | None, Query(ge=1, le=1000, description="Page size (default: every document).")] = None,
) -> DocumentList:
    """One page of the documents matching ``status`` (the indexer's stage), ``state`` (as shown) and
    ``q``, sorted; ``total`` counts every match. Only the page is rendered (names scrubbed, sizes)."""
    sizes = hosted.sizes()
    docs = hosted.ws.documents.list(status)
    if state:
        docs = [d for d in docs if contract_status(d.status) == state]
    names: dict[str, str] = {}
    if q or sort in ("name", "status"):  # only these read the names (what a client sees)
        names = {d.id: hosted.source_name(d.source).lower() for d in docs}
    if q:
        needle = q.lower()
        docs = [d for d in docs if needle in names[d.id] or needle in (d.title or "").lower()]
    if sort in _SIZED:
        docs.sort(key=lambda d: _SIZED[sort](sizes.get(d.id) or DocumentSize()), reverse=descending)
    elif sort != "order":
        orders = {"name": lambda d: names[d.id], "status": lambda d: (contract_status(d.status), names[d.id])}
        docs.sort(key=orders.get(sort, lambda d: d.updated_at), reverse=descending)
    elif descending:
        docs.reverse()
    page = docs[offset : offset + limit] if limit else docs[offset:]
    return DocumentList(
        counts=hosted.ws.documents.counts(),
        chunks=hosted.ws.documents.chunk_count(),
        total=len(docs),
        offset=offset,
        documents=[_out(hosted, d, sizes.get(d.id)) for d in page],
    )


@router.get("/documents/{doc_id}", response_model=DocumentOut, summary="One document", responses=NOT_FOUND)
def get_document(hosted: WorkspaceDep, doc_id: str) -> DocumentOut:
    doc = _document(hosted, doc_id)
    return _out(hosted, doc, hosted.sizes().get(doc.id))


@router.post(
    "/documents",
    response_model=UploadResult,
    status_code=201,
    summary="Upload files and index them",
    responses={415: {"description": "No file was of a type the server accepts (each is named with why)."}},
)
def upload_documents(
    hosted: WorkspaceDep,
    files: Annotated[list[UploadFile], File(description="Files (txt, md, html, pdf, docx, json, jsonl, zip).")],
    index: Annotated[bool, Query(description="Start an indexing job for the uploads.")] = True,
    pipeline: Annotated[str | None, Query(description="Indexing pipeline for that job.")] = None,
) -> UploadResult:
    outcome = UploadOutcome()
    try:
        for upload in files:
            hosted.uploads.accept(upload.filename or "upload", upload.file, outcome)
        if not outcome.files and outcome.refused:
            raise ApiError(415, "unsupported_media_type", outcome.refused_line())
        hosted.uploads.remember(outcome.files)
        stored = [hosted.uploads.directory / f.stored for f in outcome.files]
        job = start_index_job(hosted, pipeline, stored) if index and outcome.files else None
    except BaseException:  # all or nothing: a refused request removes what it already wrote
        for item in outcome.files:
            (hosted.uploads.directory / item.stored).unlink(missing_ok=True)
        raise
    results = [FileResult(name=f.original, status="accepted", bytes=f.bytes) for f in outcome.files]
    results += [FileResult(name=r["name"], status="refused", reason=r["reason"]) for r in outcome.refused]
    results += [FileResult(name=r["name"], status="refused", reason=r["reason"]) for r in outcome.skipped]
    return UploadResult(files=results, job_id=job["id"] if job else None, job=job, skipped=outcome.skipped)


@router.post(
    "/documents/{doc_id}/reindex",
    response_model=JobStarted,
    status_code=202,
    summary="Index one document's file again (a job, like POST /jobs)",
    responses={**NOT_FOUND, 409: {"description": "A job runs, or the document's file is gone."}},
)
def reindex_document(hosted: WorkspaceDep, doc_id: str) -> JobStarted:
    doc = _document(hosted, doc_id)
    path = Path(doc.source.partition("#")[0])
    if not path.is_file():
        raise ApiError(409, "conflict", f"the file of document {doc_id!r} is gone; upload it again")
    job = start_index_job(hosted, None, [path], kind="reindex")
    return JobStarted(job_id=job["id"], job=job)


@router.delete(
    "/documents/{doc_id}",
    response_model=DeleteResult,
    summary="Remove a document and everything derived from it (or preview it with dry_run)",
    responses={**NOT_FOUND, 409: {"description": "An indexing job runs."}},
)
def delete_document(
    hosted: WorkspaceDep,
    doc_id: str,
    dry_run: Annotated[bool, Query(description="Only say what would be removed.")] = False,
) -> DeleteResult:
    doc = _document(hosted, doc_id)
    shown = _out(hosted, doc, hosted.sizes().get(doc.id))
    preview = hosted.ws.documents.removal_preview(doc.id)
    if preview is None:
        raise ApiError(404, "not_found", f"no document {doc_id[:80]!r}")
    counts = {
        "chunks": preview.chunks,
        "entities": preview.entities,
        "relations": preview.relations,
        "entities_touched": preview.entities_touched,
        "communities_stale": preview.communities_stale,
        "taken_over": preview.taken_over,
    }
    if dry_run:
        return DeleteResult(document=shown, dry_run=True, removed=[], file_deleted=False, **counts)
    with hosted.jobs.exclusive("remove a document"):
        upload = _is_upload(hosted, doc.source)
        if upload is not None:  # first the file, so no later job indexes it again
            upload.unlink(missing_ok=True)
        removed, _ = hosted.ws.indexing.remove([doc.id])
    hosted.forget_roots()
    names = [hosted.source_name(s) for s in removed]
    return DeleteResult(document=shown, dry_run=False, removed=names, file_deleted=upload is not None, **counts)


class BulkDelete(BaseModel):
    ids: list[str] = Field(min_length=1, max_length=1000, description="The documents to remove.")
    dry_run: bool = Field(True, description="Only say what would be removed (the default: preview first).")


class BulkDeleteResult(BaseModel):
    """What removing the documents together removed (or, with ``dry_run``, would remove)."""

    dry_run: bool
    documents: int
    chunks: int
    entities: int = Field(description="Entities found only in these documents, which go with them.")
    relations: int
    entities_touched: int
    communities_stale: bool
    removed: list[str] = Field(description="File names of the records removed (empty on a dry run).")
    files_deleted: int


@router.post(
    "/documents/delete",
    response_model=BulkDeleteResult,
    summary="Remove several documents at once (a dry run unless dry_run is false)",
    responses={**NOT_FOUND, 409: {"description": "An indexing job runs."}},
)
def delete_documents(hosted: WorkspaceDep, body: BulkDelete) -> BulkDeleteResult:
    ids = list(dict.fromkeys(body.ids))
    docs = [_document(hosted, i) for i in ids]
    preview = hosted.ws.documents.removal_preview_many(ids)
    if preview is None:
        raise ApiError(404, "not_found", "a document of the list is gone; reload the list")
    counts = {
        "documents": len(docs),
        "chunks": preview.chunks,
        "entities": preview.entities,
        "relations": preview.relations,
        "entities_touched": preview.entities_touched,
        "communities_stale": preview.communities_stale,
    }
    if body.dry_run:
        return BulkDeleteResult(dry_run=True, removed=[], files_deleted=0, **counts)
    with hosted.jobs.exclusive("remove documents"):
        uploads = [u for u in (_is_upload(hosted, d.source) for d in docs) if u is not None]
        for upload in uploads:
            upload.unlink(missing_ok=True)
        removed, _ = hosted.ws.indexing.remove(ids)
    hosted.forget_roots()
    names = [hosted.source_name(s) for s in removed]
    return BulkDeleteResult(dry_run=False, removed=names, files_deleted=len(uploads), **counts)
