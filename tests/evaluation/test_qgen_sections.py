"""A question names headings that fit one place of its corpus (:mod:`kgrag.evaluation.qgen.sections`): a
section heading many pages share ("Arguments") is named with the heading above it that tells its page apart,
a code name too, and a question whose headings fit one place, or that no heading can tell apart, keeps its
headings."""

from __future__ import annotations

from kgrag.documents.chunking import chunk_text
from kgrag.documents.tokens import TokenCounter
from kgrag.evaluation.qgen.cloze import Cloze, Passage
from kgrag.evaluation.qgen.placing import names, with_headings
from kgrag.evaluation.qgen.scope import DocumentHeadings, Heading, named_headings
from kgrag.evaluation.qgen.sections import SectionPlaces, distinct


def _component(name: str, argument: str, use: str) -> str:
    return f"""# {name}

`{name}` reads log lines from a source and hands them on.

## Usage

Point the component at a source.

## Arguments

The {argument} argument {use}.
"""


_SITE = {
    "tail.md": ("tail.sampler", "decision_wait", "sets how long the sampler waits for a trace before it decides"),
    "syslog.md": ("syslog.listener", "idle_timeout", "closes connections that have sent nothing for a while"),
    "kafka.md": ("kafka.reader", "group_id", "names the consumer group the reader joins on the brokers"),
}


def _passages(pages: dict[str, str]) -> list[Passage]:
    out = []
    for doc_id, text in pages.items():
        chunks = chunk_text(text, TokenCounter.for_encoding(), 40, 8)
        title = text.splitlines()[0].lstrip("# ")
        out += [Passage(f"{doc_id}#{c.ord}", doc_id, c.text, c.char_start, title) for c in chunks]
    return out


def _named_for(passages: list[Passage], sentence: str, answer: str, question: str) -> tuple[str, ...]:
    chunk = next(p for p in passages if sentence in p.text)
    cloze = Cloze(chunk.chunk_id, chunk.doc_id, sentence, answer, "THING", question, "t", (), 1.0)
    named = names([cloze], passages, DocumentHeadings(passages))
    return with_headings([cloze], named)[0].headings


def test_a_section_every_page_has_is_named_with_its_page_even_a_code_name() -> None:
    passages = _passages({doc: _component(*args) for doc, args in _SITE.items()})
    sentence = "The decision_wait argument sets how long the sampler waits for a trace before it decides."
    question = "The what argument sets how long the sampler waits for a trace before it decides?"
    assert _named_for(passages, sentence, "decision_wait", question) == ("tail.sampler", "Arguments")
    # the same page alone on its site: "Arguments" fits one place and is named alone, as before
    alone = _passages({"tail.md": _component(*_SITE["tail.md"])})
    assert _named_for(alone, sentence, "decision_wait", question) == ("Arguments",)


def test_a_page_section_shared_by_many_types_is_named_with_its_type() -> None:
    page = "# Field Reference\n\n" + "".join(
        f"## {kind}\n\nA {kind} describes one {what}.\n\n### Fields\n\nThe {field} field {use}.\n\n"
        for kind, what, field, use in (
            ("BudgetSpec", "budget", "minAvailable", "keeps that many pods up during an eviction"),
            ("ProbeSpec", "probe", "periodSeconds", "sets how often the kubelet runs the probe"),
        )
    )
    passages = _passages({"fields.md": page})
    sentence = "The periodSeconds field sets how often the kubelet runs the probe."
    question = "The what field sets how often the kubelet runs the probe?"
    assert _named_for(passages, sentence, "periodSeconds", question) == ("ProbeSpec", "Fields")


def _path(*texts: str) -> tuple[Heading, ...]:
    return tuple(Heading(level, text) for level, text in enumerate(texts))


def test_headings_no_other_heading_tells_apart_or_a_page_named_alone_are_kept() -> None:
    one, two = _path("Setup", "Known issues"), _path("Setup", "Known issues")  # one page in two versions
    pages = [Passage(f"{d}#0", d, "# Known issues\n\nBind mounts fail on macOS.", 0, "Setup") for d in ("v1", "v2")]
    places = SectionPlaces(DocumentHeadings(pages))
    assert places.count(one[1:]) == 2 and places.count(two) == 2
    question = "On macOS what fails?"
    named = named_headings(question, one, "Bind mounts")
    assert distinct(named, one, "Bind mounts", question, places) == named == one
    page = (Heading(1, "Setup"),)
    assert distinct(page, page, "Bind mounts", question, places) == page


def test_a_telling_heading_that_gives_the_answer_away_is_not_named() -> None:
    passages = _passages({doc: _component(*args) for doc, args in _SITE.items()})
    places = SectionPlaces(DocumentHeadings(passages))
    above = (Heading(0, "tail.sampler"), Heading(2, "Arguments"))
    question = "The decision_wait argument belongs to what?"
    named = named_headings(question, above, "tail.sampler")
    assert named == (above[1],)
    assert distinct(named, above, "tail.sampler", question, places) == named  # the page's name is the answer
    assert distinct(named, above, "decision_wait", question, places) == above
    elsewhere = (Heading(2, "Arguments"),)  # a heading not among those above: nothing to tell it apart by
    assert distinct(elsewhere, above, "decision_wait", question, places) == elsewhere


def _rfc(number: int, feature: str) -> str:
    return f"""# F# RFC FS-{number} - Support for {feature} in computation expressions and elsewhere

The design of {feature} is tracked here.

# Motivation

Adding {feature} to the Tolvey compiler fills a hole in the interop story of feature {number}.

# Detailed design

The compiler lowers {feature} early.
"""


def test_a_top_level_section_every_template_repeats_is_named_under_its_documents_number() -> None:
    """ "# Motivation" in every RFC: "In “Motivation”, …" read like a page and named none of them. It is a
    section of its RFC, whose title is too long to name but opens with its number."""
    features = ["ValueTask", "Spans", "Ranges", "Tuples", "Records", "Unions", "Slices"]
    passages = _passages({f"rfc-{i}.md": _rfc(1000 + i, f) for i, f in enumerate(features)})
    sentence = "Adding Spans to the Tolvey compiler fills a hole in the interop story of feature 1001."
    question = "Adding what to the Tolvey compiler fills a hole in the interop story of feature 1001?"
    assert _named_for(passages, sentence, "Spans", question) == ("F# RFC FS-1001", "Motivation")
    few = _passages({f"rfc-{i}.md": _rfc(1000 + i, f) for i, f in enumerate(features[:2])})
    assert _named_for(few, sentence, "Spans", question) == ("Motivation",)  # two documents: as before


def test_a_template_section_whose_title_cannot_be_named_keeps_its_heading() -> None:
    """Without a number to name a long title by, nothing tells "Motivation" apart: it stays named, as any section
    that no heading tells apart does; with the number, the RFC is named."""
    features = ["ValueTask", "Spans", "Ranges", "Tuples", "Records", "Unions", "Slices"]
    pages = {
        f"rfc-{i}.md": _rfc(1000 + i, f)
        .replace(f"F# RFC FS-{1000 + i} - ", "")
        .replace("elsewhere", "elsewhere in the parser, the checker and the code generator")
        for i, f in enumerate(features)
    }
    sentence = "Adding Spans to the Tolvey compiler fills a hole in the interop story of feature 1001."
    question = "Adding Spans to the what fills a hole in the interop story of feature 1001?"
    assert _named_for(_passages(pages), sentence, "Tolvey compiler", question) == ("Motivation",)
    numbered = _passages({f"rfc-{i}.md": _rfc(1000 + i, f) for i, f in enumerate(features)})
    assert _named_for(numbered, sentence, "Tolvey compiler", question) == ("F# RFC FS-1001", "Motivation")


def test_a_long_title_is_named_by_its_numbered_lead() -> None:
    from kgrag.evaluation.qgen.scope import shortened

    long = Heading(1, "F# RFC FS-1021 - Support Interop with ValueTask in Async Type and more besides")
    assert shortened(long).text == "F# RFC FS-1021"
    kep = Heading(1, "KEP-2104: Reworking the architecture of the proxy so that every backend shares one loop")
    assert shortened(kep).text == "KEP-2104"
    plain = Heading(1, "Support Interop with ValueTask in Async Type and many more words after it")
    assert shortened(plain) is plain  # no number: too long, not named
    assert shortened(Heading(2, long.text)).text == long.text  # only a title is shortened
