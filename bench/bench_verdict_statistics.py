"""Measured coverage, false-"Best" rate and power of kgrag's verdict statistics, with the candidate
interval methods side by side (the method is chosen by these numbers). Prints the markdown table of
docs/results/verdict-statistics.md.

    python bench/bench_verdict_statistics.py [--reps 1000] [--resamples 999]

Question sets are simulated with known truth (:mod:`kgrag.evaluation.stats.simulate`): four question
types in the mix 65 / 20 / 10 / 5 %, scores with point masses at 0 and 1 and skewed in between. For each
method, the share of sets whose 95 % interval holds the true mean, for All and for each stratum of at
least 10 questions; bootstrap methods resample ``--resamples`` times.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

from kgrag.evaluation.stats.intervals import MIN_STRATUM
from kgrag.evaluation.stats.planner import power_at
from kgrag.evaluation.stats.simulate import (
    DIFFERENCES,
    HARSH,
    SHAPES,
    TypeShape,
    coverage,
    false_best,
    power,
    type_counts,
)
from kgrag.evaluation.stats.spreads import difference_stats, skew_t_bounds, skewness, t_half_width, t_stats

Bounds = tuple[np.ndarray, np.ndarray]
LEVEL = 0.95


def _boot_means(x: np.ndarray, b: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    picks = rng.integers(0, x.shape[1], (x.shape[0], b, x.shape[1]))
    drawn = np.take_along_axis(np.broadcast_to(x[:, None, :], picks.shape), picks, axis=2)
    return drawn.mean(axis=2), drawn.std(axis=2, ddof=1) / np.sqrt(x.shape[1])


def percentile(x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    means, _ = _boot_means(x, b, rng)
    low, high = np.quantile(means, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=1)
    return low, high


def bca(x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    means, _ = _boot_means(x, b, rng)
    m = x.mean(axis=1)
    n = x.shape[1]
    share = np.clip((means < m[:, None]).mean(axis=1), 1 / b, 1 - 1 / b)
    z0 = sps.norm.ppf(share)
    jack = (x.sum(axis=1, keepdims=True) - x) / (n - 1)
    d = jack.mean(axis=1, keepdims=True) - jack
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = np.nan_to_num((d**3).sum(axis=1) / (6 * ((d**2).sum(axis=1)) ** 1.5))
    out = []
    for z in sps.norm.ppf([(1 - LEVEL) / 2, (1 + LEVEL) / 2]):
        q = sps.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        out.append(np.asarray([np.quantile(row, qi) for row, qi in zip(means, q, strict=True)]))
    return out[0], out[1]


def studentized(x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    means, ses = _boot_means(x, b, rng)
    m, se, _ = t_stats(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(ses > 0, (means - m[:, None]) / np.where(ses > 0, ses, 1), 0.0)
    low_q, high_q = np.quantile(t, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=1)
    return m - high_q * se, m - low_q * se


def student(x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    m, se, df = t_stats(x)
    half = t_half_width(se, df, LEVEL)
    return m - half, m + half


def cornish_fisher(x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    """Student's quantiles moved by the first Edgeworth term, γ(2q² + 1)/(6√n)."""
    m, se, df = t_stats(x)
    q = float(sps.t.ppf((1 + LEVEL) / 2, df))
    shift = np.clip(skewness(x) * (2 * q * q + 1) / (6 * np.sqrt(x.shape[1])), -q / 2, q / 2)
    return m - (q - shift) * se, m + (q + shift) * se


def hall(x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    return skew_t_bounds(x, LEVEL)


METHODS: dict[str, Callable[[np.ndarray, int, np.random.Generator], Bounds]] = {
    "percentile bootstrap": percentile,
    "BCa bootstrap": bca,
    "studentized bootstrap": studentized,
    "Student t": student,
    "Cornish–Fisher t": cornish_fisher,
    "Hall's transformed t (chosen)": hall,
}


def _chunked(method: Callable[..., Bounds], x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    size = max(1, 4_000_000 // (b * x.shape[1]))
    parts = [method(x[i : i + size], b, rng) for i in range(0, x.shape[0], size)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def method_rows(shapes: tuple[TypeShape, ...], reps: int, b: int) -> list[str]:
    rng = np.random.default_rng(0)
    rows = []
    for n in (16, 30, 68, 515):
        counts = type_counts(n)
        groups = [s.draw(rng, (reps, c)) for s, c in zip(shapes, counts, strict=True)]
        truth_all = float(np.dot(counts, [s.mean for s in shapes]) / n)
        targets = [("All", np.concatenate(groups, axis=1), truth_all)]
        for i, (shape, c, g) in enumerate(zip(shapes, counts, groups, strict=True)):
            if c >= MIN_STRATUM:
                targets.append((f"type {i + 1} (n={c})", g, shape.mean))
        for label, x, truth in targets:
            cells = []
            for method in METHODS.values():
                low, high = _chunked(method, x, b, rng)
                width = float(np.mean(high - low))
                cells.append(f"{np.mean((low <= truth) & (truth <= high)):.3f} ({width:.2f})")
            rows.append(f"| {n} ({'/'.join(map(str, counts))}) | {label} | " + " | ".join(cells) + " |")
    return rows


def pseudo_t(x: np.ndarray, b: int, rng: np.random.Generator) -> Bounds:
    m, se, df = difference_stats(x, 1.0)
    half = t_half_width(se, df, LEVEL)
    return m - half, m + half


DIFFERENCE_METHODS = {
    "Student t": student,
    "Hall's transformed t": hall,
    "t, two pseudo-differences (chosen)": pseudo_t,
}


def difference_rows(reps: int) -> list[str]:
    """Coverage (mean width) of paired-difference intervals per shape and size, same sets for each method."""
    rows = []
    for name, shape in DIFFERENCES.items():
        for n in (10, 16, 30, 54, 100, 300, 1547):
            x = shape.draw(np.random.default_rng(n), (reps, n))
            cells = []
            for method in DIFFERENCE_METHODS.values():
                low, high = method(x, 0, np.random.default_rng(0))
                inside = np.mean((low <= shape.mean) & (shape.mean <= high))
                cells.append(f"{inside:.3f} ({float(np.mean(high - low)):.3f})")
            rows.append(f"| {name} | {shape.mean:+.4f} | {n} | " + " | ".join(cells) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=999)
    args = parser.parse_args()
    head = "| questions (types) | column | " + " | ".join(METHODS) + " |"
    rule = "| --- | --- | " + " | ".join("---:" for _ in METHODS) + " |"
    for title, shapes in (("suite shapes", SHAPES), ("harsh shapes (40 % ones / half zeros)", HARSH)):
        print(f"\n### Coverage of the nominal 95 % interval (mean width), {title}, {args.reps} sets per row\n")
        print(head, rule, *method_rows(shapes, args.reps, args.resamples), sep="\n")
    print("\n### The chosen method in the suite's check (4000 sets): All, Macro (capped weights), strata ≥ 10\n")
    print("| shapes | questions (types) | All | Macro | strata ≥ 10 |\n| --- | --- | ---: | ---: | --- |")
    for name, shapes in (("suite", SHAPES), ("harsh", HARSH)):
        for n in (16, 30, 68, 515):
            c = coverage(n, 4000, seed=n, shapes=shapes)
            strata = ", ".join(f"type {i + 1}: {v:.3f}" for i, v in c.strata.items())
            print(f"| {name} | {n} ({'/'.join(map(str, c.counts))}) | {c.all:.3f} | {c.macro:.3f} | {strata} |")
    print('\n### False "Best" among k equal pipelines (Holm over the leader\'s paired t-tests)\n')
    print("| k | questions | sets | All | Macro |\n| ---: | ---: | ---: | ---: | ---: |")
    for k in (2, 5, 13):
        for n in (16, 68):
            reps = 12_000 if k == 2 else 3000
            a = false_best(k, n, reps, seed=10 * k + n, column="All")
            m = false_best(k, n, reps, seed=10 * k + n, column="Macro")
            print(f"| {k} | {n} | {reps} | {a:.4f} | {m:.4f} |")
    print(
        f"\n### Paired differences: coverage of the nominal 95 % interval (mean width), {args.reps * 10} sets per row\n"
    )
    print("| differences | true mean | questions | " + " | ".join(DIFFERENCE_METHODS) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in DIFFERENCE_METHODS) + " |")
    print(*difference_rows(args.reps * 10), sep="\n")
    print("\n### Power for a true difference of 0.05 (two pipelines, shared question difficulty, noise sd 0.15)\n")
    print("| questions | measured power (4000 sets) | true Δ | planner's prediction |\n| ---: | ---: | ---: | ---: |")
    for n in (68, 150, 300):
        found, truth = power(n, 0.05, 0.15, 4000, seed=3)
        print(f"| {n} | {found:.3f} | {truth:.4f} | {power_at(n, truth, 0.15 * 2**0.5):.3f} |")


if __name__ == "__main__":
    main()
