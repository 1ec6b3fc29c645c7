"""Sphinx pages that plain docutils only half understands, read as their readers see them: roles in table
cells, a table docutils finds malformed, ``.. rubric::`` headings and what a page writes under an autodoc
directive."""

from __future__ import annotations

from kgrag.documents.rst_text import malformed_table_rows, rst_to_text

ROLES_IN_CELLS = """\
Fares
=====

=====================================   =======================
Property                                Meaning
=====================================   =======================
:attr:`Ferry.fare <BaseFerry.fare>`     The fare of one crossing
:attr:`Ferry.tide`                      Alias for :attr:`Ferry.fare <BaseFerry.fare>`
=====================================   =======================
"""

MALFORMED = """\
Planners
========

Three planners are supported:

==================   ====================   ==================
Class                Site                   Render function
==================   ====================   ==================
:class:`Tidewright`  :doc:`tides`           :func:`tide_plan`
:class:`Harbourly`   https://harbourly.example.org   :func:`harbour_plan`
==================   ====================   ==================

After the table.
"""


def test_roles_in_table_cells_read_as_their_text_without_docutils_complaints() -> None:
    text = rst_to_text(ROLES_IN_CELLS).text
    assert "Ferry.fare | The fare of one crossing" in text
    assert "Ferry.tide | Alias for Ferry.fare" in text.splitlines()
    assert "role" not in text and "docutils" not in text


def test_a_table_docutils_finds_malformed_is_kept_as_rows() -> None:
    text = rst_to_text(MALFORMED).text
    assert "Three planners are supported:\n\nClass | Site | Render function\n\nTidewright | tides | tide_plan" in text
    assert "Harbourly | https://harbourly.example.org | harbour_plan\n\nAfter the table." in text
    assert "Malformed" not in text and "====" not in text


def test_malformed_grid_table_rows_are_split_at_their_bars() -> None:
    grid = "+------+-------+\n| Port | Fare  |\n+======+=======+\n| Oban | :data:`FARE` |\n+------+-------+"
    assert malformed_table_rows(grid) == ["Port | Fare", "Oban | FARE"]


def test_a_rubric_is_a_heading_one_below_its_section() -> None:
    source = (
        "Release 2.0\n===========\n\nIntro.\n\n.. rubric:: Removed APIs\n\n- The tide table.\n\n"
        ".. rubric:: New features\n\n- Night crossings.\n"
    )
    text = rst_to_text(source).text
    assert (
        text
        == "# Release 2.0\n\nIntro.\n\n## Removed APIs\n\n- The tide table.\n\n## New features\n\n- Night crossings."
    )


def test_what_a_page_writes_under_an_autodoc_directive_is_kept_after_its_name() -> None:
    source = (
        "API\n===\n\n.. autodata:: FARE_TABLE\n\n   Where the planner looks for fares.\n\n"
        ".. autoclass:: Planner\n   :members:\n\nAfter.\n"
    )
    text = rst_to_text(source).text
    assert text == "# API\n\nFARE_TABLE\n\nWhere the planner looks for fares.\n\nAfter."


def test_options_and_terms_stay_with_what_they_mean() -> None:
    source = (
        "Usage\n=====\n\n--week N, -w N\n    Plan the crossings of week N.\n\n    Weeks start on Monday.\n\n"
        "-q\n    Print nothing.\n\ntimeout : float\n    Seconds to wait for the ferry.\n\nharbours\n    - Oban\n"
    )
    text = rst_to_text(source).text
    assert text == (
        "# Usage\n\n--week N, -w N\nPlan the crossings of week N.\n\nWeeks start on Monday.\n\n-q\nPrint nothing.\n\n"
        "timeout : float\nSeconds to wait for the ferry.\n\nharbours\n\n- Oban"
    )
