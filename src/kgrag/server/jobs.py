"""Background indexing jobs: started by a request, run in their own thread, watched and cancelled later.

A job is not tied to the request that started it, so a client that disconnects (or a browser tab that
closes) does not stop it. One workspace runs one indexing job at a time: the store serialises writers
anyway, and two runs over the same files would only duplicate work. Cancelling is cooperative: the job's
progress object raises :class:`JobCancelled` at the next progress tick; every indexing stage commits in
units that a killed run resumes from, so a cancelled job leaves a consistent index that the next job
completes.
"""

from __future__ import annotations

import copy
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import JsonValue
from typing_extensions import TypedDict

from kgrag.core.errors import KgragError

MAX_NOTES = 50
MAX_FINISHED_JOBS = 100


class JobCancelled(BaseException):
    """Raised inside a job's thread to stop it; a BaseException so per-file ``except Exception`` handlers
    in the indexing code cannot swallow it and mark a document failed."""


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass
class StageProgress:
    """How far one stage of the job is: ``done`` of ``total`` (``total`` None when unknown)."""

    stage: str
    total: int | None
    done: int = 0
    finished: bool = False


class StageOut(TypedDict):
    """One stage's progress as a client reads it."""

    stage: str
    total: int | None
    done: int
    finished: bool


JobResult = dict[str, JsonValue]
"""What a job's work returns: the JSON its kind writes (an index run's report, an eval run's summary)."""


class JobOut(TypedDict):
    """A job as a client reads it (the fields of :class:`Job`)."""

    id: str
    workspace: str
    kind: str
    state: JobState
    created_at: float
    started_at: float | None
    finished_at: float | None
    stages: list[StageOut]
    notes: list[str]
    result: JobResult | None
    error: str | None
    cancel_requested: bool


@dataclass
class Job:
    """What a client sees of a job: state, per-stage progress, notes, the report or the error."""

    id: str
    workspace: str
    kind: str
    state: JobState = JobState.QUEUED
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    stages: list[StageProgress] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    result: JobResult | None = None
    error: str | None = None
    cancel_requested: bool = False

    def to_dict(self) -> JobOut:
        stages = [StageOut(stage=s.stage, total=s.total, done=s.done, finished=s.finished) for s in self.stages]
        return JobOut(
            id=self.id,
            workspace=self.workspace,
            kind=self.kind,
            state=self.state,
            created_at=self.created_at,
            started_at=self.started_at,
            finished_at=self.finished_at,
            stages=stages,
            notes=list(self.notes),
            result=copy.deepcopy(self.result),
            error=self.error,
            cancel_requested=self.cancel_requested,
        )


Scrub = Callable[[Any], Any]
"""Rewrites server paths out of a job's notes, error and result (see :mod:`kgrag.server.scrub`)."""


def _unchanged(value: Any) -> Any:
    return value


class JobProgress:
    """The :class:`~kgrag.core.progress.Progress` a job's work reports to; it is also where a cancel
    request reaches the work (every tick checks the flag). Notes are scrubbed of server paths as they
    arrive (the indexer names skipped files by their full path)."""

    def __init__(self, job: Job, lock: threading.Lock, scrub: Scrub = _unchanged) -> None:
        self._job = job
        self._lock = lock
        self._scrub = scrub

    def _check(self) -> None:
        if self._job.cancel_requested:
            raise JobCancelled()

    def _stage(self, stage: str) -> StageProgress:
        for item in reversed(self._job.stages):
            if item.stage == stage:
                return item
        item = StageProgress(stage, None)
        self._job.stages.append(item)
        return item

    def start(self, stage: str, total: int | None) -> None:
        self._check()
        with self._lock:
            self._job.stages.append(StageProgress(stage, total))

    def advance(self, stage: str, amount: int = 1) -> None:
        self._check()
        with self._lock:
            self._stage(stage).done += amount

    def note(self, message: str) -> None:
        cleaned = str(self._scrub(message))
        with self._lock:
            self._job.notes = [*self._job.notes, cleaned][-MAX_NOTES:]

    def finish(self, stage: str) -> None:
        with self._lock:
            self._stage(stage).finished = True
        self._check()


Work = Callable[[JobProgress], JobResult]


class JobManager:
    """The jobs of one workspace: at most one running; finished ones kept (the last 100) for reading.
    ``scrub`` rewrites server paths out of everything a job records."""

    def __init__(self, workspace: str, scrub: Scrub = _unchanged) -> None:
        self.workspace = workspace
        self.scrub = scrub
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._threads: dict[str, threading.Thread] = {}

    def start(self, kind: str, work: Work) -> Job:
        """Run ``work`` in a new thread; a second job while one runs is refused (409 for the server)."""
        with self._lock:
            if (running := self.active()) is not None:
                raise JobConflict(
                    f"workspace {self.workspace!r} already runs a job ({running.kind}); wait or cancel it"
                )
            job = Job(id=uuid.uuid4().hex[:16], workspace=self.workspace, kind=kind)
            self._jobs[job.id] = job
            self._forget_old()
            thread = threading.Thread(target=self._run, args=(job, work), name=f"kgrag-job-{job.id}", daemon=True)
            self._threads[job.id] = thread
        thread.start()
        return job

    @contextmanager
    def exclusive(self, what: str) -> Iterator[None]:
        """Run a short write (a document removal) while no job runs and none can start."""
        with self._lock:
            if self.active() is not None:
                raise JobConflict(f"cannot {what} while an indexing job runs in {self.workspace!r}; wait or cancel it")
            yield

    def _run(self, job: Job, work: Work) -> None:
        with self._lock:
            job.state, job.started_at = JobState.RUNNING, time.time()
        try:
            result = work(JobProgress(job, self._lock, self.scrub))
        except JobCancelled:
            self._end(job, JobState.CANCELLED, error="cancelled; the next indexing job resumes where it stopped")
        except KgragError as exc:
            self._end(job, JobState.FAILED, error=str(exc))
        except Exception as exc:  # a job thread must record every failure, never die silently
            self._end(job, JobState.FAILED, error=f"internal error: {type(exc).__name__}: {exc}")
        else:
            self._end(job, JobState.SUCCEEDED, result=result)

    def _end(self, job: Job, state: JobState, *, error: str | None = None, result: JobResult | None = None) -> None:
        error = None if error is None else str(self.scrub(error))
        result = None if result is None else self.scrub(result)
        if state == JobState.SUCCEEDED and result is not None and result.get("outcome") == "failed":
            state, error = JobState.FAILED, str(result.get("summary") or "nothing could be indexed")
        with self._lock:
            job.state, job.error, job.result, job.finished_at = state, error, result, time.time()

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.finished_at is not None]
        for job in sorted(finished, key=lambda j: j.created_at)[: max(0, len(finished) - MAX_FINISHED_JOBS)]:
            self._jobs.pop(job.id, None)
            self._threads.pop(job.id, None)

    def active(self) -> Job | None:
        """The queued or running job, if any (callers hold the lock or accept a racy answer)."""
        return next((j for j in self._jobs.values() if j.state in (JobState.QUEUED, JobState.RUNNING)), None)

    def get(self, job_id: str) -> JobOut | None:
        """A consistent copy of the job (progress changes under the lock while the job runs)."""
        with self._lock:
            job = self._jobs.get(job_id)
            return job.to_dict() if job else None

    def list(self) -> list[JobOut]:
        with self._lock:
            return [j.to_dict() for j in sorted(self._jobs.values(), key=lambda j: -j.created_at)]

    def cancel(self, job_id: str) -> JobOut | None:
        """Ask a job to stop at its next progress tick; finished jobs are returned unchanged."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return None
            if job.state in (JobState.QUEUED, JobState.RUNNING):
                job.cancel_requested = True
            return job.to_dict()

    def wait(self, job_id: str, timeout: float | None = None) -> None:
        """Block until the job's thread ends (tests, shutdown)."""
        thread = self._threads.get(job_id)
        if thread is not None:
            thread.join(timeout)

    def shutdown(self, timeout: float = 30.0) -> None:
        """Cancel what runs and wait for it, so the store is closed only after the last write."""
        with self._lock:
            for job in self._jobs.values():
                if job.state in (JobState.QUEUED, JobState.RUNNING):
                    job.cancel_requested = True
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(timeout)


class JobConflict(KgragError):
    """Another job runs in this workspace."""
