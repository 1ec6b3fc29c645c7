"""``/v1/workspaces/{workspace}/documents``: upload (then index in the background), list, show, delete.

Uploads only ever write under the workspace's ``uploads/`` directory with generated names; deleting a
document removes it from the index through ``ws.indexing.remove`` and deletes its file only when that
file is one of the server's own uploads (never a file the CLI indexed from elsewhere;
cf. https://github.com/HKUDS/LightRAG/issues/2110).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path, PurePath
from typing import Annotated, Any

from fastapi import APIRouter, File, Query, UploadFile
from pydantic import BaseModel

from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError
from kgrag.server.jobs import JobProgress
from kgrag.server.state import HostedWorkspace
from kgrag.server.uploads import UploadOutcome

router = APIRouter(tags=["documents"])


class DocumentOut(BaseModel):
    id: str
    title: str
    name: str
    status: str
    error: str | None
    n_chars: int
    updated_at: float
    uploaded: bool


class DocumentList(BaseModel):
    counts: dict[str, int]
    chunks: int
    documents: list[DocumentOut]


class UploadResult(BaseModel):
    files: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    job: dict[str, Any] | None


def _is_upload(hosted: HostedWorkspace, source: str) -> Path | None:
    """The uploaded file behind ``source`` when it lies inside this workspace's uploads directory."""
    root = hosted.uploads.directory.resolve()
    try:
        path = Path(source).resolve()
    except (OSError, ValueError):
        return None
    return path if path.is_relative_to(root) and path != root else None


def _out(hosted: HostedWorkspace, doc: DocumentRecord) -> DocumentOut:
    return DocumentOut(
        id=doc.id,
        title=doc.title,
        name=PurePath(doc.source).name,
        status=str(doc.status),
        error=doc.error,
        n_chars=doc.n_chars,
        updated_at=doc.updated_at,
        uploaded=_is_upload(hosted, doc.source) is not None,
    )


def start_index_job(hosted: HostedWorkspace, pipeline: str | None) -> dict[str, Any]:
    """Index the workspace's uploads in the background (only new or changed files do work)."""
    if pipeline is not None:
        hosted.ws.indexing.registries.pipelines.entry(pipeline)  # unknown names fail now, as a 400

    def work(progress: JobProgress) -> dict[str, Any]:
        hosted.uploads.directory.mkdir(parents=True, exist_ok=True)
        report = hosted.ws.indexing.run([hosted.uploads.directory], progress, pipeline=pipeline)
        result = asdict(report)
        result["problems"] = [{"name": PurePath(p["path"]).name, "reason": p["reason"]} for p in result["problems"]]
        return result

    job = hosted.jobs.start("index", work)
    found = hosted.jobs.get(job.id)
    assert found is not None
    return found


@router.get("/documents", response_model=DocumentList, summary="List documents with their status")
def list_documents(
    hosted: WorkspaceDep, status: Annotated[DocumentStatus | None, Query(description="Only this status.")] = None
) -> DocumentList:
    docs = hosted.ws.documents.list(status)
    return DocumentList(
        counts=hosted.ws.documents.counts(),
        chunks=hosted.ws.documents.chunk_count(),
        documents=[_out(hosted, d) for d in docs],
    )


@router.get("/documents/{doc_id}", response_model=DocumentOut, summary="One document")
def get_document(hosted: WorkspaceDep, doc_id: str) -> DocumentOut:
    doc = hosted.ws.documents.get(doc_id)
    if doc is None:
        raise ApiError(404, "not_found", f"no document {doc_id!r}")
    return _out(hosted, doc)


@router.post("/documents", response_model=UploadResult, status_code=201, summary="Upload files and index them")
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
    except BaseException:  # all or nothing: a refused file removes what this request already wrote
        for item in outcome.files:
            (hosted.uploads.directory / item.stored).unlink(missing_ok=True)
        raise
    job = start_index_job(hosted, pipeline) if index and outcome.files else None
    return UploadResult(files=[asdict(f) for f in outcome.files], skipped=outcome.skipped, job=job)


@router.delete("/documents/{doc_id}", summary="Remove a document and everything derived from it")
def delete_document(hosted: WorkspaceDep, doc_id: str) -> dict[str, Any]:
    doc = hosted.ws.documents.get(doc_id)
    if doc is None:
        raise ApiError(404, "not_found", f"no document {doc_id!r}")
    with hosted.jobs.exclusive("remove a document"):
        upload = _is_upload(hosted, doc.source)
        if upload is not None:  # first the file, so no later job indexes it again
            upload.unlink(missing_ok=True)
        removed, _ = hosted.ws.indexing.remove([doc.id])
    return {"removed": [PurePath(s).name for s in removed], "file_deleted": upload is not None}
