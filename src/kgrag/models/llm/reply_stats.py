"""What one model's recent replies measured: the figures an estimate takes instead of its assumptions.

An estimate never sees a reply, so reply sizes and the calls replies cause (a re-ask of an invalid reply,
the retry at another temperature, the halves of a unit whose reply was cut at the token limit) are
predicted. The best predictor of a model is that model: :func:`measure_replies` reads the ledger rows of
one model and stage, newest first, up to :data:`RECENT_CALLS` that were really sent (no cache hits, no
estimates, no call that failed before any reply), and returns

* the mean completion of those calls (failed replies included: a cut reply costs its full length);
* the follow-up rate: calls caused by a previous reply per first call. A row linked to its unit
  (:class:`~kgrag.core.llm_usage.CallLink`: extraction and gleaning calls) says whether it is a first call
  (``first``, ``glean``) or one a reply caused (``reask``, ``retry``, ``half``), so those are counted as
  they are, and so is the most follow-ups one unit made (what :class:`~kgrag.models.llm.estimate_range.
  FailureSample` caps the rate at). Rows without a link (written before the ledger had links, or sent
  through a batch) are counted from their failed replies: each failure is followed by one call, and a reply
  failed for its size by :data:`SIZE_FOLLOW_UPS` on average (a re-ask, then two halves); but a unit whose
  every attempt failed stops after its last one, so there are never fewer first calls than one per
  ``1 + MAX_FOLLOW_UPS`` calls not caused by a size failure;
* the linked first passes (unit key, completion, whether cut at the token limit) and the follow-ups of
  the units whose first pass was cut: what each unit's cut chance is fitted and priced from
  (:mod:`kgrag.models.llm.estimate_cuts`);
* the replies stopped in a repetition loop (``usage_source`` ``loop``, :mod:`.reply_loop`) and their mean
  size: what was read before the loop, which is what the run pays for such a reply when its calls are
  read the same way (streamed to a local server, or read whole elsewhere). Such a reply is accepted, so it
  causes no follow-up and is not gleaned.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from kgrag.core.llm_usage import FIRST_ROLE, FIRST_ROLES, GLEAN_ROLE, HALF_ROLE, LOOP_SOURCE, CallRecord
from kgrag.models.llm.estimate_range import MAX_FOLLOW_UPS, FailureSample
from kgrag.models.llm.request_fit import is_size_failure

RECENT_CALLS = 200
SIZE_FOLLOW_UPS = 1.5


@dataclass(frozen=True)
class ReplyStats:
    """Measured on ``calls`` sent calls of one model and stage."""

    calls: int
    mean_prompt: float
    mean_completion: float
    follow_up_rate: float  # calls caused by a reply, per first call
    failed: int = 0  # replies that failed (each caused a follow-up)
    follow_ups: float = 0.0  # calls those failures caused
    loops: int = 0  # replies stopped in a repetition loop
    loop_completion: float = 0.0  # their mean completion (what was read before the loop)
    unlooped_sd: float = 0.0  # the sample standard deviation of the completion of the replies that did not loop
    linked: int = 0  # calls whose ledger row links them to their unit (counted, not inferred)
    most: float = MAX_FOLLOW_UPS  # the most follow-ups per first call a unit can make (more where one was seen)
    roles: tuple[tuple[str, int], ...] = ()  # the linked calls per role
    halves_cut: int = 0  # linked halves (or quarters) whose reply was cut again
    firsts: tuple[tuple[str, int, bool], ...] = ()  # linked first passes: unit key, completion, cut at the limit
    cut_follow_ups: int = 0  # linked follow-ups of the units whose first pass was cut
    first_completion: float | None = None  # mean completion of the linked first passes that did not loop
    follow_up_completion: float | None = None  # the same of the linked follow-ups (re-asks, retries, halves)

    @property
    def per_cut(self) -> float:
        """Follow-ups per linked first pass cut at the token limit (:data:`SIZE_FOLLOW_UPS` when none was)."""
        cut = sum(c for _, _, c in self.firsts)
        return self.cut_follow_ups / cut if cut else SIZE_FOLLOW_UPS

    @property
    def per_whole(self) -> float:
        """Follow-ups per linked first pass not cut (0 when none was linked)."""
        whole = sum(not c for _, _, c in self.firsts)
        follow_ups = self.linked - len(self.firsts) - dict(self.roles).get(GLEAN_ROLE, 0) - self.cut_follow_ups
        return max(0, follow_ups) / whole if whole else 0.0

    @property
    def first_calls(self) -> float:
        """The first calls among the measured ones (the rest were caused by a previous reply)."""
        return self.calls / (1 + self.follow_up_rate)

    @property
    def loop_share(self) -> float:
        """Replies stopped in a loop per first call (at most 1)."""
        return min(1.0, self.loops / self.first_calls) if self.calls else 0.0

    @property
    def unlooped_completion(self) -> float:
        """The mean completion of the replies that did not stop in a loop (of all, when every one did)."""
        if self.loops >= self.calls:
            return self.mean_completion
        return (self.calls * self.mean_completion - self.loops * self.loop_completion) / (self.calls - self.loops)

    def sample(self) -> FailureSample:
        """What the estimate's range rests on (:mod:`kgrag.models.llm.estimate_range`)."""
        return FailureSample(self.calls, self.failed, self.follow_ups, self.most)

    def note(self, what: str) -> str:
        linked = ""
        if self.linked:
            roles = ", ".join(f"{count} {role}" for role, count in self.roles)
            cut = f"; {self.halves_cut} halves cut again" if self.halves_cut else ""
            linked = f" ({self.linked} linked to their unit: {roles}{cut})"
        sizes = ""
        if self.first_completion is not None and self.follow_up_completion is not None:
            sizes = f" (first passes {self.first_completion:.0f}, follow-ups {self.follow_up_completion:.0f})"
        return (
            f"{what}: mean reply {self.mean_completion:.0f} tokens{sizes} and {self.follow_up_rate:.2f} "
            f"re-asks/retries per first call, from this model's last {self.calls} sent calls{linked}"
        )


def _sent(record: CallRecord) -> bool:
    replied = record.completion_tokens > 0 or record.error is None
    return not record.cache_hit and not record.estimated and record.attempts > 0 and replied


def measure_replies(records: Iterable[CallRecord], *, model: str | None, stage: str) -> ReplyStats | None:
    """The figures of ``model``'s last :data:`RECENT_CALLS` sent calls of ``stage`` (``records`` newest
    first; ``model`` None: any model's), or None when there is none."""
    chosen: list[CallRecord] = []
    for record in records:
        if model in (None, record.model) and record.stage == stage and _sent(record):
            chosen.append(record)
            if len(chosen) >= RECENT_CALLS:
                break
    if not chosen:
        return None
    linked = [r for r in chosen if r.link is not None]
    inferred, inferred_first = _inferred([r for r in chosen if r.link is None])
    firsts = sum(r.call_role in FIRST_ROLES for r in linked)
    follow_ups = inferred + len(linked) - firsts
    first = max(1.0, inferred_first + firsts)
    roles = Counter(str(r.call_role) for r in linked)
    looped = [r.completion_tokens for r in chosen if r.usage_source == LOOP_SOURCE]
    clean = [r.completion_tokens for r in chosen if r.usage_source != LOOP_SOURCE]
    return ReplyStats(
        len(chosen),
        sum(r.prompt_tokens for r in chosen) / len(chosen),
        sum(r.completion_tokens for r in chosen) / len(chosen),
        max(0.0, len(chosen) - first) / first,
        sum(r.error is not None for r in chosen),
        follow_ups,
        len(looped),
        sum(looped) / len(looped) if looped else 0.0,
        statistics.stdev(clean) if len(clean) > 1 else 0.0,
        len(linked),
        max(MAX_FOLLOW_UPS, _most_per_unit(linked)),
        tuple(sorted(roles.items())),
        sum(r.call_role == HALF_ROLE and is_size_failure(r.error) for r in linked),
        *_first_passes(linked),
        first_completion=_mean(r.completion_tokens for r in linked if r.call_role == FIRST_ROLE and _whole(r)),
        follow_up_completion=_mean(r.completion_tokens for r in linked if r.call_role not in FIRST_ROLES and _whole(r)),
    )


def _whole(record: CallRecord) -> bool:
    """Whether ``record``'s reply was read whole (not stopped in a repetition loop)."""
    return record.usage_source != LOOP_SOURCE


def _mean(values: Iterable[int]) -> float | None:
    """The mean of ``values``; None for none."""
    found = list(values)
    return sum(found) / len(found) if found else None


def _inferred(records: Sequence[CallRecord]) -> tuple[float, float]:
    """The follow-ups and first calls among ``records`` (rows without links), inferred from their failed
    replies; (0, 0) for none."""
    if not records:
        return 0.0, 0.0
    failed = [r for r in records if r.error is not None]
    sized = sum(SIZE_FOLLOW_UPS for r in failed if is_size_failure(r.error))
    follow_ups = sized + sum(not is_size_failure(r.error) for r in failed)
    # a unit's last failed reply causes no call: without halves a unit makes at most 1 + MAX_FOLLOW_UPS calls
    return follow_ups, max(1.0, len(records) - follow_ups, (len(records) - sized) / (1 + MAX_FOLLOW_UPS))


def _first_passes(linked: Sequence[CallRecord]) -> tuple[tuple[tuple[str, int, bool], ...], int]:
    """The linked first passes (unit key, completion, cut at the token limit) and the follow-ups of the units
    whose first pass was cut (per run: a unit may be extracted again in a later run)."""
    firsts = [r for r in linked if r.call_role == FIRST_ROLE]
    cut = {(r.run_id, r.unit_key) for r in firsts if is_size_failure(r.error)}
    follow_ups = sum(r.call_role not in FIRST_ROLES and (r.run_id, r.unit_key) in cut for r in linked)
    return tuple((str(r.unit_key), r.completion_tokens, is_size_failure(r.error)) for r in firsts), follow_ups


def _most_per_unit(linked: Sequence[CallRecord]) -> int:
    """The most follow-ups one unit's first call had among ``linked`` (per run: a unit may be extracted again
    in a later run)."""
    per_unit = Counter((r.run_id, r.unit_key) for r in linked if r.call_role not in FIRST_ROLES)
    return max(per_unit.values(), default=0)


def replies_by_prompt(
    records: Iterable[CallRecord], *, model: str | None, skip: Collection[str] = ()
) -> tuple[tuple[str, float, float], ...]:
    """Per prompt name (those in ``skip`` left out): the mean completion and the re-ask rate of ``model``'s
    last :data:`RECENT_CALLS` sent calls of it (``records`` newest first; ``model`` None: any model's):
    what the estimate assumes for those prompts' calls. Such a call is re-asked at most once, and a re-ask
    fails about as often as a first call, so the share of failed replies estimates the re-asks per first
    call (at most one)."""
    found = []
    for name, calls in _by_prompt(records, model, skip):
        mean = sum(r.completion_tokens for r in calls) / len(calls)
        found.append((name, mean, sum(r.error is not None for r in calls) / len(calls)))
    return tuple(found)


def samples_by_prompt(
    records: Iterable[CallRecord], *, model: str | None, skip: Collection[str] = ()
) -> tuple[tuple[str, FailureSample], ...]:
    """Per prompt name, as :func:`replies_by_prompt` chooses the calls: how many, and how many failed."""
    return tuple(
        (name, FailureSample(len(calls), failed := sum(r.error is not None for r in calls), float(failed)))
        for name, calls in _by_prompt(records, model, skip)
    )


def _by_prompt(
    records: Iterable[CallRecord], model: str | None, skip: Collection[str]
) -> list[tuple[str, list[CallRecord]]]:
    chosen: dict[str, list[CallRecord]] = {}
    for record in records:
        name = record.prompt_name
        if model not in (None, record.model) or name is None or name in skip or not _sent(record):
            continue
        kept = chosen.setdefault(name, [])
        if len(kept) < RECENT_CALLS:
            kept.append(record)
    return sorted(chosen.items())
