"""The per-thread generation pin (:mod:`kgrag.store.sql.generation_pin`): one read per block and thread."""

from __future__ import annotations

import threading

from kgrag.store.sql.generation_pin import GenerationPin


def test_one_read_per_block_then_live_again() -> None:
    pin, reads = GenerationPin(), []

    def read() -> int:
        reads.append(1)
        return len(reads)

    with pin.hold(read):
        assert [pin.value(read) for _ in range(5)] == [1] * 5
        with pin.hold(read):
            assert pin.value(read) == 1
    assert len(reads) == 1
    assert pin.value(read) == 2 and pin.value(read) == 3  # outside a block every call reads


def test_each_thread_pins_its_own() -> None:
    pin = GenerationPin()
    seen: list[int] = []
    with pin.hold(lambda: 7):
        worker = threading.Thread(target=lambda: seen.append(pin.value(lambda: 9)))
        worker.start()
        worker.join()
        assert pin.value(lambda: 8) == 7
    assert seen == [9]
