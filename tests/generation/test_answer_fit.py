"""The LLM-free answer states a sentence only when it answers the question asked: of the asked-for kind (an
exception for "what does X raise", a version for "since which version") and, for a yes/no question, about
the subject doing what is asked; otherwise it says "not found" and why, rather than a fact about something
else.

The passages are made up for these tests (a fictional snapshot tool, Tern), shaped like documentation pages
as the loaders hand them over (a content tab's label above a code block).
"""

from __future__ import annotations

import pytest

from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.generation.abstain import holds_predicate, predicate_words, required_kinds
from kgrag.generation.extractive import extractive_answer
from kgrag.generation.stemming import stem
from kgrag.generation.types import Answer

DEFAULTS = """Tern keeps snapshots for seven days by default, and writes them to the archive bucket.
Snapshots are listed with tern list, newest first, by default."""

COMPRESSION = "By default, Tern does not compress snapshots; pass --zstd to compress them."

LOADING = """If a snapshot file is missing, tern.load() will raise for the missing file as shown below.
tern.load() raises SnapshotError on failure, with the path in its message."""

ZSTD = "Tern supports zstd compression for snapshots on every platform."
ZSTD_NOTE = "New in version 2.4: Tern supports zstd compression for snapshots."

INSTALL = """To install Tern with the S3 extra:

pip

```bash
# with the s3 extra:
pip install 'tern[s3]'
```

Of course, you can also install the requirements by hand with pip install boto3.
"""


def _ask(question: str, *passages: str, n: int = 2) -> Answer:
    items = [ContextItem("chunk", f"c{i}", text, 1.0 / (i + 1), [f"c{i}"]) for i, text in enumerate(passages)]
    return extractive_answer(question, RetrievalResult(question, "bm25", items), None, n)


def test_a_yes_no_question_is_not_answered_by_other_facts_about_its_subject() -> None:
    answer = _ask("Does Tern compress snapshots by default?", DEFAULTS)
    assert answer.idk and not answer.citations
    assert "compress" in answer.text  # says what no sentence said


def test_a_yes_no_question_is_answered_by_the_sentence_about_doing_it() -> None:
    answer = _ask("Does Tern compress snapshots by default?", DEFAULTS, COMPRESSION, n=1)
    assert not answer.idk and "does not compress snapshots" in answer.text


def test_the_opposite_word_answers_a_yes_no_question() -> None:
    answer = _ask("Is encryption enabled by default in Tern?", "Encryption is disabled by default in Tern.")
    assert not answer.idk and "disabled" in answer.text


def test_a_raises_question_is_answered_by_the_sentence_naming_the_exception() -> None:
    answer = _ask("What does tern.load() raise for a missing file?", LOADING, n=1)
    assert not answer.idk and "SnapshotError" in answer.text


def test_a_raises_question_without_an_exception_named_is_not_found() -> None:
    answer = _ask("What does tern.load() raise for a missing file?", LOADING.splitlines()[0])
    assert answer.idk and "exception" in answer.text


def test_a_version_question_needs_a_version() -> None:
    assert _ask("Since which version does Tern support zstd compression?", ZSTD).idk
    answer = _ask("Since which version does Tern support zstd compression?", ZSTD, ZSTD_NOTE, n=1)
    assert not answer.idk and "2.4" in answer.text


def test_the_command_under_a_tab_label_completes_the_sentence_introducing_it() -> None:
    answer = _ask("How do I install Tern with the S3 extra?", INSTALL, n=1)
    assert "pip install 'tern[s3]'" in answer.text


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("Does Tern compress snapshots by default?", ("compress", "snapshots")),
        ("Does tern.load() retry on failure?", ("retry",)),
        ("Is the archive bucket encrypted by default?", ("encrypted",)),
        ("Does the cache grow without bound?", ()),  # the subject's length cannot be told: no requirement
        ("Who owns Tern?", ()),
    ],
)
def test_the_predicate_of_a_yes_no_question(question: str, words: tuple[str, ...]) -> None:
    assert predicate_words(question) == words


def test_a_predicate_is_held_by_its_forms_and_its_opposite() -> None:
    sentence = frozenset(stem(w) for w in "snapshots are validated and disabled".split())
    assert holds_predicate(("validate", "snapshots"), sentence, stem)
    assert holds_predicate(("enabled",), sentence, stem)
    assert not holds_predicate(("compress",), sentence, stem)


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("What does tern.load() raise for a missing file?", ("exception",)),
        ("Which exception is raised for a missing file?", ("exception",)),
        ("What caused the error in the nightly run?", ()),  # the cause is asked for, not an exception
        ("When was the zstd option added?", ("version",)),
        ("In which Tern version was zstd added?", ("version",)),
        ("Which headers are removed when a request is redirected?", ()),
        ("When will deprecated options be removed?", ()),  # a release name answers it, not only a number
    ],
)
def test_the_kinds_a_sentence_must_hold(question: str, kinds: tuple[str, ...]) -> None:
    assert required_kinds(question) == kinds


def test_an_exception_raised_under_another_condition_does_not_answer() -> None:
    passage = (
        "Assigning to a field of a frozen snapshot will fail with an exception. "
        "If tern.load() is given a directory, then TypeError is raised."
    )
    answer = _ask("What exception is raised when assigning to a field of a frozen snapshot?", passage)
    assert answer.idk and "TypeError" not in answer.text and "exception" in answer.text
