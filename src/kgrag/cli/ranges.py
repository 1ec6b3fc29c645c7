"""The ranges numeric options accept: anything outside is a usage error naming the option and its range,
never a run asked to retrieve 10^23 passages or sample -5 questions."""

from __future__ import annotations

MAX_K = 10_000  # context items / passages per question
MAX_ITEMS = 10_000_000  # questions, samples
MAX_REPEATS = 1_000  # runs, trials, repeats
MAX_BINS = 1_000  # bins, folds
MAX_SEED = 2**32 - 1  # what numpy's seeding accepts
