"""Indexing jobs as the server starts them, and what their result says about each file.

The indexer goes on past a file it cannot read (it marks that document failed and names the file in a
note), so a run "succeeds" even when every uploaded file was refused. A client must not read that as
"indexed": the result lists each file of the job with its own status and reason (``files``), an
``outcome`` (``indexed``, ``partial`` or ``failed``) and a one-line ``summary``; a job none of whose
files could be indexed ends ``failed`` with that summary as its error.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Literal

from typing_extensions import TypedDict

from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.server.jobs import JobOut, JobProgress, JobResult
from kgrag.server.state import HostedWorkspace


def document_reason(doc: DocumentRecord) -> str | None:
    """A failed document's reason, one line, without the file's path (the row already names the file)."""
    if not doc.error:
        return None
    return _reason(doc.source, doc.error)


def _reason(path: str, reason: str) -> str:
    return " ".join(reason.removeprefix(f"{path}: ").split())


Status = Literal["indexed", "failed", "pending"]


class FileOutcome(TypedDict):
    """One file of an indexing job: the name it was uploaded under, its document, status and reason."""

    name: str
    document_id: str | None
    status: Status
    reason: str | None


def contract_status(status: DocumentStatus) -> Status:
    """``indexed``, ``failed`` or ``pending`` (a document between stages is still pending)."""
    if status == DocumentStatus.INDEXED:
        return "indexed"
    return "failed" if status == DocumentStatus.FAILED else "pending"


def _file_outcomes(hosted: HostedWorkspace, paths: list[Path], problems: dict[str, str]) -> list[FileOutcome]:
    by_source = {doc.source: doc for doc in hosted.ws.documents.list()}
    out: list[FileOutcome] = []
    for path in paths:
        key = str(path.resolve())
        doc = by_source.get(key) or by_source.get(str(path))
        name = hosted.uploads.shown_name(path.name)
        if doc is None:
            reason = problems.get(path.name, "not indexed (the indexer skipped it)")
            out.append({"name": name, "document_id": None, "status": "failed", "reason": reason})
            continue
        status = contract_status(doc.status)
        why = document_reason(doc) if status == "failed" else None
        out.append({"name": name, "document_id": doc.id, "status": status, "reason": why})
    return out


def summary(files: list[FileOutcome]) -> tuple[str, str]:
    """The job's ``outcome`` and one line saying how many files were indexed, and which failed why."""
    if not files:
        return "indexed", "nothing new to index"
    failed = [f for f in files if f["status"] == "failed"]
    indexed = sum(f["status"] == "indexed" for f in files)
    line = f"indexed {indexed} of {len(files)} file(s)" if indexed < len(files) else f"indexed {indexed} file(s)"
    pending = len(files) - indexed - len(failed)
    if pending:
        line += f"; {pending} pending (a later job completes them)"
    if not failed:
        return ("indexed" if not pending else "partial"), line
    named = "; ".join(f"{f['name']}: {f['reason']}" for f in failed[:5]) + ("; …" if len(failed) > 5 else "")
    if not indexed and not pending:
        return "failed", f"no file could be indexed ({named})"
    return "partial", f"{line}; {len(failed)} failed ({named})"


def start_index_job(
    hosted: HostedWorkspace,
    pipeline: str | None,
    files: list[Path] | None = None,
    *,
    kind: str = "index",
) -> JobOut:
    """Index ``files`` (default: every upload of the workspace; only new or changed files do work) in the
    background and return the job; its result says, per file, whether it was indexed and why not."""
    if pipeline is not None:
        hosted.ws.indexing.registries.pipelines.entry(pipeline)  # unknown names fail now, as a 400

    def work(progress: JobProgress) -> JobResult:
        directory = hosted.uploads.directory
        directory.mkdir(parents=True, exist_ok=True)
        targets = files if files is not None else [directory]
        try:
            report = hosted.ws.indexing.run(targets, progress, pipeline=pipeline, prune=files is None)
        finally:
            hosted.forget_roots()  # new documents' directories are hidden from the job's own notes on
        result = report.to_dict()
        problems = {PurePath(p.path).name: _reason(p.path, p.reason) for p in report.problems}
        result["problems"] = [{"name": hosted.uploads.shown_name(n), "reason": r} for n, r in problems.items()]
        listed = files if files is not None else sorted(p for p in directory.iterdir() if p.is_file())
        result["notes"] = [  # pages indexed without an include: named as uploads, no server path shown
            {"name": hosted.uploads.shown_name(PurePath(n.path).name), "reason": _reason(n.path, n.reason)}
            for n in report.notes
        ]
        outcomes = _file_outcomes(hosted, listed, problems)
        result["files"] = [
            {"name": f["name"], "document_id": f["document_id"], "status": f["status"], "reason": f["reason"]}
            for f in outcomes
        ]
        result["outcome"], result["summary"] = summary(outcomes)
        return result

    job = hosted.jobs.start(kind, work)
    found = hosted.jobs.get(job.id)
    assert found is not None
    return found
