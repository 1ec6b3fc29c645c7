"""``/v1/workspaces/{workspace}/eval``: the evaluation runs a workspace stores, via ``ws.eval``.

Metric and pairwise evaluations are started with ``kgrag eval run`` / ``kgrag eval pairwise`` (they take
minutes to hours); the server lists the stored runs, shows one with its scores summary and drills down
to one question (:mod:`kgrag.server.eval_detail`), and runs a retrieval evaluation (evidence recall at the
context budget, no LLM) as a job whose result names the stored run.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from pydantic import BaseModel, Field, JsonValue
from typing_extensions import TypedDict

from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem, load_dataset
from kgrag.evaluation.session import EvalRun
from kgrag.server import eval_detail
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError
from kgrag.server.jobs import JobOut, JobProgress, JobResult
from kgrag.server.plain import plain_json
from kgrag.server.state import HostedWorkspace, server_state

router = APIRouter(tags=["evaluation"])

RUN_NOT_FOUND: dict[int | str, dict[str, str]] = {404: {"description": "No such run (or question)."}}
DATASET_SUFFIXES = (".json", ".jsonl")
MAX_EVAL_K = 100


class QuestionRow(BaseModel):
    """One question of a run."""

    id: str
    type: str
    question: str | None = Field(description="The question's text; null when the run kept no provenance.")
    pipelines: list[str]


class ContextItem(BaseModel):
    id: str
    kind: str
    text: str
    score: float | None = None


class PipelineAnswer(BaseModel):
    """One pipeline's answer to the question, what it was given, and its scores (means over repeats)."""

    answer: str | None
    citations: list[str]
    context: list[ContextItem]
    scores: dict[str, float | None]
    unmeasured: dict[str, str] = Field(description="Metric → why it could not be measured.")
    judge_calls: list[JsonValue] = Field(description="The judges' requests and replies (first repeat).")
    runs: int


class QuestionDetail(BaseModel):
    id: str
    question: str | None
    reference: str | None
    type: str
    evidence: list[str]
    provenance: bool
    pipelines: dict[str, PipelineAnswer]


class JobStarted(BaseModel):
    job_id: str
    job: JobOut


class RunRow(TypedDict):
    """A stored evaluation run as the list shows it."""

    id: str
    kind: str
    created_at: float
    dataset: str
    label: str


def _names(value: Any) -> Any:
    """``value`` with every string that is a whole absolute path (a dataset or output file the CLI was
    given) cut to its file name; paths inside longer text are the scrubber's."""
    if isinstance(value, str):
        is_path = "\n" not in value and len(value) < 4096 and PurePosixPath(value).is_absolute()
        return PurePosixPath(value).name if is_path else value
    if isinstance(value, dict):
        return {k: _names(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_names(v) for v in value]
    return value


def _run(hosted: HostedWorkspace, run_id: str) -> EvalRun:
    try:
        return hosted.ws.eval.get_run(run_id)
    except KgragError as exc:
        raise ApiError(404, "not_found", str(exc)) from exc


@router.get("/eval/runs", summary="Stored evaluation runs, newest first")
def runs(hosted: WorkspaceDep, kind: Annotated[str | None, Query(pattern="^(run|pairwise)$")] = None) -> list[RunRow]:
    return [
        RunRow(id=r.id, kind=r.kind, created_at=r.created_at, dataset=_names(r.dataset), label=r.label)
        for r in hosted.ws.eval.runs(kind)
    ]


@router.get(
    "/eval/runs/{run_id}",
    summary="One stored run: its settings, judges, summary and statistics",
    responses=RUN_NOT_FOUND,
)
def report(hosted: WorkspaceDep, run_id: str) -> dict[str, Any]:
    """``stats`` holds the bootstrap settings, the baseline, the paired differences against it and the
    verdicts (empty for a run stored without them); ``caveats`` what a reader must know about the run's
    questions (LLM-free generated ones: :mod:`kgrag.evaluation.generated_caveats`)."""
    found = _run(hosted, run_id)
    stats = hosted.scrub(_names(found.stats)) if found.stats else {}
    record = hosted.scrub(_names(asdict(found.record)))
    return {"record": record, "summary": found.summary, "stats": stats, "caveats": found.caveats}


@router.get(
    "/eval/runs/{run_id}/questions",
    response_model=list[QuestionRow],
    summary="The questions of a stored run (texts where the run kept them)",
    responses=RUN_NOT_FOUND,
)
def run_questions(hosted: WorkspaceDep, run_id: str) -> list[QuestionRow]:
    rows = eval_detail.questions(hosted.ws, _run(hosted, run_id))
    return [QuestionRow(**r) for r in rows]


@router.get(
    "/eval/runs/{run_id}/questions/{question_id}",
    response_model=QuestionDetail,
    summary="One question of a stored run: reference, evidence, and per pipeline answer, context and scores",
    responses=RUN_NOT_FOUND,
)
def run_question(hosted: WorkspaceDep, run_id: str, question_id: str) -> QuestionDetail:
    found = _run(hosted, run_id)
    detail = hosted.scrub(eval_detail.question_detail(hosted.ws, found, question_id))
    if detail is None:
        raise ApiError(404, "not_found", f"run {found.record.id!r} has no question {question_id[:80]!r}")
    return QuestionDetail.model_validate(detail)


def _read_dataset(upload: UploadFile, limit: int) -> list[QAItem]:
    """The uploaded questions, read through the same loader as ``kgrag eval`` (one clear line if bad)."""
    name = PurePosixPath((upload.filename or "questions.json").replace("\\", "/")).name
    suffix = PurePosixPath(name).suffix.lower()
    if suffix not in DATASET_SUFFIXES:
        raise ApiError(415, "unsupported_media_type", f"{name!r}: questions must be a .json or .jsonl file")
    data = upload.file.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "too_large", f"{name}: over the per-file limit of {limit} bytes")
    with tempfile.TemporaryDirectory(prefix="kgrag-eval-") as folder:
        path = Path(folder) / f"questions{suffix}"
        path.write_bytes(data)
        try:
            return load_dataset(path)
        except KgragError as exc:
            raise ApiError(400, "bad_request", str(exc).replace(str(path), name)) from exc


def _pipelines(hosted: HostedWorkspace, text: str, limit: int) -> list[str]:
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise ApiError(422, "invalid_request", "pipelines: name at least one pipeline, comma-separated")
    if len(names) > limit:
        raise ApiError(422, "invalid_request", f"pipelines: at most {limit} per evaluation")
    for name in names:
        hosted.ws.querying.pipeline(name)  # an unknown name is a 400 now, not a failed job later
    hosted.ws.querying.require_chunks()
    return names


@router.post(
    "/eval/retrieval",
    response_model=JobStarted,
    status_code=202,
    summary="Run a retrieval evaluation (evidence recall at the context budget) as a job; its result names the run",
    responses={
        400: {"description": "Unreadable questions or an unknown pipeline."},
        409: {"description": "A job runs."},
    },
)
def start_retrieval_eval(
    hosted: WorkspaceDep,
    request: Request,
    file: Annotated[UploadFile, File(description="Questions: GraphRAG-Bench .json or .jsonl with evidence.")],
    pipelines: Annotated[str, Form(description="Comma-separated pipeline names.")],
    k: Annotated[int, Form(ge=1, le=MAX_EVAL_K, description="Items retrieved per question.")] = 5,
) -> JobStarted:
    limits = server_state(request).limits
    items = _read_dataset(file, limits.max_file_bytes)
    names = _pipelines(hosted, pipelines, limits.max_compare_pipelines)
    dataset = PurePosixPath((file.filename or "questions.json").replace("\\", "/")).name

    def work(progress: JobProgress) -> JobResult:
        progress.start("questions", len(items))
        run = hosted.ws.eval.retrieval_run(
            items, names, k, dataset=dataset, on_question=lambda: progress.advance("questions")
        )
        progress.finish("questions")
        return {
            "run_id": run.record.id,
            "questions": len(items),
            "pipelines": [*names],
            "k": k,
            "summary": plain_json(run.summary),
        }

    job = hosted.jobs.start("eval-retrieval", work)
    found = hosted.jobs.get(job.id)
    assert found is not None
    return JobStarted(job_id=job.id, job=found)
