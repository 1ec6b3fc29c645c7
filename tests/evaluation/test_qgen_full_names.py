"""People the corpus names in full are asked "who" whatever one sentence's label says: a double-barrelled
name is a person's shape, a full name labelled a person across the corpus stays one where a sentence or its
words alone were labelled otherwise, and a first name that opens such a name is a person's; answers the
question spells out as an acronym with small letters or as two words are give-aways. Sentences written for
these tests, parsed with the real spaCy pipeline."""

from __future__ import annotations

from typing import Any

from tests.evaluation.qgen_spacy import entity_span, spacy_nlp

from kgrag.evaluation.qgen.answers import trusted_label
from kgrag.evaluation.qgen.first_names import NameList
from kgrag.evaluation.qgen.giveaway import acronym_given, joined_given
from kgrag.evaluation.qgen.labels import NameLabels, names_people, person_shaped
from kgrag.evaluation.qgen.lookups import Lookups
from kgrag.testing import fake_first_names

NO_LIST = Lookups()


def _labels(*texts: str) -> NameLabels:
    labels = NameLabels()
    for text in texts:
        labels.add(spacy_nlp()(text))
    return labels


def _span(text: str, answer: str) -> tuple[Any, Any]:
    span = entity_span(spacy_nlp()(text), answer)
    return span.sent, span


def test_a_double_barrelled_name_is_written_as_a_persons() -> None:
    for text, name in (
        ("The committee chair is Julien Richard-Foy of the Tolvey Center.", "Julien Richard-Foy"),
        ("In May 2020, Alexandre Morin-Chassé published a post about the chart.", "Alexandre Morin-Chassé"),
        ("Jean-Luc Picard reviewed the Tolvey ferry patch.", "Jean-Luc Picard"),
    ):
        _, span = _span(text, name)
        assert person_shaped(span), name
    for text, name in (
        ("The Tolvey API-Gateway routes every request.", "API-Gateway"),  # an acronym is no name part
        ("Ask Jean-Luc about the ferry.", "Jean-Luc"),  # one name, not a full name
    ):
        _, span = _span(text, name)
        assert not person_shaped(span), name


def test_a_double_barrelled_person_is_asked_who() -> None:
    """The hyphen used to make the name no person's shape, so spaCy's PERSON label was not trusted."""
    labels = _labels("Julien Richard-Foy opened the Tolvey meeting.", "The report was written by Julien Richard-Foy.")
    sent, span = _span("The committee chair is Julien Richard-Foy of the Tolvey Center.", "Julien Richard-Foy")
    assert span.label_ == "PERSON"
    assert trusted_label(span, sent, span.label_, labels, NO_LIST) == "PERSON"


def test_a_full_name_labelled_a_person_across_the_corpus_outweighs_its_first_word_alone() -> None:
    """spaCy labels "Yuito" alone an organisation once; the full name is a person in every other mention and
    no word of it is written in lower case, so the person stands."""
    texts = (
        "Yuito Murase worked under the mentorship of Nicolas Stucki on the macro system.",
        "Yuito Murase presented the new quotes at the Tolvey meetup.",
        "Yuito merged the patch into the Tolvey tree.",
    )
    labels = _labels(*texts)
    assert labels.words["yuito"]["PERSON"] == 0 and not labels.bears_out_person("Yuito Murase")
    assert labels.named_in_full("Yuito Murase")
    sent, span = _span(texts[0], "Yuito Murase")
    assert trusted_label(span, sent, span.label_, labels, NO_LIST) == "PERSON"


def test_a_product_named_like_a_person_is_not_named_in_full() -> None:
    """A name the corpus also writes in lower case is a product's ("docker swarm init")."""
    labels = _labels(
        "Docker Swarm exposes the desired state of the Tolvey services.",
        "Docker Swarm schedules the Tolvey tasks on every node.",
        "Run docker swarm init on the first node.",
    )
    assert not labels.named_in_full("Docker Swarm")


def test_a_first_name_opening_a_full_name_is_asked_who() -> None:
    """ "Amritpan" is in no list of first names; the corpus names her in full, and writes the word in lower
    case nowhere."""
    texts = (
        "Amritpan Kaur joined the Tolvey mentorship program in March.",
        "The Tolvey workgroup thanked Amritpan Kaur for the new keyword parser.",
    )
    labels = _labels(*texts)
    assert labels.opens_full_name("Amritpan")
    sent, span = _span("During the first weeks, Amritpan worked on the keyword parser.", "Amritpan")
    labels.add(sent.doc)
    label = span.label_ or "THING"
    assert trusted_label(span, sent, label, labels, Lookups(first_names=fake_first_names())) == "PERSON"
    lower = _labels(*texts, "Run amritpan --check before each Tolvey release.")
    lower.add(sent.doc)
    assert trusted_label(span, sent, label, lower, NO_LIST) != "PERSON"  # written in lower case: a program


def test_people_named_by_their_role_are_asked_who() -> None:
    for text, answer in (
        ("Attendees will learn techniques to unplug and recharge.", "Attendees"),
        ("Farmers may use video to assess the health of free-range chickens.", "Farmers"),
    ):
        _, span = _span(text, answer)
        assert names_people(span), answer


def test_an_acronym_with_small_letters_or_by_its_capitals_is_given_away() -> None:
    assert acronym_given("GSoC", "In “Announcing Google Summer of Code 2026”, what is a global program?")
    assert acronym_given("PyPI", "What does the Python Package Index host for every release?")
    assert not acronym_given("GitHub", "Where did the team go home after the release?")
    assert not acronym_given("PyPI", "Where are the Tolvey wheels uploaded?")


def test_an_acronym_of_the_capitals_of_the_words_around_it_is_given_away() -> None:
    """The capitals of a run of words spell the answer, also inside one word ("CodeStubAssembler") or after a
    hyphen ("Edwards-curve"); a name with a digit is a version, not an acronym."""
    assert acronym_given("EdDSA", "In “Edwards-curve Digital Signature Algorithm”, what signs the ferry logs?")
    assert acronym_given("JSPI", "In “Introducing the JavaScript Promise Integration API”, what suspends a task?")
    assert acronym_given("TSA", "In the section “Enter the TideStubAssembler”, what checks types at compile time?")
    assert not acronym_given("RESP3", "What is a superset of RESP2 that helps Tolvey client authors?")
    assert not acronym_given("FTS5", "In the section “FTS versions”, what is the only version with ranking?")
    assert not acronym_given("Tolvey", "What runs on the Tolvey Engine for each ferry?")


def test_a_one_word_answer_the_question_writes_as_two_is_given_away() -> None:
    assert joined_given("DataTrail", "In “Solutions for R4DS, 2e with Data Trail”, what is a no-cost program?")
    assert joined_given("FreeType", "FT2Font wraps a library called what, the free-type font engine?")
    assert not joined_given("Rust", "Which language do you trust for the ferry?")  # too short to tell
    assert not joined_given("GitHub Actions", "Which git hub actions run the tests?")  # not one word
    assert not joined_given("Dataset", "Which data loader reads the Tolvey files?")


def test_an_answer_in_braces_is_not_asked() -> None:
    """R's writers put a package's name in braces ("maintains {RAMEN}, for …"); asked in place, the question
    kept "{ what}"."""
    from kgrag.evaluation.qgen.defects import answer_defect

    text = "Marck Navarro maintains {RAMEN}, for identifying associations between exposures and outcomes."
    doc = spacy_nlp()(text)
    start = text.index("RAMEN")
    span = doc.char_span(start, start + len("RAMEN"))
    why = answer_defect(span, "RAMEN", "Marck Navarro maintains { what}, for identifying associations?", "ORG")
    assert why is not None and "brackets" in why


def test_a_name_the_corpus_describes_as_a_thing_is_asked_what() -> None:
    """spaCy labels a research language, a build tool and a game people; the corpus says what each is ("Verona
    is a research language"), so "who" would mislead wherever the name stands."""
    labels = _labels(
        "Corrin is a research language for exploring concurrent ownership.",
        "Tolvey members want the ideas from Corrin in the ferry runtime.",
        "Blaze was the inspiration for other build tools.",
        "Goodboy Galaxy is an exploration-focused platform game.",
        "Goodboy Galaxy raised its funding from backers.",
        "Ana Silva is a Principal Software Engineer at Quansight.",
        "Ana Silva wrote the first scheduler of the ferry planner.",
        "Tomas has been part of the Tolvey community for years.",  # no article: no kind of thing
        "Tomas is a wizard at planning ferries.",  # a noun of neither kind tells nothing
        "Tomas worked elsewhere, but Ana and Corrin were at the same ferry firm.",
    )
    names = NameList(["Corrin", "Blaze", "Ana", "Tomas"])  # first names by the list, as "Verona" may be
    for text, answer in (
        ("Tolvey members want the ideas from Corrin in the ferry runtime.", "Corrin"),
        ("Blaze originated from the challenges of managing a large monorepo.", "Blaze"),
        ("Goodboy Galaxy raised its funding from backers.", "Goodboy Galaxy"),
    ):
        sent, span = _span(text, answer)
        assert trusted_label(span, sent, "PERSON", labels, Lookups(first_names=names)) != "PERSON", answer
    assert labels.described_as_thing("Corrin") and not labels.described_as_thing("Ana Silva")
    assert not labels.described_as_thing("Tomas")
    for text, answer in (
        ("Ana Silva wrote the first scheduler of the ferry planner.", "Ana Silva"),
        ("Tomas worked elsewhere, but Ana and Corrin were at the same ferry firm.", "Tomas"),
    ):
        sent, span = _span(text, answer)
        assert trusted_label(span, sent, "PERSON", labels, Lookups(first_names=names)) == "PERSON", answer
