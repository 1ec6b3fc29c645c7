"""The quality signs of LLM-free known-item questions and the precision-first pick: a plain statement about
a named subject scores above an instruction, an example or a list item; a question word that does not fit
the answer's shape and code-like or glued words score 0; the pick keeps the best candidates, none below
the floor, spread over documents, by the preferences (or, asked for, the likeliest usable first by the model
fitted on blind reads). Sentences
are parsed with the real spaCy pipeline; the bad examples are the generator's own output on fresh corpora."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from tests.evaluation.qgen_spacy import spacy_nlp

from kgrag.evaluation.qgen.cloze import Cloze, Passage, Rarity
from kgrag.evaluation.qgen.known_item import pick_known_items
from kgrag.evaluation.qgen.quality import MIN_QUALITY, prose_share, quality, signs, trusted_shape

PROSE = (
    "Homebrew retains analytics events in InfluxDB for 365 days. The data is aggregated before anyone reads "
    "it, and the aggregates are published on the Homebrew website every week."
)
LIST = "## Steps\n\n- Click Add Icons from Library.\n- Save the file.\n\n```\nbrew install foo\n```\n| a | b |"


def _signs(sentence: str, answer: str, question: str, label: str, passage: str) -> dict[str, float]:
    sent = next(iter(spacy_nlp()(sentence).sents))
    start = sentence.index(answer)
    span = sent.doc.char_span(start, start + len(answer))
    rarity = Rarity([Passage("c1", "d1", passage), Passage("c2", "d2", "Homebrew has a tap for fonts on macOS.")])
    return signs(sent, span, label, answer, question, passage, rarity)


def test_prose_share_tells_running_text_from_lists_headings_code_and_tables() -> None:
    assert prose_share(PROSE) == 1.0
    assert prose_share(LIST) < 0.3
    assert prose_share("") == 0.0


def test_a_plain_statement_about_a_named_subject_scores_above_an_instruction() -> None:
    good = _signs(
        PROSE.split(". ")[0] + ".",
        "365 days",
        "Homebrew retains analytics events in InfluxDB for how long?",
        "DATE",
        PROSE,
    )
    assert quality(good) >= MIN_QUALITY
    assert good["statement"] == good["named subject"] == good["known topic"] == 1.0
    instruction = "Click Add Icons from Library.. further down on the page, and add 'Font Awesome'."
    bad = _signs(
        instruction,
        "Font Awesome",
        "Click Add Icons from Library.. further down on the page, and add ' which person'?",
        "PERSON",
        LIST.replace("Click Add Icons from Library.", instruction),
    )
    assert bad["statement"] == bad["plain words"] == bad["prose"] == 0.0
    assert quality(bad) < MIN_QUALITY < quality(good)


def test_an_example_sentence_is_not_a_statement() -> None:
    sentence = "E.g. if we give a date as 2016-03-23 and the current date is 2020-04-13, the output is 4 years ago."
    question = "E.g. if the current date is what date, the output is 4 years ago?"
    values = _signs(sentence, "2020-04-13", question, "DATE", sentence)
    assert values["statement"] == 0.0


def test_the_question_word_must_fit_the_answer() -> None:
    def word(question: str, answer: str, label: str) -> float:
        sentence = question.replace("what number", answer).replace("how many", answer).replace("Who", answer)
        return _signs(sentence, answer, question, label, sentence)["question word"]

    assert word("The service counts how many workers in each region?", "21", "CARDINAL") == 1.0
    assert word("The company what number provides a fast CDN in China?", "21YunBox", "CARDINAL") == 0.0
    assert word("Who maintains the release tooling of the project?", "Ravi", "THING") == 0.0
    assert word("Who maintains the release tooling of the project?", "Ravi Shah", "THING") == 1.0
    # a lone name labelled a person was vouched for as a first name (trusted_label): "who" fits it
    assert word("Who maintains the release tooling of the project?", "Ravi", "PERSON") == 1.0


def test_code_like_or_glued_words_are_not_plain() -> None:
    sentence = "The service is free under 100GB monthly bandwidth for every open source project."
    glued = _signs(sentence, "100GB", "The service is free under how manyGB monthly bandwidth?", "QUANTITY", sentence)
    assert glued["plain words"] == 0.0
    code = "Set the option build_dir in config.yml to change where the Jekyll output goes."
    question = "Set the option build_dir in config.yml to change where what output goes?"
    assert _signs(code, "Jekyll", question, "ORG", code)["plain words"] == 0.0


def _cloze(doc: str, chunk: str, quality_: float, words: str) -> Cloze:
    sentence = f"The {words} keeps 12 records."
    question = f"The {words} keeps how many records?"
    return Cloze(chunk, doc, sentence, "12", "CARDINAL", question, "in-place:cardinal", (), 1.0, False, quality_)


@pytest.mark.parametrize("learned", [False, True])
def test_the_pick_keeps_the_best_spread_over_documents_and_none_below_the_floor(learned: bool) -> None:
    a = _cloze("d1", "c1", 0.95, "alpine bravo")
    b = _cloze("d1", "c2", 0.90, "charlie delta")
    c = _cloze("d2", "c3", 0.80, "echo foxtrot")
    low = _cloze("d3", "c4", MIN_QUALITY - 0.1, "golf hotel")
    candidates = [low, c, b, a]
    if not learned:  # equal preferences: by quality
        assert pick_known_items(candidates, 2, random.Random(0), 0.8) == [a, c]  # one per document first
        assert pick_known_items(candidates, 3, random.Random(0), 0.8) == [a, c, b]
    pick = {"learned": learned}
    assert low not in pick_known_items(candidates, 10, random.Random(0), 0.8, **pick)  # precision over yield
    assert Counter(c.doc_id for c in pick_known_items(candidates, 2, random.Random(0), 0.8, **pick)) == Counter(
        d1=1, d2=1
    )
    assert low in pick_known_items(candidates, 10, random.Random(0), 0.8, min_quality=0.0, **pick)


@pytest.mark.parametrize("learned", [False, True])
def test_ties_are_ordered_by_the_seed_and_the_same_seed_repeats(learned: bool) -> None:
    tied = [_cloze(f"d{i}", f"c{i}", 0.9, w) for i, w in enumerate(["india juliet", "oscar papaya", "romeo sierra"])]
    pick = {"learned": learned}
    draws = {tuple(c.chunk_id for c in pick_known_items(tied, 1, random.Random(s), 0.8, **pick)) for s in range(20)}
    assert len(draws) > 1
    assert pick_known_items(tied, 2, random.Random(3), 0.8, **pick) == pick_known_items(
        tied, 2, random.Random(3), 0.8, **pick
    )
    assert Counter(c.doc_id for c in pick_known_items(tied, 3, random.Random(0), 0.8, **pick)) == Counter(
        d0=1, d1=1, d2=1
    )


def test_the_trusted_shape_is_a_one_word_name_asked_in_ten_words_or_more() -> None:
    long_question = "Which scheduler does the harbour office use to plan the ferry crossings each week?"
    assert trusted_shape("Tidewright", long_question)
    assert trusted_shape("FTP", long_question)  # an acronym is written as a name too
    assert not trusted_shape("Tidewright Labs", long_question)  # a name of two words
    assert not trusted_shape("12", long_question)  # a number
    assert not trusted_shape("K8s", long_question)  # a digit inside the word
    assert not trusted_shape("scheduler", long_question)  # lower case
    assert not trusted_shape("Tidewright", "Which scheduler plans the crossings?")  # five words


def _named(doc: str, chunk: str, quality_: float, answer: str, words: str) -> Cloze:
    sentence = f"The {words} office plans the weekly ferry crossings of its line with {answer}."
    question = f"The {words} office plans the weekly ferry crossings of its line with what?"
    return Cloze(chunk, doc, sentence, answer, "ORG", question, "in-place:org", (), 1.0, False, quality_)


def test_the_trusted_shape_is_picked_before_better_scored_others() -> None:
    best = _cloze("d1", "c1", 0.95, "alpine bravo")  # a number, the best quality
    named = _named("d2", "c2", 0.80, "Tidewright", "harbour")
    second = _named(
        "d1", "c3", 0.78, "Quaymaster", "lighthouse keeper"
    )  # a second one of d1: still before any other shape
    candidates = [best, named, second]
    assert pick_known_items(candidates, 2, random.Random(0), 0.8, learned=False) == [named, second]
    assert pick_known_items(candidates, 3, random.Random(0), 0.8, learned=False) == [named, second, best]


def test_headed_then_whole_questions_are_picked_before_better_scored_others() -> None:
    best = _named("d1", "c1", 0.95, "Tidewright", "harbour")  # trusted shape, best quality, no heading
    trimmed = replace(_cloze("d2", "c2", 0.80, "lighthouse keeper"), whole=False)
    whole = _cloze("d3", "c3", 0.78, "mooring office")  # a number: not the trusted shape
    pick = [best, trimmed, whole]
    before = {"learned": False}
    assert pick_known_items(pick, 2, random.Random(0), 0.8, **before, headed={trimmed, whole}) == [whole, trimmed]
    assert pick_known_items(pick, 3, random.Random(0), 0.8, **before, headed={trimmed}) == [trimmed, best, whole]
    assert pick_known_items(pick, 2, random.Random(0), 0.8, **before) == [best, whole]  # whole before the trusted shape


def test_the_usability_model_picks_the_likeliest_usable_whatever_the_quality() -> None:
    long_words = "harbour office of the northern ferry line"
    number = replace(
        _cloze("d1", "c1", 0.95, "alpine bravo"),
        question="The alpine bravo keeps what number records?",  # 'what number': seldom usable when read
    )
    plain = _named("d2", "c2", 0.78, "Tidewright", long_words)
    assert pick_known_items([number, plain], 1, random.Random(0), 0.8, learned=True) == [plain]
    # naming its page's headings raises a candidate's chance: the scoped one of two equal candidates is first
    twin = replace(plain, chunk_id="c3", doc_id="d3", sentence=plain.sentence.replace("northern", "southern"))
    twin = replace(twin, question=twin.question.replace("northern", "southern"))
    assert pick_known_items([plain, twin], 1, random.Random(0), 0.0, learned=True, scoped={twin}) == [twin]
    assert pick_known_items([plain, twin], 1, random.Random(0), 0.0, learned=True, scoped={plain}) == [plain]
