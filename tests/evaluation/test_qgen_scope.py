"""A known-item question names the headings its sentence sits under (:mod:`kgrag.evaluation.qgen.scope`):
the headings in force are found on the document's text across its chunks, and a heading is named only
when it gives nothing away and says something the question does not."""

from __future__ import annotations

from kgrag.documents.chunking import chunk_text
from kgrag.documents.provenance import authored_title
from kgrag.documents.tokens import TokenCounter
from kgrag.evaluation.qgen.cloze import Passage
from kgrag.evaluation.qgen.scope import (
    DocumentHeadings,
    Heading,
    named_headings,
    scoped_question,
    sentence_offset,
)

_PAGE = """# Harbour Services

The harbour office opens at seven.

## Ferries

### Timetables

The Tolvey ferry leaves every hour from pier four.

```bash
# not a heading: a comment in code
echo ferry
```

### Fares

A return ticket to Tolvey costs twelve crowns.

## Moorings

Visiting boats moor at the east quay for two nights at most.
"""


def _chunks(text: str, doc_id: str = "d1", title: str = "", size: int = 40) -> list[Passage]:
    """``text`` chunked as indexing chunks it (small chunks: several per section, overlapping)."""
    chunks = chunk_text(text, TokenCounter.for_encoding(), size, 8)
    assert len(chunks) >= 3
    return [Passage(f"{doc_id}#{c.ord}", doc_id, c.text, c.char_start, title) for c in chunks]


def _above(passages: list[Passage], sentence: str) -> list[str]:
    headings = DocumentHeadings(passages)
    passage = next(p for p in passages if sentence in p.text)
    offset = sentence_offset(passage.text, sentence)
    assert offset is not None
    return [h.text for h in headings.above(passage.doc_id, passage.start + offset)]


def test_the_headings_in_force_are_found_across_chunks_and_outside_code() -> None:
    passages = _chunks(_PAGE)
    assert _above(passages, "The harbour office opens at seven.") == ["Harbour Services"]
    assert _above(passages, "The Tolvey ferry leaves every hour") == ["Harbour Services", "Ferries", "Timetables"]
    # a sibling closes the heading before it; the comment inside the fenced code is no heading
    assert _above(passages, "A return ticket to Tolvey") == ["Harbour Services", "Ferries", "Fares"]
    assert _above(passages, "Visiting boats moor at the east quay") == ["Harbour Services", "Moorings"]


def test_a_fence_after_a_gap_between_chunks_does_not_hide_the_headings_after_it() -> None:
    # chunks start on no blank line, so the blank lines before a fence can fall between two chunks
    first = "# Harbour Services\n\nThe harbour office opens at seven."
    second = "```bash\n# a comment\n```\n\n## Moorings\n\nVisiting boats moor at the east quay."
    text = first + "\n\n" + second
    passages = [Passage("d1#0", "d1", first, 0), Passage("d1#1", "d1", second, len(first) + 2)]
    assert _above(passages, "Visiting boats moor") == ["Harbour Services", "Moorings"]
    assert text[passages[1].start :].startswith("```bash")


def test_the_document_title_comes_first_and_a_first_heading_repeating_it_is_left_out() -> None:
    passages = _chunks(_PAGE, title="Harbour Services")
    assert _above(passages, "The Tolvey ferry leaves") == ["Harbour Services", "Ferries", "Timetables"]
    titled = _chunks(_PAGE.replace("# Harbour Services\n", ""), title="Tolvey Harbour Guide")
    assert _above(titled, "Visiting boats moor") == ["Tolvey Harbour Guide", "Moorings"]


def test_a_sentence_is_located_through_markup_and_not_guessed_when_absent() -> None:
    text = "Intro line.\n\nThe `android_{apilevel}` tag names the **Tolvey** ferry's berth."
    assert sentence_offset(text, "The android_{apilevel} tag names the Tolvey ferry's berth.") == text.index("The")
    assert sentence_offset(text, "A sentence this chunk does not hold.") is None


_PATH = (Heading(0, "Harbour Services"), Heading(2, "Ferries"), Heading(3, "Timetables"))


def _scoped(question: str, path: tuple[Heading, ...], answer: str, name_first: bool = False) -> str:
    return scoped_question(question, named_headings(question, path, answer), name_first)


def test_the_innermost_heading_is_named_with_the_title() -> None:
    question = _scoped("What leaves every hour from pier four?", _PATH, "The Tolvey ferry", False)
    assert question == "In the section “Timetables” of “Harbour Services”, what leaves every hour from pier four?"
    only_title = _scoped("What opens at seven?", _PATH[:1], "The Tolvey office", False)
    assert only_title == "In “Harbour Services”, what opens at seven?"
    section = _scoped("What opens at seven?", (Heading(2, "Opening Hours"),), "The office", False)
    assert section == "In the section “Opening Hours”, what opens at seven?"


def test_the_headings_named_are_the_outermost_and_the_innermost_that_may_be() -> None:
    path = (*_PATH, Heading(4, "Examples"))  # a generic label below the innermost is passed over
    named = named_headings("What leaves every hour from pier four?", path, "The Tolvey ferry")
    assert [h.text for h in named] == ["Harbour Services", "Timetables"]
    assert named_headings("What leaves every hour?", (Heading(2, "Ferries"),), "ferry") == ()


def test_a_question_opening_with_a_name_keeps_its_capital() -> None:
    question = _scoped("Tolvey ferries leave from which pier?", _PATH[:1], "pier four", True)
    assert question == "In “Harbour Services”, Tolvey ferries leave from which pier?"


def test_a_heading_that_gives_the_answer_away_is_passed_over_for_the_one_above() -> None:
    path = (Heading(0, "Harbour Services"), Heading(2, "Ferries"))
    # "Ferries" is a form of the answer's word: the heading above is named instead
    question = _scoped("What leaves every hour from pier four?", path, "The Tolvey ferry", False)
    assert question == "In “Harbour Services”, what leaves every hour from pier four?"
    assert _scoped("What leaves every hour?", (Heading(2, "Ferries"),), "ferry", False) == ("What leaves every hour?")
    question = "What are sometimes shared by different people and change hands?"
    assert _scoped(question, (Heading(2, "Blocking by IP"),), "IPs", False) == question  # an acronym's plural


def test_a_heading_holding_the_answer_s_acronym_is_not_named() -> None:
    question = "What lets a harbour office share its timetables with other ports?"
    answer = "Cross-Port Timetable Sharing"
    assert _scoped(question, (Heading(2, "CPTS"),), answer, False) == question
    assert _scoped(question, (Heading(1, "Ferries, CPTS & Fares"),), answer, False) == question
    assert _scoped(question, (Heading(2, "Ferry links"),), answer, False).startswith("In the section “Ferry links”")


def test_headings_that_name_nothing_or_add_nothing_are_not_named() -> None:
    question = "What leaves every hour from pier four?"
    for heading in ("Bug Fixes", "Overview", "Examples", "tolvey.ferry_times()", "What about...", "Pier"):
        assert _scoped(question, (Heading(2, heading),), "The Tolvey ferry", False) == question
    assert _scoped(question, (), "The Tolvey ferry", False) == question
    long_heading = Heading(2, "A very long heading that runs on for far more than ten words in all")
    assert _scoped(question, (long_heading,), "The Tolvey ferry", False) == question


def test_a_title_is_the_author_s_only_when_it_is_not_the_file_name() -> None:
    assert authored_title("Harbour Services", "/docs/harbour.md") == "Harbour Services"
    assert authored_title("harbour", "/docs/harbour.md") == ""
    assert authored_title("Novel-58553", "/data/Novel-58553.txt") == ""
    assert authored_title("records #r7", "/data/records.jsonl#r7") == ""
    assert authored_title("Tolvey ferries", "/data/records.jsonl#r7") == "Tolvey ferries"


def test_a_candidate_is_headed_when_its_question_would_name_a_heading() -> None:
    from kgrag.evaluation.qgen.cloze import Cloze
    from kgrag.evaluation.qgen.placing import names, paged, with_headings

    passages = _chunks(_PAGE, title="")
    sentence = "The Tolvey ferry leaves every hour from pier four."
    chunk = next(p for p in passages if sentence in p.text)
    question = "The Tolvey ferry leaves from what?"
    asked = Cloze(chunk.chunk_id, "d1", sentence, "pier four", "THING", question, "t", (), 1.0)
    lost = Cloze(chunk.chunk_id, "d1", "A sentence the passage does not hold.", "X", "THING", "What?", "t", (), 1.0)
    named = names([asked, lost], passages, DocumentHeadings(passages))
    found = paged(named)
    assert found == {asked}  # a sentence not found as written names no heading
    assert with_headings([asked], named)[0].headings == ("Harbour Services", "Timetables")


def test_a_scoped_question_asked_second_in_a_pair_reads_on_in_lower_case() -> None:
    from kgrag.evaluation.qgen.cloze import Cloze
    from kgrag.evaluation.qgen.known_item import _joined

    first = Cloze("c1", "d1", "s1", "pier four", "THING", "What leaves from pier four?", "t", (), 1.0)
    named = "In the section “Fares”, Tolvey tickets cost how many crowns?"
    second = Cloze("c2", "d1", "s2", "12", "CARDINAL", named, "t", (), 1.0, True, headings=("Fares",))
    item, _ = _joined(first, second)
    assert item.question.endswith("Also, in the section “Fares”, Tolvey tickets cost how many crowns?")
    unscoped = Cloze("c2", "d1", "s2", "12", "CARDINAL", "Tolvey tickets cost how many crowns?", "t", (), 1.0, True)
    assert _joined(first, unscoped)[0].question.endswith("Also, Tolvey tickets cost how many crowns?")


def test_a_question_names_its_page_by_the_title_or_a_section_of_another_heading() -> None:
    from kgrag.evaluation.qgen.scope import names_page

    title, top, section = Heading(0, "Harbour Services"), Heading(1, "Ferries"), Heading(2, "Maintenance")
    assert names_page((title,)) and names_page((top,)) and names_page((title, section))
    assert not names_page((section,))  # "Maintenance" alone recurs on other pages
    assert not names_page(())


def test_an_answer_is_its_page_s_subject_when_the_page_s_title_gives_it() -> None:
    from kgrag.evaluation.qgen.scope import asks_page_subject

    assert asks_page_subject((Heading(0, "Quillmark"), Heading(2, "Install")), "Quillmark")
    assert asks_page_subject((Heading(1, "Scheduling with Quillmark"),), "Quillmark")
    assert asks_page_subject((Heading(0, "Ferry timetables"),), "timetable")  # a form of the answer's word
    assert asks_page_subject((Heading(0, "CPTS"),), "Cross-Port Timetable Sharing")  # its acronym
    assert not asks_page_subject((Heading(0, "Harbour tools"), Heading(2, "Quillmark")), "Quillmark")  # a section
    assert not asks_page_subject((Heading(0, "Harbour tools"),), "Quillmark")
    assert not asks_page_subject((), "Quillmark")


_CATALOGUE = {
    "Quillmark": "Quillmark is a lightweight scheduler for the ferry crossings of a busy harbour. "
    "It keeps the weekly timetable in one plain file.",
    "Tarnview": "Tarnview is a monitoring dashboard for the berths of every pier. It refreshes every ten seconds.",
    "Brisel": "Brisel is a billing service for the yachts that visit a marina. It sends the invoices monthly.",
    "Harbour tools": "The harbour office in Vantry chose its tools after a long trial in the spring of 2019. "
    "Lotte Brenner led the trial for the port authority of Selk.",
}


def test_a_page_s_one_line_account_of_its_subject_gives_no_question() -> None:
    from tests.evaluation.qgen_spacy import spacy_nlp

    from kgrag.evaluation.qgen.known_item import known_item_questions
    from kgrag.evaluation.qgen.placing import PAGE_SUBJECT

    # a page per tool, each opening with a line any sibling page's subject would fit as well
    passages = [Passage(f"{t}#00000", t, f"# {t}\n\n{text}\n", 0, t) for t, text in _CATALOGUE.items()]
    scoped = known_item_questions(passages, spacy_nlp(), ["known-item"], 20)
    assert scoped.rejected[PAGE_SUBJECT] == 2
    assert {q.answer for q in scoped.items} == {"Selk"}
    unscoped = known_item_questions(passages, spacy_nlp(), ["known-item"], 20, scope=False)
    assert {"Quillmark", "Brisel"} <= {q.answer for q in unscoped.items}  # the check reads the headings


def test_a_question_whose_own_section_gives_the_answer_names_no_section_around_it() -> None:
    from kgrag.evaluation.qgen.scope import outer_section_named

    def names_outer_section(question: str, path: tuple[Heading, ...], answer: str) -> bool:
        return outer_section_named(path, named_headings(question, path, answer), answer)

    question = "What splits a volume's blocks over several piers?"
    path = (Heading(0, "Harbour Storage"), Heading(2, "Access Modes"), Heading(3, "Volumes with sharding"))
    assert [h.text for h in named_headings(question, path, "Sharding")] == ["Harbour Storage", "Access Modes"]
    assert names_outer_section(question, path, "Sharding")  # "Access Modes" would mislead
    assert not names_outer_section(question, (path[0], path[2]), "Sharding")  # only the page's title is named
    assert not names_outer_section(question, path[:2], "Sharding")  # its own section does not give the answer
    # a top-level section under a front-matter title is a section too, not the page
    nested = (Heading(0, "Harbour Storage"), Heading(1, "Access Modes"), Heading(2, "Volumes with sharding"))
    assert names_outer_section(question, nested, "Sharding")


def test_a_sentence_under_a_heading_that_names_its_answer_is_not_asked_in_the_section_around_it() -> None:
    from tests.evaluation.qgen_spacy import spacy_nlp

    from kgrag.evaluation.qgen.known_item import known_item_questions
    from kgrag.evaluation.qgen.placing import OUTER_SECTION

    intro = "# Harbour Services\n\n## Night Crossings\n\nThe harbour office in Vantry chose its tools in 2019.\n\n"
    sentence = "Lotte Brenner led the trial for the port authority of Selk.\n"

    def asked(subsection: str) -> tuple[set[str], int]:
        text = intro + subsection + sentence
        result = known_item_questions(
            [Passage("h#00000", "h", text, 0, "Harbour Services")], spacy_nlp(), ["known-item"], 20
        )
        return {q.question for q in result.items}, result.rejected[OUTER_SECTION]

    assert asked("### The Selk pier\n\n") == (set(), 1)  # "Night Crossings" would be named for a Selk section
    questions, refused = asked("### Ferries\n\n")
    assert refused == 0 and any(q.startswith("In the section “Ferries”") for q in questions)


def test_a_heading_holding_the_answer_s_gerund_or_its_base_gives_it_away() -> None:
    from kgrag.evaluation.qgen.scope import gives_answer

    assert gives_answer(Heading(2, "Why Pair Programming Helps Collaboration"), "Pairing")
    assert gives_answer(Heading(2, "Log files"), "Logging")
    assert gives_answer(Heading(2, "Running the ferry planner"), "run")
    assert gives_answer(Heading(2, "Things to add"), "Adding")
    assert not gives_answer(Heading(2, "Ad campaigns"), "Adding")  # "add" is not undoubled to "ad"
    assert not gives_answer(Heading(2, "Calendar"), "Calling")  # "call" keeps its double l


def test_a_later_top_heading_closes_the_title_that_the_first_one_gave() -> None:
    """A page of several ``#`` sections is titled by its first; the second is not a section of the first."""
    page = (
        "# Installation\n\nInstall the ferry planner with the harbour package manager.\n\n"
        "# Application\n\nThe planner object holds every crossing of the week.\n\n"
        "## Listening\n\nSeveral planners can be mounted on a single harbour server.\n"
    )
    passages = _chunks(page, title="Installation", size=16)
    listening = "Several planners can be mounted on a single harbour server."
    assert _above(passages, listening) == ["Application", "Listening"]
    assert _above(passages, "Install the ferry planner with the harbour package manager.") == ["Installation"]
    titled = _chunks(_PAGE, title="Harbour Services")  # a title given apart from the headings stays above them all
    assert _above(titled, "A return ticket to Tolvey costs twelve crowns.")[0] == "Harbour Services"
