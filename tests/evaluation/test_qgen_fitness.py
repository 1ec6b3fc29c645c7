"""The fitness checks of LLM-free question generation: each rejects the kind of question a blind read found
unusable and keeps a plain one, on sentences parsed with the real spaCy pipeline and corpus counts from
real passages."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from tests.evaluation.qgen_spacy import answer_span, spacy_nlp

from kgrag.evaluation.qgen.cloze import Passage, Rarity
from kgrag.evaluation.qgen.fitness import ambiguous, fragment_defect, guessable, leaning_defect, wording_defect
from kgrag.evaluation.qgen.known_item import pick_known_items

_CORPUS = [
    "Lymph travels through small bean nodes in the neck.",
    "The shaped tracer binds to the bean nodes after injection.",
    "Radiation is given Monday through Friday for five weeks.",
    "Clinics are open Monday through Friday in most towns.",
    "Staff work Monday through Friday at the hospital.",
    "Urinary incontinence is common after surgery for prostate cancer.",
    "Avelumab is given every 2 weeks to people with Merkel cell carcinoma.",
    "Avelumab is given every 3 weeks to people in the Javelin trial.",
    "The shaped beam treats the tumor from several angles.",
    "Bean sized nodes can swell during an infection.",
    "Some men have urinary incontinence after surgery.",
    "Pelvic floor exercise helps with urinary control.",
]


@cache
def _rarity() -> Rarity:
    return Rarity([Passage(f"c{i}", "d", text) for i, text in enumerate(_CORPUS)])


def _sent(text: str) -> Any:
    return next(iter(spacy_nlp()(text).sents))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Blood tests Imaging tests Biopsy Immunophenotyping Testing for biomarkers Key points Treatment starts.",
         "capitalised words"),
        ("Watery stool Urinary incontinence and urgency are also possible after radiation therapy.",
         "capitalised words"),
        ("Some important tests in a panel are: Liver function test looks at enzymes made by the liver.", "colon"),
        ("As lymph travels, it passes through hundreds of small beanshaped structures called nodes.",
         "run together"),
        ("Your multidisciplinary team and the specialists and care providers for your cancer.", "fragment"),
        ("Cancers 3 mm or smaller are stage 1ACancers between 3 and 5 mm are stage 1B.", "run together"),
        ("And in February, 1842, he died among strangers in a hospital at Rochester.", "joining word"),
        ("Platform | Rui Carvalho | Any member of the security team approves it", "table row"),
    ],
)  # fmt: skip
def test_evidence_that_is_not_one_well_formed_sentence_is_rejected(text: str, reason: str) -> None:
    why = fragment_defect(_sent(text), _rarity())
    assert why is not None and reason in why


def test_well_formed_sentences_are_kept() -> None:
    for text in (
        "Fewer than 1 out of 20 people with bladder cancer are eligible for a partial cystectomy.",
        "Try to exercise at a moderate intensity for at least 150 minutes per week.",
        "Asaph Hall worked for Peter Bogart during his early career as a carpenter.",
        "Over-the-counter ointments like Aquaphor can soothe the skin and help with healing.",
    ):
        assert fragment_defect(_sent(text), _rarity()) is None, text


def test_questions_that_lean_on_a_referent_outside_them_are_rejected() -> None:
    assert leaning_defect("You'll probably need to empty it more often at first, maybe how often?") is not None
    assert leaning_defect("In this case, your doctor may decide to perform it less often than how long?") is not None
    assert leaning_defect("Treatment with both types of radiation can be completed within how long?") is not None
    assert leaning_defect("And in February, he died in a hospital at which place?") is not None
    assert leaning_defect("What is a compromise among the following considerations?") is not None
    assert leaning_defect("Yes, the Quillon saving process is always forked, so every command is atomic in what?")
    assert leaning_defect("No. Tamsin is what percentage free to use for every crew?") is not None  # an FAQ's answer
    assert leaning_defect("Keep in mind that what is the add to set operation of Tamsin?") is not None
    assert leaning_defect("The cache holds the records listed below for how long?") is not None
    assert leaning_defect("What is the most widely used async runtime in Quillon today?") is None
    assert leaning_defect("Water above what temperature scalds a child within seconds?") is None
    assert leaning_defect("Which person worked for Peter Bogart during his early career?") is None
    assert leaning_defect("In adults, the bladder can hold how many cups of urine?") is None


@pytest.mark.parametrize(
    ("text", "answer", "question", "reason"),
    [
        ("Vaccination is now an option for adults aged 45 years and under.", "45 years",
         "Vaccination is now an option for adults aged how long and under?", "age"),
        ("Side effects during the 5 to 6 weeks of radiation treatment include redness.", "the 5 to 6 weeks",
         "Side effects during how long of radiation treatment include redness?", "duration"),
        ("Radiation is given for 5 weeks (25 to 30 treatment sessions) in most cases.", "25",
         "Radiation is given for 5 weeks (what number to 30 treatment sessions) in most cases?", "range"),
        ("Over-the-counter ointments like Aquaphor or Silvadene can soothe the skin.", "Aquaphor",
         "Over-the-counter ointments like what or Silvadene can soothe the skin?", "one of several"),
        ("Trodelvy latches onto the protein Trop-2 on cancer cells.", "Trop-2",
         "Trodelvy latches onto the protein what on cancer cells?", "common noun"),
        ("Besides, the famous mathematician Benjamin Peirce taught at Harvard.", "Benjamin Peirce",
         "Besides, the famous mathematician which person taught at Harvard?", "common noun"),
        ("Osteosarcoma, Ewing sarcoma, and chondrosarcoma are the most common bone cancers.", "Osteosarcoma",
         "What, Ewing sarcoma, and chondrosarcoma are the most common bone cancers?", "one of several"),
        ("From the top of the ridge, Mt. Monadnock is clearly seen.", "Mt. Monadnock",
         "From the top of which which location is clearly seen?", "doubled"),
        ("Primary mediastinal lymphomas are discussed in Chapter MGZL of this book.", "Chapter MGZL",
         "Primary mediastinal lymphomas are discussed in what of this book?", "part of the document"),
        ("X25519 is one of the smaller NIST approved key agreement schemes in use today.", "NIST",
         "X25519 is one of the smaller what approved key agreement schemes in use today?", "inside a noun phrase"),
        ("The other 20% of traffic goes to the canary release.", "20%",
         "The other what percentage of traffic goes to the canary release?", "adjective of its own"),
        ("A lot of Ruby scripts run long blocking loops.", "Ruby scripts",
         "A lot of what run long blocking loops?", "quantity"),
    ],
)  # fmt: skip
def test_question_words_that_do_not_fit_are_rejected(text: str, answer: str, question: str, reason: str) -> None:
    why = wording_defect(answer_span(text, answer), question)
    assert why is not None and reason in why


def test_fitting_question_words_are_kept() -> None:
    text = "The dose is instilled for 24 hours after surgery."
    assert wording_defect(answer_span(text, "24 hours"), "The dose is instilled for how long after surgery?") is None
    text = "Kubernetes mounts a ServiceAccount token volume into each Pod."  # "what" takes the article's place
    question = "Kubernetes mounts what token volume into each Pod?"
    assert wording_defect(answer_span(text, "ServiceAccount"), question) is None
    text = "Most ferry archives have a data size greater than 10 TB."  # a unit after its number is asked
    question = "Most ferry archives have a data size greater than 10 what?"
    assert wording_defect(answer_span(text, "TB"), question) is None
    text = "Try to exercise at a moderate intensity for at least 150 minutes per week."
    assert wording_defect(answer_span(text, "at least 150 minutes"), "Try to exercise for how long per week?") is None


def test_answers_told_without_the_text_are_guessable() -> None:
    text = "Radiation is given Monday through Friday for five weeks."
    assert guessable(answer_span(text, "Friday"), "Friday", _rarity()) is not None  # a weekday
    text = "The shaped beam treats the tumor from several angles."
    assert guessable(answer_span(text, "tumor"), "tumor", _rarity()) is None
    text = "Many clinics stay open from Monday through June on weekdays."
    assert guessable(answer_span(text, "June"), "June", _rarity()) is not None


def test_the_corpus_continuation_is_guessable_and_a_rare_one_is_not() -> None:
    rarity = Rarity([Passage(f"c{i}", "d", f"Patients take folic acid daily in trial {i}.") for i in range(4)])
    text = "Patients take folic acid daily in trial 9."
    assert guessable(answer_span(text, "acid"), "acid", rarity) is not None  # "take folic" is always followed by "acid"
    rarity = Rarity([Passage(f"c{i}", "d", f"Patients take folic {w} daily.") for i, w in enumerate("abcd")])
    assert guessable(answer_span(text, "acid"), "acid", rarity) is None


def test_a_question_another_passage_could_answer_differently_is_ambiguous() -> None:
    rarity = _rarity()
    question = "Avelumab is given how often to people with Merkel cell carcinoma?"
    assert ambiguous("Avelumab is given how often to people?", "every 2 weeks", "c6", rarity) is not None
    assert ambiguous(question, "every 2 weeks", "c6", rarity) is None  # "Merkel" is only in c6


def test_near_duplicate_evidence_is_asked_once() -> None:
    from kgrag.evaluation.qgen.cloze import Cloze

    def cloze(chunk: str, question: str, sentence: str) -> Cloze:
        return Cloze(chunk, "d", sentence, "20", "CARDINAL", question, "in-place:cardinal", (), 1.0)

    same = "Fewer than 1 out of 20 people with bladder cancer are eligible for a partial cystectomy."
    a = cloze("c1", "Fewer than 1 out of how many people with bladder cancer are eligible?", same)
    b = cloze("c2", "How many people with bladder cancer are eligible for a partial cystectomy?", same)
    c = cloze("c3", "Avelumab is given every how many weeks?", "Avelumab is given every 20 weeks to people.")
    import random

    kept = pick_known_items([a, b, c], 3, random.Random(0), 0.8)
    assert len(kept) == 2 and c in kept


def test_a_year_is_asked_which_year() -> None:
    from kgrag.evaluation.qgen.wording import question_word

    assert question_word("DATE", "1767", "", True, False) == "which year"
    assert question_word("DATE", "42", "", True, False) == "what number"
    assert question_word("CARDINAL", "2.4.0", "", True, False) == "which version"  # a release, not a number
    assert question_word("DATE", "v3", "", False, True) == "Which version"
    assert question_word("CARDINAL", "2.5", "", True, False) == "what number"  # a decimal stays a number
    assert question_word("DATE", "4.0", "", True, False) == "which version"  # no date is written so
    assert question_word("CARDINAL", "3.9", "", True, False, "since") == "which version"
    assert question_word("CARDINAL", "4.6+", "", True, False) == "which version"
    assert question_word("CARDINAL", "8.x", "", True, False) == "which version"  # a release line
    assert question_word("CARDINAL", "2.5", "NOUN", True, False, "since") == "how many"  # "since 2.5 hours"
    assert question_word("CARDINAL", "4.2", "", True, False, "kestrel", after_name=True) == "which version"
    assert question_word("CARDINAL", "4.2", "NOUN", True, False, "kestrel", after_name=True) == "how many"


def test_a_question_word_opening_a_cut_phrase_is_rejected() -> None:
    text = "For a brain MRI, a device is placed around your head."
    assert "opens a phrase" in (wording_defect(answer_span(text, "brain MRI"), "For what, a device is placed?") or "")
    assert wording_defect(answer_span(text, "brain MRI"), "A device is placed around your head for what?") is None


def test_an_opening_phrase_left_uninverted_is_rejected() -> None:
    # the Prometheus docs: "Every 6 weeks, a new Prometheus minor release cycle begins."
    text = "Every 6 weeks, a new Prometheus minor release cycle begins."
    why = wording_defect(answer_span(text, "Every 6 weeks"), "How often, a new Prometheus minor release cycle begins?")
    assert "not inverted" in (why or "")
    text = "After 2 hours, the WAL will be compacted and data that has not been sent will be lost."
    assert wording_defect(answer_span(text, "2 hours"), "After how long, the WAL will be compacted?")
    # a fronted subject followed by an apposition reads, and a question word later in the question is no opener
    text = "Ravi Shah joined in 2024, the team's only new hire that year."
    assert (
        wording_defect(answer_span(text, "Ravi Shah"), "Who joined in 2024, the team's only new hire that year?")
        is None
    )
    text = "In 2020, CNCF sponsored a second audit by cure53 of Node Exporter."
    question = "In 2020, what sponsored a second audit by cure53 of Node Exporter?"
    assert wording_defect(answer_span(text, "CNCF"), question) is None


def test_a_fronted_question_word_agrees_with_its_verb() -> None:
    from kgrag.evaluation.qgen.wording import ask_around, singular_verb

    assert [singular_verb(v) for v in ("study", "test", "reach", "have", "go")] == [
        "studies", "tests", "reaches", "has", "goes"
    ]  # fmt: skip
    doc = spacy_nlp()("Phase 4 trials study the long-term safety of an approved treatment.")
    sent = next(iter(doc.sents))
    question, _, _ = ask_around(sent, doc[0:3], "THING")
    assert question == "What studies the long-term safety of an approved treatment?"
    doc = spacy_nlp()("Placebos are almost never used alone in cancer clinical trials.")
    question, _, _ = ask_around(next(iter(doc.sents)), doc[0:1], "THING")
    assert question.startswith("What are almost never used")


def test_a_question_ending_in_an_aside_after_a_joining_word_is_cut() -> None:
    text = (
        "Crossing rules in Tidewright keep the planner simple without losing detail and, at the same time, "
        "give the harbour office a way to override them."
    )
    cut = "What keep the planner simple without losing detail and, at the same time?"
    why = wording_defect(answer_span(text, "Tidewright"), cut)
    assert why is not None and "aside after a joining word" in why
    whole = "Crossing rules in what keep the planner simple, and the harbour office can override them?"
    assert wording_defect(answer_span(text, "Tidewright"), whole) is None


def test_the_verb_opening_an_imperative_is_no_answer() -> None:
    from kgrag.evaluation.qgen.cloze import Passage, Rarity
    from kgrag.evaluation.qgen.fitness import imperative_answer

    corpus = [
        Passage("c1", "d", "You can delete a ferry log once its crossing is archived by the harbour office."),
        Passage("c2", "d", "Homebrew provides the Tidewright planner for the ferry offices of the fjord."),
    ]
    rarity = Rarity(corpus)
    text = "Delete all extracted ferry logs from the Tidewright cache before the winter timetable."
    assert imperative_answer(answer_span(text, "Delete"), rarity)
    text = "Homebrew provides the Tidewright planner for the ferry offices of the fjord."
    assert imperative_answer(answer_span(text, "Homebrew"), rarity) is None  # a name with its own verb
    text = "Quaymaster keeps all extracted ferry logs in the Tidewright cache."
    assert imperative_answer(answer_span(text, "Quaymaster"), rarity) is None  # never written in lower case
