"""Sentence splitting throughput on a megabyte of mixed prose and Markdown (MB/s, best of 5).

    .venv/bin/python bench/bench_sentences.py

The tests check that a large text splits correctly; how fast it does is measured here, where a loaded
machine only makes the figure worse instead of failing a build.
"""

from __future__ import annotations

import time

from kgrag.documents.sentences import split_sentences

PARAGRAPH = (
    "Basal cell carcinoma (BCC) is common, e.g. on the face. About 3.6 million cases occur. "
    'Dr. Lee said: "Use sunscreen!" Is it curable? Yes.\n\n'
    "## Treatment\n- surgery\n- radiation\n\n"
)


def main() -> None:
    text = PARAGRAPH * (1_000_000 // len(PARAGRAPH))
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        spans = split_sentences(text)
        best = min(best, time.perf_counter() - started)
    megabytes = len(text) / 1e6
    print(f"{megabytes:.2f} MB, {len(spans)} sentences: best {best * 1000:.0f} ms ({megabytes / best:.1f} MB/s)")


if __name__ == "__main__":
    main()
