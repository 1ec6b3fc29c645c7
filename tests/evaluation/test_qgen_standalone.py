"""The stand-alone checks of LLM-free question generation: each rejects a question (or evidence sentence)
that a read of generated sets found unusable — the examples are the generator's own output on Medical,
Novel-58553 and Rust RFC text — and keeps a plain one; sentences are parsed with the real spaCy pipeline."""

from __future__ import annotations

from typing import Any

import pytest
from tests.evaluation.qgen_spacy import answer_span, spacy_nlp

from kgrag.evaluation.qgen.answers import well_formed
from kgrag.evaluation.qgen.defects import answer_defect, question_defect, sentence_defect
from kgrag.evaluation.qgen.fitness import wording_defect
from kgrag.evaluation.qgen.standalone import (
    clause_stands,
    computable,
    cut_sentence,
    label_number,
    misparsed,
    participle_opening,
    placement_defect,
    voice_defect,
)
from kgrag.evaluation.qgen.wording import ask_around, question_word


def _span(text: str, answer: str) -> Any:
    span = answer_span(text, answer)
    assert span is not None
    return span


@pytest.mark.parametrize(
    "question",
    [
        "I suppose what starts for Goshen next week?",
        "My hunch is that we can improve our what instead?",
        "From which organization we went on to Port Kent where Miss Waitt took the steamer for Burlington?",
        "Which product also supports final and override qualifiers?",
        "Fundamentally, however, Cargo is a ubiquitous tool among what?",
        "Some resigned; others were ordered elsewhere by what?",
        "[Professor Hall’s brother married which person.]?",
    ],
)
def test_questions_leaning_on_the_writer_or_the_text_around_them_are_rejected(question: str) -> None:
    assert voice_defect(question) is not None


def test_plain_questions_and_capitalised_look_alikes_are_kept() -> None:
    for question in (
        "What makes things silently virtual?",
        "The use of Pap smears has resulted in much lower rates of cervical cancer in what?",
        "How many US states use the I/O scheduler?",  # "US" is not "us", "I/O" is not "I"
    ):
        assert voice_defect(question) is None, question


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("You are encouraged to keep your what in the loop?", "possessive"),
        ("The outer, fourth layer is called what (or adventitia)?", "bracket"),
        ("A total of what number (root) crates are affected by the changes?", "bracket"),
        ("One day Mr. Hall saw what—short, thin?", "dash"),
        ("The CFG for example consolidates knowledge about control-flow into what of code?", "'of'"),
        ("Love in a cottage is sweeter when the cottage stands what quantity or more from the homes of relatives?",
         "'of'"),
        ("What that’s related to primary CNS lymphoma requires specialized care?", "relative"),
        ("In November, the Halls bought the Captain Peters’ place, No. how many Gay Street, Georgetown?", "label"),
        ("Simply implementing the naive fix for # what quantity?", "label"),
        ("The eldest son was sent regularly to what in Washington; but a quarrel arising in the church?",
         "semicolon"),
        ("The short version: spend, keep your receipts, and submit your claim in how long?", "colon"),
    ],
)  # fmt: skip
def test_question_words_where_a_reader_cannot_use_them_are_rejected(question: str, reason: str) -> None:
    why = placement_defect(question)
    assert why is not None and reason in why


def test_question_words_in_plain_places_are_kept() -> None:
    for question in (
        "Cancer often develops by what age in people with classic FAP?",
        "The submucosa is followed by a layer of muscle called what?",
        "Which year did the survey at https://example.org start?",
    ):
        assert placement_defect(question) is None, question


def test_an_answer_computed_from_the_questions_numbers_is_rejected() -> None:
    assert computable("46", "Normal human cells contain 23 pairs of chromosomes for a total of how many?")
    assert computable("23", "Normal human cells contain how many pairs of chromosomes for a total of 46 chromosomes?")
    assert computable("12", "Of 20 patients, 8 stopped early; how many finished?")
    assert computable("40", "Of the affected crates, what number are receiving future compatibility warnings?") is None
    assert computable("about two dozen", "How many root regressions were found in 2 runs?") is None


def test_a_number_that_labels_something_is_not_asked_as_an_amount() -> None:
    assert label_number(_span("The protocol that RFC 809 specifies works the same way.", "809"))
    assert label_number(_span("The Halls bought the place at No. 18 Gay Street.", "18"))
    assert label_number(_span("A total of 43 crates are affected by the changes.", "43")) is None
    # the label itself, asked in front of its number ("per what 800-38D?"), as generated from the Node.js docs
    assert label_number(_span("Authentication tags of other lengths are invalid per NIST SP 800-38D.", "NIST SP"))
    assert label_number(_span("Returns an array formatted according to RFC 5952 for DNS resolution.", "RFC"))
    assert label_number(_span("Installation on other Linux distributions works like Ubuntu does.", "Ubuntu")) is None


def test_a_sentence_cut_inside_a_dotted_name_is_not_evidence() -> None:
    # the Node.js docs: "such as Intl.DateTimeFormat may be fully or partially supported, …"
    doc = spacy_nlp()("Features that require data, such as Intl.DateTimeFormat may be fully or partially supported.")
    cut = [cut_sentence(s) for s in doc.sents]
    assert len(cut) == 2 and all(c is not None for c in cut)  # the small model splits after "Intl."
    whole = spacy_nlp()("Installation on other Linux distributions works similarly to installing on Ubuntu.")
    assert all(cut_sentence(s) is None for s in whole.sents)


def test_cleaning_keeps_underscores_inside_names() -> None:
    from kgrag.evaluation.qgen.cloze import clean

    line = "- The `FORCE_COLOR` variable and **SCHED_RR** _may_ be set with *care*."
    assert clean(line) == "The FORCE_COLOR variable and SCHED_RR may be set with care."


def test_cleaning_keeps_a_code_span_as_written() -> None:
    from kgrag.evaluation.qgen.cloze import clean

    line = "The main ``CHANGELOG-*`` files, `__invoke()` and `*/*/*.log` are *kept* as written, `` ` `` too."
    assert clean(line) == "The main CHANGELOG-* files, __invoke() and */*/*.log are kept as written, ` too."
    # text a loader has already rendered (no backticks left): only paired emphasis marks around words go
    rendered = "Logs in /var/log/pods/*/*/*.log, CHANGELOG-* files, __init__ and 2 * 3 are **kept**, _as_ written."
    assert (
        clean(rendered)
        == "Logs in /var/log/pods/*/*/*.log, CHANGELOG-* files, __init__ and 2 * 3 are kept, as written."
    )


def test_a_question_opening_with_a_name_keeps_its_capital_after_a_heading_lead() -> None:
    from kgrag.evaluation.qgen.scope import opens_with_name

    def opens(question: str, text: str) -> bool:
        return opens_with_name(question, next(iter(spacy_nlp()(text).sents)))

    assert opens("OSS-Fuzz found what?", "OSS-Fuzz found 12 memory bugs in the Quillon parser last year.")
    assert opens("UUIDs are what?", "UUIDs are universally unique identifiers of the Quillon framework.")
    assert opens("Brightwater's cache keeps what?", "Brightwater's cache keeps every sample of the Oslo cluster.")
    assert not opens("The default is what?", "The default is 30 seconds for the whole Oslo cluster.")
    assert opens("“Brightwater” keeps what?", "“Brightwater” keeps every sample of the Oslo cluster.")  # after a quote
    assert opens("Mr. Kennon had been a neighbour in which city?", "Mr. Kennon had been a neighbour in Boston.")


def test_a_sentence_cut_at_an_abbreviation_or_without_a_main_clause_is_rejected() -> None:
    nlp = spacy_nlp()
    cut = next(nlp("A year after the war broke out, the staff of workers at the U.S.").sents)
    assert cut_sentence(cut) is not None and "abbreviation" in (cut_sentence(cut) or "")
    sub = next(nlp("Since so much of the semantics of Rust are embedded in the trans step which converts to IR.").sents)
    assert cut_sentence(sub) is not None and "subordinate" in (cut_sentence(sub) or "")
    whole = next(nlp("Stool exits the body through the stoma and enters a bag attached to the skin.").sents)
    assert cut_sentence(whole) is None


def test_a_participle_cut_from_the_middle_of_a_sentence_is_rejected() -> None:
    text = (
        "Add a new function attribute to the language, #[naked], indicating the function should have "
        "prologue/epilogue emission disabled."
    )
    span = _span(text, "prologue/epilogue emission")
    why = participle_opening(span.sent, span)  # "Indicating the function should have what disabled?"
    assert why is not None and "participle" in why
    gerund = _span("Using Spec on i32 will not trigger the lint, because the specialization is justified.", "Spec")
    assert participle_opening(gerund.sent, gerund) is None  # a gerund subject opening its own sentence


def test_a_clause_is_asked_alone_only_when_it_has_a_finite_verb_and_a_subject() -> None:
    doc = spacy_nlp()("The attribute was added to the language, indicating the function should have emission disabled.")
    indicating = next(t for t in doc if t.text == "indicating")
    assert not clause_stands(doc[indicating.left_edge.i : indicating.right_edge.i + 1])
    have = next(t for t in doc if t.text == "have")
    assert clause_stands(doc[have.left_edge.i : have.right_edge.i + 1])


def test_a_prepositions_object_parsed_as_a_subject_is_rejected() -> None:
    span = _span("During the Bergen summer season hotels fill up early, so book at least four weeks ahead.", "Bergen")
    noun = span.doc[span.start : next(t.i for t in span.doc if t.text == "hotels") + 1]
    assert misparsed(noun) is not None
    plain = _span("Stool exits the body through the stoma.", "Stool")
    assert misparsed(plain) is None


def test_a_place_name_modifying_a_noun_is_not_an_answer() -> None:
    span = _span(
        "In Georgetown Angeline Hall trained her sons with entire freedom from New England educational fads.",
        "New England",
    )
    assert not well_formed(span, "LOC")
    assert well_formed(_span("Mr. Hall had looked to New England as a fitter place to live.", "New England"), "LOC")


def test_an_answer_that_is_a_list_is_rejected() -> None:
    span = _span("Common cycles are 14, 21, or 28 days long.", "14, 21")
    assert answer_defect(span, "14, 21", "Common cycles are what date, or 28 days long?", "DATE") is not None


def test_one_of_several_after_a_comma_and_a_cut_subordinate_opener_are_rejected() -> None:
    span = _span("Common cycles are 14, 21, or 28 days long.", "28 days")
    assert wording_defect(span, "Common cycles are 14, 21, or how long long?") is not None
    assert question_defect("When, in what date, Nellie was seized with a fatal illness?") is not None
    assert question_defect("Since the war began, the staff moved to what?") is not None


def test_names_other_than_people_are_asked_with_what_and_an_age_with_what_age() -> None:
    assert question_word("ORG", "PS 4", "VERB", False, True) == "What"
    assert question_word("GPE", "Nellie", "", True, False) == "what"
    assert question_word("PERSON", "Mary Gilman", "", False, True) == "Who"
    assert question_word("DATE", "age 44", "", True, False) == "what age"


def test_a_term_or_year_that_names_the_noun_after_it_is_not_an_answer() -> None:
    survey = "GitHub's 2017 Open Source Survey showed incomplete documentation is the biggest problem."
    assert not well_formed(_span(survey, "2017"), "DATE")  # "GitHub's which year Open Source Survey …?"
    fund = "FLOSS/fund is a dedicated fund to provide no-strings attached financial support to FOSS projects globally."
    assert not well_formed(_span(fund, "FOSS"), "THING")  # "… support to what projects globally?"
    count = "Exercism is a programming exercise platform with over 350 contributors."
    assert well_formed(_span(count, "over 350"), "CARDINAL")  # "how many contributors" is a count, kept


def test_a_verb_sharing_its_object_with_the_next_is_not_cut_from_it() -> None:
    text = "PVR enables maintainers to receive and address vulnerability reports, all within the GitHub platform."
    doc = spacy_nlp()(text)
    question, _, _ = ask_around(doc[:], doc[0:1], "THING")
    assert "receive and address vulnerability reports" in question  # not "to receive, all within …"
    other = "Vendor pricing was based on stored data points, and keeping raw telemetry made the cost grow fast."
    doc = spacy_nlp()(other)
    question, _, _ = ask_around(doc[:], doc[0:2], "THING")
    assert "keeping" not in question  # a side clause with its own complement is still left out


def test_a_question_cut_from_a_why_or_how_clause_is_rejected() -> None:
    assert question_defect("Why a voting system doesn't exist for what?") is not None
    assert question_defect("Part of the reason is that Atom Issues have no vote for what?") is None


@pytest.mark.parametrize(
    "text",
    [
        "sudo dnf install procps-ng curl file",
        "HOMEBREW_NO_AUTO_UPDATE=1 brew bundle exec bundle exec rake lint",
        "See Support Tiers for unsupported multi-user environments.",
        "timely responses in Slack, pulling weight on shared project tasks",
    ],
)
def test_command_lines_cross_references_and_list_fragments_are_not_evidence(text: str) -> None:
    assert sentence_defect(next(iter(spacy_nlp()(text).sents))) is not None


def test_plain_sentences_are_evidence() -> None:
    for text in (
        "Homebrew retains analytics events in InfluxDB for 365 days.",
        "iOS builds are signed by the release team before every upload.",
    ):
        assert sentence_defect(next(iter(spacy_nlp()(text).sents))) is None, text


def test_a_duration_in_quarters_is_asked_how_long() -> None:
    assert question_word("DATE", "two consecutive quarters", "", True, False) == "how long"


def test_a_possessive_or_a_sentence_adverb_inside_the_answer_is_no_whole_answer() -> None:
    asgi = "One notable difference is that the latter's HTTP send event defines the status as an int code."
    assert not well_formed(_span(asgi, "latter's HTTP"), "THING")  # a possessive cut from its noun
    logging = "Fortunately Tolvey uses the normal Python approach to logging."
    assert not well_formed(_span(logging, "Fortunately Tolvey"), "ORG")
    assert well_formed(_span("Tolvey uses the normal Python approach to logging.", "Tolvey"), "ORG")
    assert well_formed(_span("The thread pool holds only 40 tokens by default.", "only 40"), "CARDINAL")
