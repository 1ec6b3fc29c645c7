"""The range an estimate gives beside its point figures: what re-asks and retries could add or take away.

The calls a reply causes (a re-ask of an invalid reply, the retry at another temperature, the halves of a
unit whose reply was cut at the token limit) are predicted from the share of failed replies this model's
measured calls showed. Measured on the two calls of a probe, that share says little: two clean replies are
as likely from a model that fails one reply in five as from one that never fails. So the point estimate
keeps the measured share (:func:`extraction_point_rate`), and the range beside it takes the rate at the ends
of its Jeffreys interval
(:data:`CONFIDENCE`; Beta(failed + ½, clean + ½), the usual interval for a share measured on few draws,
wide when nothing was measured), as the share the run's own calls will show (the predictive interval: a
run of eight units draws its own failures, :func:`failure_interval`), moved as the point is by each unit's
cut chance (:mod:`.estimate_cuts`):

* low: the lower end, each follow-up as large as a first call;
* high: the upper end, each follow-up a reply that runs on to the request's ``max_tokens`` (a retry that
  never closes its JSON costs the whole limit; a reply at least that long was measured otherwise).

Extraction follow-ups per failed reply are as measured (:data:`PER_FAILURE` when no reply failed), at most
:data:`MAX_FOLLOW_UPS` per first call, or, where the ledger linked each follow-up to its unit's first call,
at most the most follow-ups one measured unit made (halves cut again make more than a re-ask and a retry);
a denoising prompt's call is asked again at most once. The share of
first passes stopped in a repetition loop is taken at the ends of its interval the same way, for the
gleaning it takes away (:mod:`.estimate_loops`).

The size of an extraction reply is a mean measured on as few as the probe's two replies, and a model's
replies vary from unit to unit. So the range also takes the first passes' completion at the ends of that
mean's Student t interval (:func:`reply_size_factors`, the same :data:`CONFIDENCE`: wide on two replies,
as it should be; none on one reply, whose spread is unknown). Nothing else (the shares of names and
relations) is part of the range: it covers what replies cause and how large they are.
"""

from __future__ import annotations

from dataclasses import dataclass

CONFIDENCE = 0.90  # two-sided level of the failure share's interval
PER_FAILURE = 1.5  # follow-ups per failed extraction reply when none failed (a re-ask, then a retry or halves)
MAX_FOLLOW_UPS = 2.0  # per first extraction call: a re-ask and a retry (graph.extractors.llm.unit_calls = 3)


@dataclass(frozen=True)
class Bounds:
    """One end of an estimate's range."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class FailureSample:
    """Measured calls of one prompt, the replies among them that failed, and the follow-ups they caused;
    ``most``: the follow-ups per first call a unit can make (:data:`MAX_FOLLOW_UPS`, or more where linked
    units were seen making more)."""

    calls: int = 0
    failed: int = 0
    follow_ups: float = 0.0
    most: float = MAX_FOLLOW_UPS


def failure_interval(failed: int, calls: int, new: int | None = None) -> tuple[float, float]:
    """The Jeffreys interval (:data:`CONFIDENCE`) of a share of failed replies, ``failed`` of ``calls``.

    With ``new``, the share among the ``new`` calls of the run being estimated instead: the run draws its
    own replies, so on a few units its share can land well outside the interval of the model's share (one
    cut reply in eight where the model cuts one in four). That is the predictive interval, the quantiles of
    the beta-binomial count over ``new`` calls under the same Jeffreys posterior, as shares."""
    from scipy.stats import beta, betabinom

    failed = max(0, min(failed, calls))
    tail = (1 - CONFIDENCE) / 2
    a, b = failed + 0.5, calls - failed + 0.5

    def share(q: float) -> float:
        if new is not None and new > 0:
            return float(betabinom.ppf(q, new, a, b)) / new
        return float(beta.ppf(q, a, b))

    low = 0.0 if failed == 0 else share(tail)
    high = 1.0 if failed == calls and calls else share(1 - tail)
    return low, high


def reply_size_factors(mean: float, sd: float, replies: int) -> tuple[float, float]:
    """The ends of the :data:`CONFIDENCE` Student t interval of a mean reply size measured on ``replies``
    replies with sample standard deviation ``sd``, as factors of the mean ((1, 1) below two replies)."""
    from scipy.stats import t

    if replies < 2 or mean <= 0 or sd <= 0:
        return 1.0, 1.0
    half = float(t.ppf(1 - (1 - CONFIDENCE) / 2, replies - 1)) * sd / replies**0.5 / mean
    return max(0.0, 1 - half), 1 + half


def extraction_rates(sample: FailureSample, new: int | None = None) -> tuple[float, float]:
    """Follow-ups per first extraction call at the two ends of the interval of ``sample``'s failure share
    (with ``new``: of the share among the run's ``new`` calls, :func:`failure_interval`)."""
    per_failure = sample.follow_ups / sample.failed if sample.failed else PER_FAILURE
    low, high = failure_interval(sample.failed, sample.calls, new)
    return _per_first(low * per_failure, sample.most), _per_first(high * per_failure, sample.most)


def extraction_point_rate(sample: FailureSample) -> float:
    """Follow-ups per first extraction call for the point estimate: at the measured failure share, mapped as
    the range's ends are (so at most ``sample.most``, and the point lies between them). A probe unit retried
    to the end is not priced into every other unit at more calls than a unit can make."""
    if not sample.calls or not sample.failed:
        return 0.0
    share = min(sample.failed, sample.calls) / sample.calls * (sample.follow_ups / sample.failed)
    return _per_first(share, sample.most)


def _per_first(share: float, most: float = MAX_FOLLOW_UPS) -> float:
    """Follow-ups per first call when ``share`` of all calls are follow-ups, at most ``most``."""
    cap = most / (1 + most)
    share = min(share, cap)
    return share / (1 - share)


def reask_rates(sample: FailureSample, new: int | None = None) -> tuple[float, float]:
    """Re-asks per call of a prompt asked again at most once: the failure share's interval (with ``new``:
    among the run's ``new`` calls)."""
    return failure_interval(sample.failed, sample.calls, new)


def range_line(low: Bounds, high: Bounds) -> str:
    """The range in words, for the estimate's output."""
    return (
        f"range (re-asks, retries, loops and the reply size at the ends of their {CONFIDENCE:.0%} interval): "
        f"{low.calls}–{high.calls} calls, ~{low.prompt_tokens}–{high.prompt_tokens} prompt + "
        f"~{low.completion_tokens}–{high.completion_tokens} completion tokens, ~${low.cost_usd:.4f}–{high.cost_usd:.4f}"
    )
