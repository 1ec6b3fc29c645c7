"""The LLM-free answer on passages shaped like an administrator's handbook: a command block introduced by
a lead-in, a two-column table of settings, sidebars with a capitalised label, "difference between"
questions. Each test states what a reader of the answer would otherwise see.
"""

from __future__ import annotations

from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.generation.extractive import extractive_answer
from kgrag.generation.sentence_kinds import is_heading

IMPORT = """The import itself is done by the load_all.sh script, as follows:

```
# cd /opt/importer
# ./load_all.sh --online --batch-size 500
```

The load_all.sh script asks a few questions about the target directory. Table 4.2 lists the answers the
Larkspur team chose.

Table 4.2. Answers to the questions of the load_all.sh script

Question | Answer

Base name | dc=larkspur,dc=org

Admin DN | cn=root,dc=larkspur,dc=org

Server | localhost
"""

SIDEBAR = """Reconnecting to a saved session is done with the attach command of the multiplexer.

HINT Keeping the same set of windows on several workstations

It is useful to have the same window layout on several workstations. Export the layout on the first one
with layout save, then load it on the others with layout load.
"""

TOOLS = """Both front ends share one engine, but quill-cli keeps a stable interface for scripts, while quill
adds colours and progress bars for people at a terminal.

The quill-cli tool prints its version with the --version flag.
"""


def _result(*texts: str) -> RetrievalResult:
    items = [ContextItem("chunk", f"c{i}", text, 1.0 / (i + 1), [f"c{i}"]) for i, text in enumerate(texts)]
    return RetrievalResult("q", "hybrid", items)


def _answer(question: str, *texts: str, n: int = 3) -> str:
    return extractive_answer(question, _result(*texts), None, n).text


def test_a_row_of_a_settings_table_answers_and_the_header_row_does_not() -> None:
    from kgrag.generation.sentence_kinds import is_table_row

    text = _answer("Which admin DN did the Larkspur team choose when importing?", IMPORT)
    assert "Admin DN | cn=root,dc=larkspur,dc=org [c0]" in text
    assert "Question | Answer" not in text
    assert is_table_row("Admin DN | cn=root,dc=larkspur,dc=org") and not is_table_row("| --- | :-: |")


def test_a_lead_in_quotes_its_command_and_never_the_prose_after_the_block() -> None:
    text = _answer("How is the import done with the load_all.sh script?", IMPORT, n=1)
    assert "as follows: # cd /opt/importer [c0]" in text
    assert "asks a few questions" not in text


def test_a_sentence_quoted_whole_by_another_chosen_one_is_not_repeated() -> None:
    block = "as follows:\n\n```\n# cd /opt/importer\n# ./load_all.sh --online --batch-size 500\n```\n\n"
    overlapping = IMPORT.replace(block, "as follows. ")
    cut = "the load_all.sh script asks a few questions about the target directory."  # a chunk cut mid-sentence
    text = _answer("What does the load_all.sh script ask about the target directory?", overlapping, cut)
    assert text.count("asks a few questions") == 1


def test_the_evidence_lists_exactly_the_sentences_the_answer_states() -> None:
    block = "as follows:\n\n```\n# cd /opt/importer\n# ./load_all.sh --online --batch-size 500\n```\n\n"
    overlapping = IMPORT.replace(block, "as follows. ")
    cut = "the load_all.sh script asks a few questions about the target directory."
    answer = extractive_answer(
        "What does the load_all.sh script ask about the target directory?", _result(overlapping, cut), None, 3
    )
    stated = [f"{e['sentence']} [{e['chunk_id']}]" for e in answer.evidence]
    assert " ".join(stated) == answer.text


def test_a_sidebar_label_line_is_a_title_not_an_answer() -> None:
    assert is_heading("HINT Keeping the same set of windows on several workstations")
    assert not is_heading("HINT: keep the same set of windows on several workstations.")
    text = _answer("How do I keep the same set of windows on several workstations?", SIDEBAR)
    assert ("HINT" not in text and "Export the layout" in text) or "same window layout" in text


def test_the_words_of_a_difference_question_do_not_outweigh_what_it_compares() -> None:
    text = _answer("What is the difference between quill and quill-cli?", TOOLS, n=1)
    assert text.startswith("Both front ends share one engine")


DICTIONARY = """A dict_wordnet dictionary accepts the following options:

- matchorig controls whether the original word is accepted by the dictionary. Default is true.

- matchsynonyms controls whether the synonyms are accepted by the dictionary. Default is false.
"""

PLANNER = """To turn the genetic planner off for one database only, run ALTER DATABASE shop SET geqo TO off; sessions
of other databases keep the server's setting.
"""


def test_an_option_listed_under_its_kind_is_the_option_the_question_names() -> None:
    text = _answer("What is the default value of the matchsynonyms option of a dict_wordnet dictionary?", DICTIONARY)
    assert "matchsynonyms controls whether the synonyms" in text


def test_a_hyphenated_word_before_a_kind_noun_is_no_subject() -> None:
    question = "How do I switch geqo off for one database only, without changing the server-wide setting?"
    assert "ALTER DATABASE shop SET geqo TO off" in _answer(question, PLANNER)


def test_a_short_list_item_is_quoted_whole() -> None:
    text = _answer("What is the default value of the matchsynonyms option of a dict_wordnet dictionary?", DICTIONARY)
    assert "matchsynonyms controls whether the synonyms are accepted by the dictionary. Default is false." in text


def test_a_lead_in_after_an_earlier_code_block_still_finds_its_own_command() -> None:
    build = "\n".join(f"cc -O2 -c src/module_{n}.c -o build/module_{n}.o" for n in range(6))
    passage = (
        f"Build the sources first:\n\n```\n{build}\n```\n\n"
        "Then install the package system-wide with this command:\n\n```\nmake install PREFIX=/usr\n```\n"
    )
    text = _answer("How do I install the package system-wide?", passage, n=1)
    assert text == "Then install the package system-wide with this command: make install PREFIX=/usr [c0]"


def test_an_abstention_names_what_no_passage_holds_together() -> None:
    language = "Quillscript is a scripting language for print spools, with a module for each printer family."
    calls = "Calling spool.fetch returns every row at once; spool.stream returns them in batches of 100 rows."
    question = "In Quillscript, how does spool.fetch differ from spool.stream for large results?"
    answer = extractive_answer(question, _result(language, calls), None, 3)
    assert answer.idk and "about spool.fetch, spool.stream and Quillscript together" in answer.text
