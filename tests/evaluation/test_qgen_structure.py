"""Where a span sits decides whether a question can be asked of it: each rule of
:mod:`kgrag.evaluation.qgen.structure`, the inversion of a fronted phrase and the question word chosen by
the span's form, on sentences written for these tests and parsed with the real spaCy pipeline."""

from __future__ import annotations

from typing import Any, cast

from tests.evaluation.qgen_spacy import brightwater_case, spacy_nlp

from kgrag.evaluation.qgen import structure
from kgrag.evaluation.qgen.answers import trusted_label, well_formed
from kgrag.evaluation.qgen.cloze import usable_sentence
from kgrag.evaluation.qgen.labels import NameLabels
from kgrag.evaluation.qgen.structure import coordinated, fronted_clause, outside_referent, title_cut, unsure_word
from kgrag.evaluation.qgen.wording import ask_around, question_word


def _parsed(text: str, answer: str) -> tuple[Any, Any]:
    doc = spacy_nlp()(text)
    start = text.index(answer)
    return next(iter(doc.sents)), doc.char_span(start, start + len(answer))


def _asked(text: str, answer: str, label: str) -> tuple[str, str]:
    sent, span = _parsed(text, answer)
    question, template, _ = ask_around(sent, span, label)
    return question, template


def test_a_fronted_phrase_is_asked_with_the_clause_inverted() -> None:
    question, template = _asked("Every 3 days, the Oslo backup runs on the cluster.", "Every 3 days", "DATE")
    assert (question, template) == ("How often does the Oslo backup run on the cluster?", "inverted:date")
    question, _ = _asked("After 5 minutes, the Tamsin cache will be flushed to disk.", "5 minutes", "TIME")
    assert question == "After how long will the Tamsin cache be flushed to disk?"
    question, _ = _asked("In 2019, the Rustacean team shipped the new borrow checker.", "2019", "DATE")
    assert question == "In which year did the Rustacean team ship the new borrow checker?"
    # a subject after a fronted phrase is asked as before
    sent, span = _parsed("In 2021, Brightwater sponsored a review of the Tamsin cache.", "Brightwater")
    question, template, _ = ask_around(sent, span, "ORG")
    assert question.startswith("In 2021, what sponsored") and fronted_clause(sent, span, template) is None


def test_a_bare_number_a_verb_counts_is_not_asked_as_a_year() -> None:
    """spaCy may call a four-digit count a date; after a verb it is what the verb counts, not a year."""
    question, _ = _asked("By default the Tamsin server serves 2048 unless its window is raised.", "2048", "DATE")
    assert "which year" not in question and "what number" in question
    question, _ = _asked("The Quillon parser was rewritten in 2019 by the Oslo team.", "2019", "DATE")
    assert "in which year" in question
    for text, year in (
        ("The Quillon parser was released 2019 by the Oslo team.", "2019"),  # no object
        ("The Tamsin licence expires 2030 for every ferry office.", "2030"),
    ):  # a verb of time
        question, _ = _asked(text, year, "DATE")
        assert "which year" in question, question


def test_a_span_in_a_fronted_clause_with_its_own_verb_is_refused() -> None:
    sent, span = _parsed("Founded in 2011, Brightwater has grown to forty staff in Oslo.", "2011")
    _, template, _ = ask_around(sent, span, "DATE")
    assert not template.startswith("inverted")
    assert "fronted" in (fronted_clause(sent, span, template) or "")


def test_the_question_word_follows_the_span_form_not_the_label() -> None:
    sent, span = _parsed("A Quillon lookup takes 40-60ms to finish under load.", "40-60ms")
    assert trusted_label(span, sent, "DATE") == "DATE"
    assert question_word("DATE", "40-60ms", "", False, False) == "how long"
    sent, span = _parsed("The Quillon parser reached Version Four after the rewrite.", "Version Four")
    assert trusted_label(span, sent, "DATE") == ""  # neither a date nor a duration: no question
    sent, span = _parsed("The Hollis UI shows a chart of every sample in the panel.", "Hollis UI")
    assert trusted_label(span, sent, "PERSON") == "THING"  # a determiner and an acronym: not a person
    sent, span = _parsed("Mara Lindqvist wrote the first parser for the Quillon project.", "Mara Lindqvist")
    assert trusted_label(span, sent, "PERSON") == "PERSON"


def test_an_unsure_question_word_is_refused() -> None:
    _, span = _parsed("Broken nightly builds must be fixed by the release manager of Quillon.", "release manager")
    assert "agent" in (unsure_word(span, "THING") or "")
    _, span = _parsed("Quillon lookups wait for 1 tick of the event loop before sending.", "1")
    assert "singular" in (unsure_word(span, "CARDINAL") or "")
    _, span = _parsed("Quillon lookups wait for 3 ticks of the event loop before sending.", "3")
    assert unsure_word(span, "CARDINAL") is None


def test_a_referent_outside_the_question_is_refused() -> None:
    sent, span = _parsed("The second release was shipped in 2021 after a long beta.", "2021")
    assert "subject names nothing" in (outside_referent(sent, span) or "")
    sent, span = _parsed("Kestrel is the best queue to use there, as Wren is slower.", "Kestrel")
    assert "'there'" in (outside_referent(sent, span) or "")
    # a compound term or a name in the subject says what it is about
    sent, span = _parsed("The retry function solves an old problem with the Kestrel queue.", "Kestrel queue")
    assert outside_referent(sent, span) is None
    sent, span = _parsed("There are three Kestrel queues in the Wren cluster.", "Wren cluster")
    assert outside_referent(sent, span) is None  # an expletive 'there' points nowhere


def test_titles_and_coordinations_cut_apart_are_refused() -> None:
    sent, _ = _parsed("Tuning and Scaling Kestrel on the Wren blog is a good first read.", "Wren")
    assert title_cut(sent)
    sent, _ = _parsed("The Open Kestrel Computing Foundation hosts the Wren project.", "Wren")
    assert title_cut(sent) is None
    sent, _ = _parsed("Code Meaning EQUILL Indicates that the Kestrel queue is stuck.", "EQUILL")
    assert title_cut(sent)  # a table row run into a line
    sent, span = _parsed("Typical limits are 64 entries on Kestrel and 32 entries on Wren.", "Wren")
    assert coordinated(span)
    _, span = _parsed("Typical limits are 64 entries on Kestrel and 32 entries on Wren.", "64")
    assert coordinated(span)  # the other side of the pair shows what is asked
    sent, span = _parsed("Kestrel keeps 64 entries per queue on the Wren cluster.", "Wren cluster")
    assert coordinated(span) is None


def test_ranges_decades_listing_numbers_and_appositions() -> None:
    from kgrag.evaluation.qgen.fitness import wording_defect

    _, span = _parsed("The tuning level of Kestrel takes a range of 1 to 5 on every queue.", "1 to 5")
    assert "range" in (unsure_word(span, "CARDINAL") or "")
    _, span = _parsed("Aisha Okafor (1933-2020) ran the Tidewright harbour office for decades.", "1933-2020")
    assert "range" in (unsure_word(span, "DATE") or "")  # a lifespan is no date
    _, span = _parsed("The Tidewright planner still serves 2.7 users of the old ferry timetable.", "2.7")
    assert "decimal" in (unsure_word(span, "CARDINAL") or "")  # a count is a whole number
    assert question_word("DATE", "the 1980s", "", True, False) == "which decade"
    text = "Listing 7-3 shows how to open a Kestrel queue with a timeout."
    assert "part of the document" in (wording_defect(_parsed(text, "7-3")[1], "Listing what number shows …?") or "")
    question, _ = _asked("Kestrel, the queue of the Wren project, keeps every message for a week.", "a week", "DATE")
    assert question.startswith("Kestrel keeps every message for")


def test_the_year_rules_share_one_pattern_and_agree_on_its_bounds() -> None:
    """The date form (which spans may be asked as dates), the year and the decade wordings read a year
    with one pattern, written once in the package, so a change of its range reaches all three."""
    from pathlib import Path

    import kgrag.evaluation.qgen as qgen
    from kgrag.evaluation.qgen.answers import _DATE_FORM

    sources = [path.read_text(encoding="utf-8") for path in Path(qgen.__file__).parent.glob("*.py")]
    assert sum(text.count("1[5-9]|20") for text in sources) == 1
    for year, is_year in (("1499", False), ("1500", True), ("1987", True), ("2099", True), ("2100", False)):
        assert bool(_DATE_FORM.search(f"in {year}")) is is_year
        assert (question_word("DATE", f"in {year}", "", True, False) == "which year") is is_year
        decade = question_word("DATE", f"the {year[:3]}0s", "", True, False)
        assert (decade == "which decade") is is_year


def test_a_name_the_corpus_labels_otherwise_is_not_asked_who() -> None:
    """spaCy labels "Kestrel Swarm" a person in this sentence and "Swarm" a place wherever it stands alone:
    the corpus's labels overrule the one sentence's, and the question asks "what", not "who"."""
    labels = NameLabels()
    for text in ("The monitoring agents run on the Swarm hosts.", "This guide assumes that you have a Swarm running."):
        labels.add(spacy_nlp()(text))
    sent, span = _parsed("Kestrel Swarm exposes the desired state of the tasks over the API.", "Kestrel Swarm")
    labels.add(sent.doc)
    assert [e.label_ for e in sent.ents if e.text == "Kestrel Swarm"] == ["PERSON"]  # the slip guarded against
    assert trusted_label(span, sent, "PERSON") == "PERSON"  # the sentence alone cannot tell
    label = trusted_label(span, sent, "PERSON", labels)
    assert label == "THING"
    assert ask_around(sent, span, label)[0] == "What exposes the desired state of the tasks over the API?"
    # a person's name that no other label contradicts is still asked "who"
    sent, span = _parsed("Mara Lindqvist exposes the desired state of the tasks over the API.", "Mara Lindqvist")
    labels.add(sent.doc)
    assert trusted_label(span, sent, "PERSON", labels) == "PERSON"
    assert ask_around(sent, span, "PERSON")[0].startswith("Who exposes")


def test_a_first_name_the_corpus_names_in_full_is_asked_who() -> None:
    """A post names its people in full once and by first name after: the lone first name is a person, and
    a name with a particle is one too; a lone word no full name opens stays "what"."""
    labels = NameLabels()
    for text in ("Iris Dyrmishi is a platform engineer at Farfetch.", "The Kafka receiver reads from a topic."):
        labels.add(spacy_nlp()(text))
    sent, span = _parsed("Iris has played around a bit with logging, mostly reading from a topic.", "Iris")
    labels.add(sent.doc)
    assert [e.label_ for e in sent.ents if e.text == "Iris"] == ["PERSON"]
    assert trusted_label(span, sent, "PERSON") == "THING"  # the sentence alone cannot tell
    label = trusted_label(span, sent, "PERSON", labels)
    assert label == "PERSON" and well_formed(span, label)
    assert ask_around(sent, span, label)[0].startswith("Who has played around")
    for text, name in (
        ("Laravel wraps the Flysystem package written by Frank de Jonge.", "Frank de Jonge"),
        ("The Tamsin patch was written by Conan O'Brien last year.", "Conan O'Brien"),
        ("John F. Kennedy maintains the Tamsin ferry office.", "John F. Kennedy"),
    ):
        sent, span = _parsed(text, name)
        assert trusted_label(span, sent, "PERSON") == "PERSON" and well_formed(span, "PERSON"), name
    sent, span = _parsed("Tamsin serves the Oslo cache over a socket.", "Tamsin")
    assert trusted_label(span, sent, "PERSON", labels) == "THING"


def test_a_product_spacy_calls_a_person_gives_no_first_name() -> None:
    """ "Kafka Connect" labelled a person does not make "Kafka" a first name: the corpus writes "connect" in
    lower case, which no surname is; nor does a full name whose first word alone is labelled otherwise."""
    labels = NameLabels()
    for text in ("Kafka Connect stores the events in a topic.", "You can connect the sink later."):
        labels.add(spacy_nlp()(text))
    assert "kafka connect" in labels.full_names["kafka"]  # the slip guarded against
    assert not labels.first_name("Kafka")
    labels.add(spacy_nlp()("Iris Dyrmishi is a platform engineer at Farfetch."))
    assert labels.first_name("Iris")
    labels.words["iris"]["ORG"] += 3  # the word alone labelled a product in most of its mentions
    assert not labels.first_name("Iris")


def test_a_person_whose_later_word_the_corpus_writes_in_lower_case_is_asked_nothing() -> None:
    """ "Fluent Bit" labelled a person in most mentions is still a product: the corpus writes "bit" in lower
    case. A name is kept as a person where its first word vouches for one: a form of address, or a first
    name labelled a person alone and never written in lower case."""
    labels = NameLabels()
    for text in (
        "Fluent Bit forwards the alerts to the Tamsin cluster.",
        "Every bit of the payload is kept, and the mother of all queues drains it.",
        "Angelo Hall wrote the report on the ferries.",
        "Angelo said nothing about the tides; the hall was empty.",
        "Mother Hall kept the ferry office open.",
        "Mara Lindqvist maintains the Oslo cache.",
    ):
        labels.add(spacy_nlp()(text))
    assert labels.bears_out_person("Fluent Bit")  # the labels alone agree: the slip guarded against
    assert labels.unsure_person("Fluent Bit")
    sent, span = _parsed("Fluent Bit forwards the alerts to the Tamsin cluster.", "Fluent Bit")
    assert trusted_label(span, sent, "PERSON", labels) == ""  # neither "who" nor "what"
    assert trusted_label(span, sent, "PERSON") == "PERSON"  # without the corpus nothing tells
    assert not labels.unsure_person("Angelo Hall")  # "Angelo" alone is a person, never lower case
    assert not labels.unsure_person("Mother Hall")  # a form of address vouches for a person
    assert not labels.unsure_person("Mara Lindqvist")  # no later word is a common one
    labels.add(spacy_nlp()("Download angelo from the mirror before the tide."))
    assert labels.unsure_person("Angelo Hall")  # a first word written in lower case vouches for no one


def test_a_first_name_opening_two_full_names_vouches_for_a_person() -> None:
    """ "John" is never labelled a person alone here, but it opens two people's full names: "John Hall" (whose
    "hall" the corpus writes in lower case) stays a person; "Ernestine Rose", named once, is left unsure."""
    labels = NameLabels()
    for text in (
        "John Hall walked to the ferry office in the morning.",
        "John Brown kept the ledger of the Tamsin ferries.",
        "Ernestine Rose spoke at the hall about the ferries.",
        "The hall was cold, and a rose stood on the table.",
    ):
        labels.add(spacy_nlp()(text))
    assert labels.bears_out_person("John Hall") and labels.bears_out_person("Ernestine Rose")
    assert not labels.unsure_person("John Hall")
    assert labels.unsure_person("Ernestine Rose")
    assert not labels.unsure_person("")


def test_a_number_without_a_digit_or_a_number_word_gets_no_question() -> None:
    """spaCy labels "fixed-size" written with a non-breaking hyphen a number; "what number" would mislead."""
    word = "fixed\u2011size"
    sent, span = _parsed(f"Tamsin generates {word} virtual blocks as the upper layers of the cache.", word)
    assert trusted_label(span, sent, "CARDINAL") == ""
    for text, amount in (
        ("Tamsin keeps 666 sockets open for the ferry office.", "666"),
        ("Tamsin keeps twenty sockets open for the ferry office.", "twenty"),
        ("Tamsin keeps a dozen sockets open for the ferry office.", "a dozen"),
        ("Tamsin ingests up to a few tens of gigabytes a day for the ferry office.", "a few tens"),
        ("Tamsin grew tenfold in the ferry office last year.", "tenfold"),
    ):
        sent, span = _parsed(text, amount)
        assert trusted_label(span, sent, "CARDINAL") == "CARDINAL", amount


def test_a_sentence_adverb_taken_into_a_name_is_no_answer() -> None:
    text = "Overall Tamsin uses the same implementation for Quillon as for the Oslo cache."
    _, span = _parsed(text, "Overall Tamsin")
    assert not well_formed(span, "ORG")
    _, span = _parsed("Tamsin uses the same implementation for Quillon as for the Oslo cache.", "Tamsin")
    assert well_formed(span, "ORG")


def test_a_persona_is_asked_who_and_software_named_like_a_role_keeps_what() -> None:
    sent, span = _parsed("The Data Scientist uses Tamsin notebooks to train several types of models.", "Data Scientist")
    label = trusted_label(span, sent, "ORG")
    assert label == "PEOPLE" and ask_around(sent, span, label)[0].startswith("Who uses")
    sent, span = _parsed("The Tamsin Designer generates the ferry forms from a schema.", "Tamsin Designer")
    assert trusted_label(span, sent, "ORG") != "PEOPLE"  # a designer may be software


def test_a_one_word_speaker_gets_no_question() -> None:
    """ "Schneppenheim estimates …" names a person by one word: "what" misleads and "who" is unsure; so does a
    contributor's handle doing a contributor's work ("Xanewok removed …"). Software that writes somewhere,
    tells you something or creates something stays a thing; so does an acronym that says something."""
    for text, name in (
        ("Schneppenheim estimates that the Tamsin reads have doubled over two months.", "Schneppenheim"),
        ("Jacek explains how the Quillon secrets reach the Oslo cluster.", "Jacek"),
        ("Sapphi wrote a great introduction to the Tamsin environment guide.", "Sapphi"),
        ("Nate Hunzaker wrote about end-to-end testing with Tamsin and Quillon.", "Nate Hunzaker"),  # a full name
        ("Xanewok removed all traces of an unsafe API from the Tamsin bindings.", "Xanewok"),  # a contributor
        ("MortimerGoro fixed the crash when moving Tamsin to the background.", "MortimerGoro"),
        ("Darley continues to improve the Quillon libc with every ferry release.", "Darley"),
    ):
        sent, span = _parsed(text, name)
        assert trusted_label(span, sent, "ORG") == "", name
    for text, name in (
        ("By default, CliDumper writes on the standard output of the Tamsin shell.", "CliDumper"),
        ("Quillon tells you which Tamsin files changed since the last ferry run.", "Quillon"),
        ("NASA said the Tamsin probe reached the Oslo orbit.", "NASA"),
        ("Snowpack created an entirely new category of Tamsin tooling.", "Snowpack"),  # software creates things
    ):
        sent, span = _parsed(text, name)
        assert trusted_label(span, sent, "ORG") != "", name  # asked "what", as before


def test_a_place_named_with_its_region_after_a_comma_is_asked_which_city() -> None:
    for text, place, asked in (
        ("The Tolvey harbour master Brian is based in Houston, TX.", "Houston", "based in which city, TX?"),
        ("Karl Cheng is a ferry student hailing from Sydney, Australia.", "Sydney", "from which city, Australia?"),
    ):
        sent, span = _parsed(text, place)
        label = trusted_label(span, sent, "GPE")
        assert label == "CITY"
        assert ask_around(sent, span, label, whole=True)[0].endswith(asked)  # as make_cloze asks it, whole
    sent, span = _parsed("The Tolvey planner moved its crews from Oslo to the coast last winter.", "Oslo")
    assert trusted_label(span, sent, "GPE") == "GPE"  # no region after it: asked "what", as before


def test_a_numbered_point_of_a_schedule_gets_no_question() -> None:
    """ "Code Freeze starts in week 11": "how long" misleads, and "which week" would keep the answer's word."""
    sent, span = _parsed("The Tamsin code freeze starts in week 11 of the ferry release cycle.", "week 11")
    assert trusted_label(span, sent, "DATE") == ""
    sent, span = _parsed("The Tamsin code freeze lasts 11 weeks in the ferry release cycle.", "11 weeks")
    assert trusted_label(span, sent, "DATE") == "DATE"
    assert question_word("DATE", "11 weeks", "", True, False) == "how long"
    assert question_word("DATE", "every week", "", True, False) == "how often"


def test_a_second_statement_joined_by_and_is_not_kept_in_the_question() -> None:
    """ "HPA reads metrics …, and the Prometheus Adapter handles the connection" asked about HPA would carry the
    adapter's statement along; "but" keeps its contrast, and a verb the span itself is subject of stays."""
    text = "Tamsin reads metrics via the Oslo metrics API, and the Quillon adapter handles the ferry connection."
    sent, span = _parsed(text, "Tamsin")
    assert structure.second_statement(sent, span) is not None
    assert structure.second_statement(sent[: span.end + 6], span) is None  # a clause cut before the second statement
    text = "Tamsin reads metrics via the Oslo metrics API, but the Quillon adapter handles the ferry connection."
    sent, span = _parsed(text, "Tamsin")
    assert structure.second_statement(sent, span) is None
    sent, span = _parsed("Tamsin reads metrics via the Oslo metrics API and writes them to the ferry log.", "Tamsin")
    assert structure.second_statement(sent, span) is None


def test_engineers_are_people_asked_who_and_a_place_keeps_what() -> None:
    sent, span = _parsed("Kernel engineers introduced debugging information for the Tamsin probes.", "Kernel engineers")
    label = trusted_label(span, sent, "ORG")
    assert label == "PEOPLE" and ask_around(sent, span, label)[0].startswith("Who introduced")
    # spaCy labels languages and products places ("written in Lua"): a place is asked "what", never "where"
    question, _ = _asked("Tamsin plugins are written in Lua by the Oslo ferry office.", "Lua", "GPE")
    assert "where" not in question and "in what" in question


def test_a_part_of_an_identifier_is_not_an_answer() -> None:
    _, span = _parsed("This changes the mapping type from flb_type to _doc, as the Tamsin guide recommends.", "doc")
    assert not well_formed(span, "THING")
    _, span = _parsed("This changes the mapping type from flb_type to doc, as the Tamsin guide recommends.", "doc")
    assert well_formed(span, "THING")


def test_a_person_needs_most_of_the_names_mentions_labelled_one() -> None:
    from spacy.tokens import Doc, Span

    def mention(name: str, label: str) -> Doc:
        doc = Doc(spacy_nlp().vocab, words=[*name.split(), "runs", "."])
        doc.ents = [Span(doc, 0, len(name.split()), label=label)]
        return doc

    labels = NameLabels()
    for label in ("PERSON", "ORG", "ORG"):
        labels.add(mention("Vestry Water", label))
    labels.add(mention("Ada Quill", "PERSON"))
    labels.add(mention("Ada Quill", "GPE"))  # a tie is no majority
    for label in ("PERSON", "PERSON", "GPE"):
        labels.add(mention("Tomas Brekke", label))
    assert not labels.bears_out_person("Vestry Water") and not labels.bears_out_person("ada  quill")
    assert labels.bears_out_person("Tomas Brekke") and labels.bears_out_person("Nobody Seen")


def test_a_sentence_is_asked_whole_and_trimmed_only_when_asked_for() -> None:
    from kgrag.evaluation.qgen.cloze import TRIMMED_REFUSED, WHOLE_TOKENS, make_cloze

    text = "Brightwater runs the nightly jobs of the Tamsin runtime if the Oslo cluster reports no ferry crossings."
    passage, sent, span, rarity = brightwater_case(text)
    assert ask_around(sent, span, "ORG")[0] == "What runs the nightly jobs of the Tamsin runtime?"  # trimmed
    asked = make_cloze(passage, sent, span, "ORG", rarity)
    assert not isinstance(asked, str) and asked.whole
    assert (
        asked.question
        == "What runs the nightly jobs of the Tamsin runtime if the Oslo cluster reports no ferry crossings?"
    )
    long_text = (
        "Brightwater runs the nightly jobs of the Tamsin runtime on the Oslo cluster, although the harbour office that "
        "plans the ferry crossings of the northern fjord would rather run them on the Bergen machines in winter."
    )
    passage, sent, span, rarity = brightwater_case(long_text)
    assert len(sent) > WHOLE_TOKENS
    assert make_cloze(passage, sent, span, "ORG", rarity) == TRIMMED_REFUSED  # whole sentences only, by default
    asked = make_cloze(passage, sent, span, "ORG", rarity, trimmed=True)
    assert not isinstance(asked, str) and not asked.whole
    assert asked.question == "What runs the nightly jobs of the Tamsin runtime on the Oslo cluster?"


def test_a_fronted_answer_keeps_a_space_where_its_apposition_was_left_out() -> None:
    text = "Brightwater, the scheduler of the harbour office, runs the nightly jobs of the Tamsin runtime."
    _, sent, span, _ = brightwater_case(text)
    assert ask_around(sent, span, "ORG")[0] == "What runs the nightly jobs of the Tamsin runtime?"


def test_people_named_by_their_role_or_handle_are_asked_who() -> None:
    """A project's committer, team or BDFL, or a user handle, is people: asked "what" it reads as a
    question about a thing. A role's object or a preposition's takes "whom"; a thing stays "what"."""
    sent, span = _parsed("The Tolvey committer removes the backport label after the merge.", "Tolvey committer")
    assert trusted_label(span, sent, "THING") == "PEOPLE"
    assert ask_around(sent, span, "PEOPLE")[0] == "Who removes the backport label after the merge?"
    sent, span = _parsed("Failing checks on the Tolvey branch are fixed by the PR author.", "PR author")
    assert trusted_label(span, sent, "THING") == "PEOPLE"
    assert ask_around(sent, span, "PEOPLE")[0] == "Failing checks on the Tolvey branch are fixed by whom?"
    sent, span = _parsed("Hewlett Packard Enterprise sponsored @Lukasa during 2016 and 2017.", "@Lukasa")
    assert trusted_label(span, sent, "THING") == "PEOPLE"
    assert ask_around(sent, span, "PEOPLE")[0] == "Hewlett Packard Enterprise sponsored whom during 2016 and 2017?"
    sent, span = _parsed("Windows users can try the Tolvey planner on their laptops.", "Windows users")
    assert trusted_label(span, sent, "THING") == "PEOPLE"
    members = "Tolvey community members"
    sent, span = _parsed(f"{members} are free to write add-ons for the planner.", members)
    assert trusted_label(span, sent, "THING") == "PEOPLE"
    sent, span = _parsed("Tolvey enum members are written in capitals by the planner.", "Tolvey enum members")
    assert trusted_label(span, sent, "THING") == "THING"  # members of a type, not people
    sent, span = _parsed("In particular, Tolvey provides a decorator called @crossing for the planner.", "@crossing")
    assert trusted_label(span, sent, "THING") == "THING"  # a decorator, not a handle
    text = "Tolvey was adding spaces around the & character in selectors passed to @crossing, which broke it."
    sent, span = _parsed(text, "@crossing")
    assert trusted_label(span, sent, "THING") == "THING"  # a CSS at-rule, not a handle
    sent, span = _parsed("The Tolvey planner removes the backport label after the merge.", "Tolvey planner")
    assert trusted_label(span, sent, "THING") == "THING"  # a tool, not a role
    for role in ("Requestor", "Approver", "Tenant administrators"):  # a project's workflow roles
        sent, span = _parsed(f"After the review, the {role} merges the Tolvey backport PR.", role)
        assert trusted_label(span, sent, "THING") == "PEOPLE", role
    sent, span = _parsed("Mara Lindqvist wrote the first parser for the Quillon project.", "Mara Lindqvist")
    assert trusted_label(span, sent, "PERSON") == "PERSON"  # a trusted person stays one


def test_ratios_status_codes_and_release_names_are_not_asked_as_numbers_or_people() -> None:
    _, span = _parsed("Thumbnails in the Tidewright planner are most commonly cropped to 16:9 for the board.", "16:9")
    assert "ratio" in (unsure_word(span, "CARDINAL") or "")
    _, span = _parsed("Only 308 redirects will be followed by the Kestrel client in a future release.", "308")
    assert "status code" in (unsure_word(span, "CARDINAL") or "")  # not "how many redirects"
    _, span = _parsed("The Kestrel client keeps 308 connections open to the harbour office.", "308")
    assert unsure_word(span, "CARDINAL") is None  # a count of connections
    text = "Ubuntu 24.10 Oracular Oriole has been end-of-life since 10 Jul 2025."
    _, span = _parsed(text, "Oracular Oriole")
    assert "release" in (unsure_word(span, "PERSON") or "")
    _, span = _parsed("The Kestrel queue was written by Aisha Okafor in the winter of 2019.", "Aisha Okafor")
    assert unsure_word(span, "PERSON") is None


def test_an_adverbial_phrase_opening_a_sentence_is_no_answer() -> None:
    from kgrag.evaluation.qgen.answers import well_formed

    _, span = _parsed("Briefly stated, if you find ferry delays scary then your timetable is wrong.", "Briefly")
    assert not well_formed(span, "THING")
    _, span = _parsed("Pyrefly is the type checker that the Tolvey harbour office runs on its planner.", "Pyrefly")
    assert well_formed(span, "THING")  # a name that ends in "ly"


def test_the_question_phrase_does_not_repeat_the_word_beside_its_span() -> None:
    question, _ = _asked("Kestrel's cadence between major releases is 8 weeks long.", "8 weeks", "DATE")
    assert question == "Kestrel's cadence between major releases is how long?"
    question, _ = _asked(
        "Tidewright has not been the default scheduler in Quayside since version 16.04, which is old.",
        "16.04",
        "CARDINAL",
    )
    assert "since which version" in question and "version which" not in question


def test_a_name_as_the_agent_of_a_passive_and_an_amount_cut_from_its_currency_sign_are_refused() -> None:
    from kgrag.evaluation.qgen.answers import well_formed

    _, span = _parsed("The tolvey-completion plugin is a shell plugin maintained by Pig Fang on Github.", "Pig Fang")
    assert "agent of a passive" in (unsure_word(span, "THING") or "")
    assert unsure_word(span, "PERSON") is None  # a trusted person is asked "whom"
    _, span = _parsed("Tolvey raised a total of $110k and redistributed $75k to the crews.", "75k")
    assert not well_formed(span, "MONEY")
    question, _ = _asked("The Tolvey planner shipped minimal support of ferry exports in 27.3.", "27.3", "CARDINAL")
    assert question.endswith("in which version?")


def test_a_span_opening_a_phrase_tacked_on_after_a_comma_is_refused() -> None:
    from kgrag.evaluation.qgen.structure import tacked_on

    _, span = _parsed("The Tolvey policy may replace up to 60% of your fare, up to $1,200 per month.", "up to $1,200")
    assert tacked_on(span)
    _, span = _parsed("The Tolvey pass gives no seat, only a place on deck, up to 8 weeks.", "8 weeks")
    assert tacked_on(span)  # past the leading "up to"
    _, span = _parsed("In 2020, the Tolvey council sponsored an audit of the ferry planner.", "the Tolvey council")
    assert tacked_on(span) is None  # a verb follows: the span is the clause's subject
    _, span = _parsed("Tidewright is a variant of Quillon, which is a ferry planner.", "Quillon")
    assert tacked_on(span) is None  # no comma before it


def test_an_ip_address_and_a_span_of_time_as_a_verbs_subject_are_refused() -> None:
    _sent, span = _parsed(
        "Once you enable it, the Tidewright planner binds its servers to 0.0.0.0 automatically.", "0.0.0.0"
    )
    assert "IP address" in (unsure_word(span, "CARDINAL") or "")
    _, span = _parsed("Only the past 6 hours are stored by the Tidewright planner on each ferry.", "6 hours")
    assert "subject" in (unsure_word(span, "TIME") or "")
    _, span = _parsed("30 seconds is the default timeout of the Tidewright ferry planner.", "30 seconds")
    assert unsure_word(span, "TIME") is None  # a copula keeps it a question: "How long is the default timeout …?"
    question, _ = _asked("The Tidewright planner works all the way up to version 10 of Quayside.", "10", "CARDINAL")
    assert "up to which version of Quayside" in question
    question, _ = _asked(
        "The Tidewright planner updated the version 3 times during the winter season.", "3", "CARDINAL"
    )
    assert "which version" not in question  # a count of times, not a release


def test_a_release_after_its_name_is_asked_which_version_of_the_name() -> None:
    question, _ = _asked(
        "For Quayside version 1.19+, the Tidewright planner reads the ferry timetables twice.", "1.19+", "DATE"
    )
    assert question.startswith("For which version of Quayside does the Tidewright planner read")
    question, _ = _asked(
        "The Tidewright planner is tested with harbours running version 1.21 and later.", "1.21 and later", "DATE"
    )
    assert question.endswith("running which version?")  # a release and those after it, not "what date"


def test_the_release_lead_moves_only_a_capitalised_name() -> None:
    from kgrag.evaluation.qgen.wording import _release_of_name

    assert _release_of_name("fixed in Ingress NGINX version", "which version") == (
        "fixed in ",
        "which version of Ingress NGINX",
    )
    assert _release_of_name("Since version", "which version") == ("Since version", "which version")
    assert _release_of_name("clusters running", "which version") == ("clusters running", "which version")
    assert _release_of_name("Quayside", "which version") == ("", "which version of Quayside")
    assert _release_of_name("Quayside", "how many") == ("Quayside", "how many")


def test_the_unrepeated_word_is_a_whole_word() -> None:
    from kgrag.evaluation.qgen.wording import _unrepeated

    assert _unrepeated("Python ", "which version", "version-specific settings are read") == (
        "Python ",
        "version-specific settings are read",
    )
    assert _unrepeated("the planner is ", "how long", "long.") == ("the planner is ", ".")


def test_a_sentence_opening_with_a_pictograph_is_no_evidence() -> None:
    """A warning box's pictograph is markup, and a check or a cross before a statement reverses or keeps its
    sense, which the question cannot carry: such a sentence gives no question."""
    release = "quillon-ctl 1.14 is the last release that will still ship a container image and a binary."
    crossed = "✅ Brightwater stores every sample of the cluster twice on the same disk."
    for text in ("⚠️ " + release, "ℹ️ " + release, crossed):  # ℹ is a letter to Unicode, its emoji form is not
        sent = next(iter(spacy_nlp()(text).sents))
        assert "symbol" in (usable_sentence(sent, cast(Any, None)) or "")
    sent = next(iter(spacy_nlp()(release).sents))
    assert usable_sentence(sent, cast(Any, None), strict=False) is None


def test_one_end_of_a_range_and_a_version_labelled_a_date_get_no_question_word() -> None:
    """ "what number to 5x slower?" (the answer "around 3x") and "with Rust version what date?" (the answer
    "1.95.0") read wrong; the span's own label decides nothing there."""
    for text, answer, label in (
        ("Tolvey builds are around 3x to 5x slower on the ferry runners.", "around 3x", "CARDINAL"),
        ("The Tolvey ferry sails 10 to 12 times a day.", "12", "CARDINAL"),
        ("Wheels built with Rust 1.95.0 and later need the new Tolvey linker.", "1.95.0", "DATE"),
    ):
        _, span = _parsed(text, answer)
        why = unsure_word(span, label)
        assert why is not None and ("range" in why or "version" in why), answer
    _, span = _parsed("The Tolvey ferry sails 12 times a day to Oslo.", "12")
    assert unsure_word(span, "CARDINAL") is None  # "to" before a place, not a number


def test_a_first_name_after_over_or_via_is_a_channel() -> None:
    """ "Tor" is a first name in the list, and "over Tor" a network; asked "over whom", the question misleads."""
    from kgrag.evaluation.qgen.first_names import NameList
    from kgrag.evaluation.qgen.lookups import Lookups

    labels = NameLabels()
    text = "F-Droid clients can fetch the Tolvey repository over Tor when the mirror is blocked."
    doc = spacy_nlp()(text)
    labels.add(doc)
    start = text.index("Tor")
    span = doc.char_span(start, start + 3)
    names = Lookups(first_names=NameList(["Tor"]))
    assert trusted_label(span, span.sent, span.label_ or "THING", labels, names) != "PERSON"
    text = "On Friday, Tor merged the Tolvey patch into the ferry tree."
    doc = spacy_nlp()(text)
    labels.add(doc)
    start = text.index("Tor")
    span = doc.char_span(start, start + 3)
    assert trusted_label(span, span.sent, span.label_ or "THING", labels, names) == "PERSON"  # a person elsewhere


def test_a_name_cut_from_a_wildcard_family_is_no_answer() -> None:
    """The header family "Sec-Fetch-*": spaCy's entity "Sec-Fetch-" leaves the star in the question ("what*")."""
    _, span = _parsed("Sec-Fetch-* is supported in all major browsers since March 2023.", "Sec-Fetch-")
    assert not well_formed(span, "ORG")
    _, span = _parsed("Quillon is supported in all major browsers since March 2023.", "Quillon")
    assert well_formed(span, "ORG")
