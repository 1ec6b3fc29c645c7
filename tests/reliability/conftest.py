"""Prints the totals the reliability tests recorded (:mod:`tests.reliability.totals`) after the run."""

from __future__ import annotations

import pytest
from tests.reliability.totals import summary_lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = summary_lines()
    if lines:
        terminalreporter.section("reliability totals")
        for line in lines:
            terminalreporter.write_line(line)
