"""A question that leans on the sentences around its source, or whose answer is cut from its noun phrase,
is refused: each rule of :mod:`kgrag.evaluation.qgen.referents`, on questions and sentences written for
these tests (the span rules parsed with the real spaCy pipeline)."""

from __future__ import annotations

from typing import Any

from tests.evaluation.qgen_spacy import answer_span, brightwater_case, spacy_nlp

from kgrag.evaluation.qgen.cloze import Passage, Rarity, candidate_spans, make_cloze
from kgrag.evaluation.qgen.referents import (
    cut_modifier,
    markup_residue,
    name_cut,
    open_comparison,
    pointed_span,
    pointer_opening,
    postmodified_span,
    second_question_word,
    sequence_adverb,
)


def _sent_span(text: str, answer: str) -> tuple[Any, Any]:
    span = answer_span(text, answer)
    return span.sent, span


def test_an_adverb_placing_the_question_after_the_text_before_is_refused() -> None:
    assert sequence_adverb("Any waiting Tamsin jobs are then released to what?")
    assert sequence_adverb("A Quillon transform then walks the document to build what?")
    assert sequence_adverb("Alternatively, what formats Quillon files on save?")
    assert sequence_adverb("In the meantime, what received the Brightwater job?")


def test_a_discourse_marker_tying_the_question_to_the_text_around_it_is_refused() -> None:
    for question in (
        "As a result, the Tamsin cache now retains what percentage of the history records?",
        "What for example proposes an end-to-end framework for the Quillon supply chain?",
        "Indeed, utilizing what for forwarding Tamsin alerts saves resources?",
        "Warning, what will apply translations to requests coming from dual-stack clients?",
        "On the other hand, Quillon keeps resolved paths untouched in what?",
        "What is deprecated, as explained on the Brightwater page?",
        "In that case, Tamsin runs the job until the successful trials reach what?",
        "If so, what restarts the Quillon workers?",
        "In such a case, what restarts the Quillon workers?",
        "Either way, instrumenting your code with what seems the right approach?",
        "That said, Quillon keeps resolved paths untouched in what?",
        "By contrast, what restarts the Quillon workers?",
        "Luckily, what provides a serialization API for the Quillon interceptor?",
        "Lastly, what restarts the Quillon workers?",
        "In the Tamsin loader, most notably, what does not allow the serialization of blocks?",
    ):
        assert sequence_adverb(question), question
    for question in (
        "What writes the Tamsin cache to disk every night?",
        "What keeps a note of every Quillon release in the ledger?",  # "note" inside the question
        "Which example ships with the Tamsin installer?",
        "In what case does Tamsin restart the Quillon workers?",  # the question's own case
        "In those cases where Quillon fails, what restarts the Tamsin workers?",  # the case is stated
        "In this case study, what restarts the Tamsin workers?",
        "In contrast to Quillon, what restarts the Tamsin workers?",  # the comparison is stated
        "What luckily survives a Quillon restart?",  # not opening the question
    ):
        assert sequence_adverb(question) is None, question


def test_then_after_the_question_s_own_condition_is_kept() -> None:
    assert sequence_adverb("If the Tamsin cache is full, then what evicts the oldest entry?") is None
    assert sequence_adverb("When a Quillon node fails, what then takes over its shards?") is None
    assert sequence_adverb("What writes the Tamsin cache to disk every night?") is None


def test_the_term_of_a_comparison_is_not_asked() -> None:
    assert open_comparison("Quillon buffers output in a different manner than what?")
    assert open_comparison("Tamsin updates the tree more efficiently than which library?")
    assert open_comparison("What is faster than the Quillon parser on large files?") is None


def test_an_angle_bracket_left_in_the_question_is_refused() -> None:
    assert markup_residue("The API converts from < what> to wide strings?")
    assert markup_residue("What converts Quillon records to wide strings?") is None


def test_a_participle_modifying_the_span_is_not_carried_by_the_question_word() -> None:
    assert postmodified_span(
        answer_span("Bytecode executed by a Quillon not running in debug mode may crash.", "Quillon")
    )
    assert postmodified_span(answer_span("The result is the Tamsin layout shown earlier.", "Tamsin layout"))


def test_a_participle_before_a_noun_or_a_span_at_the_end_is_kept() -> None:
    assert postmodified_span(answer_span("Quillon is an MIT licensed open source project.", "MIT")) is None
    assert postmodified_span(answer_span("The Quillon scheduler runs nightly jobs in Oslo.", "Oslo")) is None


def test_a_name_cut_from_its_noun_phrase_is_refused() -> None:
    assert name_cut(answer_span("The Writer translates from the Quillon tree to the target format.", "Quillon"))
    # the tagger reads the noun after the name as a verb with no subject of its own
    assert name_cut(answer_span("The Writer translates from the Docutils doctree structure to HTML.", "Docutils"))


def test_a_whole_name_or_an_amount_is_kept() -> None:
    assert name_cut(answer_span("Each node of the syntax tree is defined by the ASDL in the parser.", "ASDL")) is None
    assert name_cut(answer_span("After the Reader has finished, the Publisher calls the transforms.", "Reader")) is None
    assert name_cut(answer_span("Results were shared at the 2017 survey meeting in Oslo.", "2017")) is None


def test_the_generator_refuses_a_question_that_leans_on_the_sentence_before() -> None:
    text = "Waiting threads of the Tamsin runtime are then handed over to Brightwater for scheduling."
    passage, sent, span, rarity = brightwater_case(text)
    assert make_cloze(passage, sent, span, "ORG", rarity) == sequence_adverb("are then handed over to what?")
    passage, sent, span, rarity = brightwater_case(text.replace(" then", ""))
    kept = make_cloze(passage, sent, span, "ORG", rarity)
    assert not isinstance(kept, str) and kept.answer == "Brightwater"


def test_a_question_word_of_the_sentence_s_own_is_refused() -> None:
    text = "Quillon began as an exploration of what the next version of Tamsin could look like."
    sent, span = _sent_span(text, "Tamsin")
    assert second_question_word(sent, span)
    text = "The Quillon guide shows how Brightwater jobs are scheduled on the Oslo cluster."
    assert second_question_word(*_sent_span(text, "Brightwater"))
    text = "The Quillon guide shows that Brightwater jobs are scheduled on the Oslo cluster."
    assert second_question_word(*_sent_span(text, "Brightwater")) is None


def test_an_answer_after_a_demonstrative_is_the_text_pointing_not_a_name() -> None:
    assert pointed_span(answer_span("Running the Quillon broker is outside the scope of this guide.", "guide"))
    assert pointed_span(answer_span("In fact, Tamsin creates this Brightwater instance at start-up.", "Brightwater"))
    assert (
        pointed_span(answer_span("Running the Quillon broker is outside the scope of the Tamsin guide.", "Tamsin"))
        is None
    )
    assert pointed_span(answer_span("The Quillon broker was written in Oslo in 2019.", "Oslo")) is None


def test_an_amount_keeps_its_own_modifier() -> None:
    assert cut_modifier(answer_span("Over 20 participants took part in the Quillon sprint in Oslo.", "20"))
    assert cut_modifier(answer_span("The Tamsin archive holds about 300 maps of the coast.", "300"))
    assert cut_modifier(answer_span("The Tamsin archive holds 300 maps of the coast.", "300")) is None
    # a preposition before a name is the question's own, not the answer's modifier
    assert cut_modifier(answer_span("The Quillon team won over Brightwater in the final.", "Brightwater")) is None


def test_a_sentence_pointing_at_the_text_after_it_is_refused() -> None:
    assert pointer_opening(answer_span("Below is the schema used by Tamsin to validate the report.", "Tamsin").sent)
    assert pointer_opening(answer_span("Here are the three settings Quillon reads at start-up.", "Quillon").sent)
    sent = answer_span("The schema below is used by Tamsin to validate the report.", "Tamsin").sent
    assert pointer_opening(sent) is None


def test_the_generator_refuses_a_pointer_answer_and_keeps_a_name() -> None:
    pointing = "Running the Quillon broker is outside the scope of this Tamsin handbook for operators."
    named = "Running the Quillon broker is outside the scope of the Tamsin handbook for operators."
    asked = {}
    for text in (pointing, named):
        passage = Passage("c1", "d1", text)
        sent = next(iter(spacy_nlp()(text).sents))
        rarity = Rarity([passage, Passage("c2", "d2", "The Quillon broker runs nightly jobs in Oslo.")])
        spans = {span.text: (span, label) for span, label in candidate_spans(sent)}
        span, label = spans.get("Tamsin handbook") or spans["Tamsin"]
        asked[text] = make_cloze(passage, sent, span, label, rarity)
    assert isinstance(asked[pointing], str) and "demonstrative" in asked[pointing]
    assert "demonstrative" not in str(asked[named])
