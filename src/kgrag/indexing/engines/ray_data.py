"""One ordered, streaming Ray Data stage over Python objects: the engine's only use of Ray Data.

Items travel pickled in a single ``payload`` column, so any picklable kgrag value (paths, chunk records,
texts) goes through unchanged and comes back as the worker made it, without Arrow guessing a schema.
Results stream back in input order (``preserve_order``) as batches finish, so the driver writes the
first results while later batches still run, and a failure in one batch leaves everything before it
written. Ray Data's own progress bars and start-up banners are off: the run's ``Progress`` shows progress.
"""

from __future__ import annotations

import logging
import math
import pickle
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NotRequired

import numpy as np
from typing_extensions import TypedDict

from kgrag.core.errors import KgragError

PAYLOAD = "payload"
Batch = dict[str, np.ndarray]


@dataclass(frozen=True)
class StageShape:
    """How one Ray stage runs: items per batch, batches running at once, and whether the workers are
    actors (state built once per worker: a model, an extractor) or plain tasks."""

    batch_size: int
    concurrency: int
    actors: bool = False


class MapOptions(TypedDict):
    """The keyword arguments of ``Dataset.map_batches`` that :func:`ordered_map` sets."""

    batch_size: int
    batch_format: str
    compute: Any  # a Ray pool strategy (Ray has no type stubs)
    fn_args: NotRequired[tuple[object, ...]]
    fn_constructor_args: NotRequired[tuple[object, ...]]


def unpack(batch: Batch) -> list[Any]:
    """The items of one Ray batch (worker side)."""
    return [pickle.loads(payload) for payload in batch[PAYLOAD]]


def pack(results: Sequence[object]) -> Batch:
    """One Ray batch of results (worker side); one result per input item keeps the order aligned."""
    column = np.empty(len(results), dtype=object)
    column[:] = [pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL) for result in results]
    return {PAYLOAD: column}


def ordered_map(
    ray: ModuleType,
    items: Sequence[object],
    udf: Callable[..., Batch] | type,
    shape: StageShape,
    label: str,
    args: Sequence[object] = (),
) -> Iterator[Any]:
    """``udf`` over ``items`` on Ray, one result per item, yielded in input order as they arrive; ``args``
    go to the actor's constructor (``shape.actors``) or after the batch in each task call.

    A worker failure surfaces as a :class:`KgragError` naming the stage; results yielded before it were
    already handed to the caller (and written by it), so a re-run resumes after them.
    """
    if not items:
        return
    data = ray.data
    context = data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.print_on_execution_start = False
    rows = [{PAYLOAD: pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)} for item in items]
    dataset = data.from_items(rows, override_num_blocks=max(1, math.ceil(len(rows) / shape.batch_size)))
    pool = (
        data.ActorPoolStrategy(size=shape.concurrency)
        if shape.actors
        else data.TaskPoolStrategy(size=shape.concurrency)
    )
    options: MapOptions = {"batch_size": shape.batch_size, "batch_format": "numpy", "compute": pool}
    if shape.actors:
        options["fn_constructor_args"] = tuple(args)  # once per worker
    else:
        options["fn_args"] = tuple(args)
    mapped = dataset.map_batches(udf, **options)
    try:
        with _quiet_ray_data(context):
            for batch in mapped.iter_batches(batch_size=None, batch_format="numpy"):
                yield from unpack(batch)
    except (ray.exceptions.RayError, RuntimeError) as exc:
        raise KgragError(
            f"indexing engine ray: stage {label} failed on a worker ({type(exc).__name__}: {_first_line(exc)}); "
            "everything written before the failure is kept, so re-running `kgrag index` resumes from there"
        ) from exc


@contextmanager
def _quiet_ray_data(context: Any) -> Iterator[None]:
    """Ray Data's bars and per-dataset INFO lines off while a stage runs (they would tear the CLI's bars);
    its warnings still show. Both settings are restored afterwards."""
    logger = logging.getLogger("ray.data")
    level, bars = logger.level, context.enable_progress_bars
    logger.setLevel(logging.WARNING)
    context.enable_progress_bars = False
    try:
        yield
    finally:
        logger.setLevel(level)
        context.enable_progress_bars = bars


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__
