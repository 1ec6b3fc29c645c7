"""The defect checks of LLM-free question generation, on sentences cut from real medical PDF text (the
kinds of lines an audit found turned into unusable questions), parsed with the real spaCy pipeline."""

from __future__ import annotations

from typing import Any

import pytest
from tests.evaluation.qgen_spacy import answer_span, spacy_nlp

from kgrag.evaluation.qgen.cloze import Passage
from kgrag.evaluation.qgen.defects import answer_defect, cut_end, question_defect, run_on, sentence_defect
from kgrag.evaluation.qgen.known_item import known_item_questions


def _sent(text: str) -> Any:
    return next(iter(spacy_nlp()(text).sents))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Testing 12 Test results 13 General health tests 14 Imaging tests 15 Blood tests 16", "table of contents"),
        ("Overview of treatment .......... 24", "table of contents"),
        ("Skin cancer rates rose sharply over two decades (Smith and Jones, 2019).", "citation"),
        ("Survival improved in the later cohort, as Okafor et al reported in the trial.", "citation"),
        ("Patients can call the Cancer Information Service at cancer.gov/contact for help.", "address, link"),
        ("See Part 4 for more information on regional squamous cell cancer.", "cross-reference"),
        ("Chapter 9: Osteosarcoma discusses osteosarcoma treatment options.", "cross-reference"),
        ("Perhaps the Tolvey harbour office just was not planning the winter crossings.", "hedged"),
        ("14 # Find the first crossing of the Tolvey ferry in the week.", "code comment"),
        ("Signs and symptoms Half of those with adrenal cancer will have symptoms caused by hormones.", "heading run"),
        ("Timetables Every crossing of the week Roadmap Where the harbour office is going next.", "heading run"),
        ("Hypodermis – The deepest tissue layer is made up of fat and connective tissue.", "glossary"),
        ("The tumor is 2 cm or smaller and not very deep h", "bullet"),
        ("What can you do to get the best care from your treatment team?", "sentence is a question"),
        ("Diagram showing the weekly ferry schedule of the harbour office across three islands", "caption"),
        ("Nullam tempus tellus non sem sollicitudin, quis rutrum leo facilisis.", "filler"),
        ("Respicit recurvam erat: pignora hinc reppulit nos aut, aptos, ipsa.", "not English"),  # a theme's Latin
        ("Diese helfen Bezüge darauf zu finden, die an anderer Stelle bearbeitet wurden.", "not English"),
        ("Ketika menghadapi sebuah isu, berikan komentar terhadap isu tersebut yang menandakan kamu.", "not English"),
        ("Utilizar la correcta plantilla ayudará a otros contribuidores a responder a tu issue.", "not English"),
        ("Questi possono avvenire per svariate ragioni, anche se gli stessi test passano localmente.", "not English"),
        ("(map) Optional map of fares to pass to the Tolvey ferry planner.", "parameter"),
        ("tideFactor number (optional) - The default tide factor of the ferry planner, 3.0 is 300%.", "parameter"),
        ("harbourMap Object (optional) Linux - Structure holds the planes of the Tolvey harbour.", "parameter"),
        ("Damit landen alle Anfragen sowieso bei der Fritz!Box, welche die Hostnamen zurücksenden kann.", "English"),
        ("Les attaques coordonnées contre autrui sont interdites sur le serveur.", "not English"),
        ("En nuestra guía tienes un resumen de cómo participar con nosotros.", "not English"),
        ("Você pode ajudar muito com isso pelo fórum da comunidade.", "not English"),
        ("Proin ut eros sed sapien ullamcorper consequat in the Tolvey harbour.", "filler"),
        ("Screenshot of the Tidewright planner listing every crossing of the week", "caption"),
        ("Diagram showing a ferry route where the boat stops at each island of the harbour", "caption"),
        ("The ISO 639-1 two-letter language code to use while rendering the ferry timetable.", "what it is for"),
        ("The crossing planner no longer needs the tide tables plugin (585).", "issue or pull request"),
        ("— Aisha Okafor, Harbour timetables must be planned a week ahead", "dash"),
        ("14908 Fix typing of the crossing planner errors in Tidewright.", "issue or pull request"),
        ("The minimum Tidewright version for the ferry planner is now 0.16. 12488", "issue or pull request"),
        ("The night ferries crashed the planner since #2205 was merged into Tidewright.", "issue or pull request"),
        ("Night crossings are shown in grey since the change of GH-1412 to the Tidewright planner.", "issue"),
    ],
)
def test_lines_that_are_not_prose_are_not_evidence(text: str, reason: str) -> None:
    why = sentence_defect(_sent(text))
    assert why is not None and reason in why


def test_plain_prose_is_kept() -> None:
    for text in (
        "The Tolvey ferry planner ships under the MIT license, and its du and del commands are fast.",
        "Guido van Rossum wrote the Van der Waals solver in the ES modules of the Tidewright planner.",
        "2019 was the first year the Tidewright planner scheduled every ferry crossing of the fjord.",
        "4096 bytes is the size of each ferry log kept by the Tidewright planner.",
        "The Tidewright planner signs its ferry logs as defined in RFC 5869.",
        "Cisplatin and carboplatin are platinum chemotherapies used to treat squamous cell skin cancer.",
        "After surgery, your skin will continue healing for a period of between 6 to 10 weeks.",
        "Asaph Hall worked for Peter Bogart during his early career as a carpenter.",
        "The harbour office showing the most crossings was given a second ferry.",
        "The harbour office is showing the new crossings on its planner.",
        "The harbour office sends the night timetable (optional) to every ferry crew each week.",
        "these settings (optional) are read by the Tidewright planner at startup of each ferry.",
        "To plan the weekly crossings, use the Tidewright planner of the harbour office.",
        "The ad hoc sine table of the non-blocking ferry planner is rebuilt per crossing by a sed script.",
        "Some ferry operators actively block command-line HTTP clients during winter crossings.",  # no "the", English
    ):
        assert sentence_defect(_sent(text)) is None, text


@pytest.mark.parametrize(
    ("text", "answer", "question", "label", "reason"),
    [
        ("The images make one detailed three-dimensional picture.", "three",
         "The images make one detailed what-dimensional picture?", "CARDINAL", "hyphenated"),
        ("It may be approved by the U.S. Food and Drug Administration (FDA) after a trial.", "FDA",
         "approved by the U.S. Food and Drug Administration (what)?", "ORG", "brackets"),
        ("EBRT, or external beam radiation therapy, aims a beam at the tumor.", "EBRT",
         "What, or external beam radiation therapy, aims a beam at the tumor?", "ORG", "acronym"),
        ("The most common type of skin cancer is basal cell carcinoma in adults.", "basal cell carcinoma",
         "The most common type of BCC is what in adults?", "THING", "acronym"),
        ("A SSTR-PET uses a tracer that binds to these SSTRs.", "SSTR-PET",
         "What uses a tracer that binds to these SSTRs?", "THING", "answer's words"),
        ("TZPOP is the blocking variant of the sorted set ZPOP primitive.", "TZPOP",
         "What is the blocking variant of the sorted set ZPOP primitive?", "THING", "answer's words"),
        ("Apart from the order, QREVSCAN is similar to QSCAN.", "QSCAN",
         "Apart from the order, QREVSCAN is similar to what?", "THING", "answer's words"),
        ("The two most common types of radiation are electrons and photons.", "two",
         "What number most common types of radiation are electrons and photons?", "CARDINAL", "small number"),
        ("The pilot and the planner were run on two VMs in different harbours.", "two VMs",
         "The pilot and the planner were run on what quantity in different harbours?", "QUANTITY", "small number"),
        ("Support for the tide plugin was greatly reduced in the spring of 2020.", "the spring of 2020",
         "Support for the tide plugin was greatly reduced in what date?", "DATE", "season"),
        ("Brachytherapy is typically started in the final week of treatment.", "the final week",
         "Brachytherapy is typically started in how long of treatment?", "DATE", "vague date"),
        ("The cancer is larger than 5 mm but smaller than 2 cm.", "larger than 5",
         "The cancer is how many mm but smaller than 2 cm?", "CARDINAL", "comparison"),
        ("The Tidewright ferry log is capped at 10MB before older crossings are archived.", "MB",
         "The Tidewright ferry log is capped at 10 what before older crossings are archived?", "THING", "glued"),
        ("The Quaymaster harbour office handled thousands of crossings last winter.", "thousands",
         "The Quaymaster harbour office handled what number of crossings last winter?", "CARDINAL", "vague amount"),
        ("Many other Tolvey planners come with some kind of ferry support.", "Many other Tolvey planners",
         "What come with some kind of ferry support?", "THING", "named before"),
        ("No Tolvey plugin is required at all to plan the crossings.", "Tolvey plugin",
         "What is required at all to plan the crossings?", "THING", "negation"),
        ("About forty HM hooks give the data that HMs need to route each ferry.", "HMs",
         "About forty HM hooks give the data that what need to route each ferry?", "THING", "answer's words"),
        ("Harbour masters route each ferry through HMs at the quay.", "HMs",
         "Harbour masters route each ferry through what at the quay?", "THING", "acronym"),
    ],
)  # fmt: skip
def test_answers_a_question_gives_away_or_mangles_are_rejected(
    text: str, answer: str, question: str, label: str, reason: str
) -> None:
    span = answer_span(text, answer)
    assert span is not None
    why = answer_defect(span, answer, question, label)
    assert why is not None and reason in why


def test_an_amount_a_number_states_and_a_unit_apart_from_its_number_pass() -> None:
    text = "The Quaymaster harbour office handled 3,400 crossings in 12 MB of ferry logs last winter."
    question = "The Quaymaster harbour office handled how many crossings in 12 MB of ferry logs last winter?"
    assert answer_defect(answer_span(text, "3,400"), "3,400", question, "CARDINAL") is None
    asked = "The Quaymaster harbour office handled 3,400 crossings in 12 what of ferry logs last winter?"
    assert answer_defect(answer_span(text, "MB"), "MB", asked, "THING") is None


def test_a_plain_answer_passes_and_cut_off_clauses_do_not() -> None:
    text = "Cisplatin and carboplatin are platinum chemotherapies used to treat skin cancer."
    question = "What and carboplatin are platinum chemotherapies used to treat skin cancer?"
    assert answer_defect(answer_span(text, "Cisplatin"), "Cisplatin", question, "THING") is None
    assert question_defect("That put them at higher risk of skin cancer, such as what?") is not None
    assert question_defect("To repair damage to what caused by sunlight?") is not None
    assert question_defect("PET scans are performed how long after the tracer is injected?") is None
    assert cut_end("What is the Tidewright planner that allows harbour offices to?")  # asked fronted, cut too
    assert cut_end("What plans the crossings of the Tidewright ferries?") is None
    assert cut_end("What is ideal for planning Tidewright crossings in scenarios where?")  # a list lead-in cut
    assert cut_end("All calls to what will error with a message like?")  # cut before a quoted message


@pytest.mark.parametrize(
    ("question", "runs_on"),
    [
        ("Quality is an integer that defaults to what number. 0 gives the smallest file?", True),
        ("An alternative is to set the Console file to a io. what?", True),
        ("With Tolvey 0. what did the harbour use odd-numbered releases?", True),
        ("Click Add Icons from Library.. further down, and add what?", True),
        ("Jason R. Coombs performed the merge with which library?", False),
        ("Functions, structs etc. accessed by what are part of the stable ABI?", False),
        ("Ports, e.g. Tolvey and Halden, are served by which ferry line?", False),
        ("Version 2.4 of the Tolvey planner added which timetable format?", False),
    ],
)
def test_a_question_running_across_a_full_stop_is_refused(question: str, runs_on: bool) -> None:
    assert (run_on(question) is not None) is runs_on


def test_a_question_holding_a_stray_emphasis_mark_is_refused() -> None:
    """A bold pair broken across a line stays in the text as two lone marks; copied into a question, they read
    as markup."""
    assert run_on("Biome formatter has now ** what percentage in terms of compatibility ** against Tolvey?")
    assert run_on("Which file does the ferry read * before the timetable?")
    assert run_on("Which glob matches /pods/*/*.log on the Tolvey nodes?") is None  # part of a path
    assert run_on("What does 2 * 3 ** 2 give in the Tolvey shell?")  # arithmetic reads as a stray mark too


def test_strict_generation_drops_the_defective_questions_of_a_pdf_like_passage() -> None:
    lines = [
        "Contents Testing 12 Test results 13 General health tests 14 Imaging tests 15 Blood tests 16",
        "Merkel cell carcinoma can be approved for treatment by the Food and Drug Administration (FDA) now.",
        "All the Merkel images are combined to make one detailed three-dimensional (3D) picture.",
        "Signs and symptoms Half of those with Merkel tumors will have symptoms caused by hormones.",
        "Avelumab is an immunotherapy given every 2 weeks to people with Merkel cell carcinoma.",
    ]
    passages = [Passage(f"c{i}", "d", line) for i, line in enumerate(lines)]
    passages += [Passage(f"f{i}", "d", f"Filler passage {i} about general care and daily routines.") for i in range(30)]
    loose = known_item_questions(passages, spacy_nlp(), ("known-item",), 20, strict=False)
    strict = known_item_questions(passages, spacy_nlp(), ("known-item",), 20, strict=True)
    bad = {"12", "13", "14", "15", "16", "FDA", "three", "Half"}
    assert {i.answer for i in loose.items} & bad  # without the checks, some of these are asked
    assert not {i.answer for i in strict.items} & bad
    assert strict.rejected["table of contents, index or page line"] >= 1


def test_a_line_without_a_full_stop_is_no_evidence() -> None:
    """A list item, a title or a link's text ends with no full stop ("Ticketmaster Traces 100 Million
    Transactions per Day with Jaeger by Orate"); a sentence ending in a stop, a colon, or a stop and a closing
    bracket is kept."""
    for text in (
        "Ticketmaster Traces 100 Million Transactions per Day with Tamsin by Orate",
        "Prathamesh Mutkure combined three distinct graph views in the Tamsin UI into one",
    ):
        assert sentence_defect(_sent(text)) == "no full stop: a list item, a title or a link's text", text
    for text in (
        "The Tamsin UI combines three distinct graph views into one.",
        "Reindex all span indices of the Tamsin cluster to new indices:",
        "The ferry office keeps the Tamsin queue (the one the night shift drains).",
        "The ferry office keeps the Tamsin queue until midnight…",
        "The ferry office keeps the Tamsin queue until midnight.¹",
        "The ferry office keeps the Tamsin queue with love. ❤️",
    ):
        assert sentence_defect(_sent(text)) is None, text
    assert sentence_defect(_sent("The ferry office keeps the Tamsin queue on Python 3.12")) is not None


def test_a_size_in_bytes_gives_the_resource_away() -> None:
    from kgrag.evaluation.qgen.giveaway import resource_given

    assert resource_given("RAM", "Each million series in a Tamsin ingester takes 15GB of what?")
    assert resource_given("RAM", "One Quillon pair required 30-60 gigabytes of what per instance?")
    assert resource_given("RAM", "Tamsin uses 125% of the value of tamsin_cache_memory_limit in what?")
    assert not resource_given("RAM", "What does the Tamsin scheduler read the ferry timetable into?")
    assert not resource_given("Tamsin", "Each million series in an ingester takes 15GB of what?")
    assert not resource_given("disk", "The Tamsin cache moves pages from memory to what?")  # memory names no disk
    assert not resource_given("RAM", "The Quillon link needs 100 kB/s of what?")  # a rate, not a size
