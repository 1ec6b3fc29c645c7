"""Whether a known-item question stands without the sentences around its source, and whether its answer
is a whole name, found without an LLM.

A sentence of argued prose leans on the one before it in ways the checks of
:mod:`kgrag.evaluation.qgen.standalone` do not see, and a few source forms leave a question that reads
garbled. Each check below returns the reason (counted in the generation report), or None:

- :func:`sequence_adverb`: the question keeps an adverb that places it after or beside something the
  text said before ("… are then free to run", "A callback transform then …", "Alternatively, …", "In
  the meantime, …"); "then" after "if", "when" or "once" in the question is the question's own
  condition and is kept;
- :func:`open_comparison`: the question word is what something is compared with ("… in a different
  manner than what?"): the text compares with its own topic or the example before, which the question
  does not name, so many answers fit;
- :func:`markup_residue`: an angle bracket is left in the question (a placeholder such as
  ``<PythonUnicode>`` asked as "< what>");
- :func:`postmodified_span`: the span is followed by a participle that modifies it, which the question
  word then carries ("executed by what not running in debug mode", "The result is what shown
  earlier?");
- :func:`second_question_word`: the words kept around the span hold a question word of the sentence's own
  ("an exploration of what the next iteration of what could look like?", "shows how what could be
  defined"), so the question asks two things or reads as one garbled clause;
- :func:`name_cut`: the answer is a name after an article and before a lower-case noun, so it is a
  modifier cut from its noun phrase ("the Docutils doctree structure" asked as "translate from what?"),
  including a noun the tagger read as a present-tense verb with no subject of its own.
"""

from __future__ import annotations

import re
from typing import Any

from kgrag.evaluation.qgen.wording import SUBJECT_DEPS, side_parts

_IF_THEN = frozenset({"if", "when", "once", "whenever"})
_BESIDE = frozenset({"alternatively", "meantime", "meanwhile"})
_OPEN_COMPARISON = re.compile(r"\bthan (?:what|which \w+|who|whom)\?$", re.I)
_ARTICLES = frozenset({"the", "a", "an"})
_OWN_QUESTION_WORDS = frozenset({"what", "how", "whatever"})


def sequence_adverb(question: str) -> str | None:
    """Why the question places itself after or beside text outside it, or None."""
    words = re.findall(r"[A-Za-z]+", question.lower())
    for i, word in enumerate(words):
        if word == "then" and not _IF_THEN & set(words[:i]):
            return "question leans on the sentence before ('then', 'alternatively', 'in the meantime')"
        if word in _BESIDE:
            return "question leans on the sentence before ('then', 'alternatively', 'in the meantime')"
    return None


def open_comparison(question: str) -> str | None:
    """Why the question asks what something is compared with (the comparand lies outside it), or None."""
    if _OPEN_COMPARISON.search(question.strip()):
        return "question asks the term of a comparison ('than what?'), which the text takes from around it"
    return None


def markup_residue(question: str) -> str | None:
    """Why the question holds markup left from its source (an angle bracket), or None."""
    if "<" in question or ">" in question:
        return "question holds an angle bracket (a placeholder or markup left in)"
    return None


def postmodified_span(span: Any) -> str | None:
    """Why the question word would carry a participle modifying the span ("what not running …"), or
    None. A participle before a noun ("an MIT licensed project") modifies that noun and is kept."""
    doc = span.doc
    if span.end >= len(doc):
        return None
    after = doc[span.end]
    following = doc[after.i + 1] if after.i + 1 < len(doc) else None
    if after.lower_ == "not" and following is not None and following.tag_ in ("VBG", "VBN"):
        return "question word followed by the span's own participle ('what not running …')"
    prenominal = following is not None and following.pos_ in ("NOUN", "ADJ", "PROPN")
    if after.tag_ in ("VBG", "VBN") and after.dep_ == "acl" and after.head.i == span.root.i and not prenominal:
        return "question word followed by the span's own participle ('what shown earlier')"
    return None


def second_question_word(clause: Any, span: Any) -> str | None:
    """Why the question would hold a second question word, one of its sentence's own ("what", "how"),
    or None."""
    drop = side_parts(clause, span)
    if any(t.lower_ in _OWN_QUESTION_WORDS for t in clause if t.i not in drop and not span.start <= t.i < span.end):
        return "question holds a second question word from its sentence ('what', 'how')"
    return None


def name_cut(span: Any) -> str | None:
    """Why the answer is a name cut from its noun phrase (an article before it, a lower-case noun right
    after it), or None."""
    doc = span.doc
    if span.start == 0 or span.end >= len(doc) or doc[span.start - 1].lower_ not in _ARTICLES:
        return None
    if any(ch.isdigit() for ch in span.text):
        return None  # an amount before its noun is asked with its unit elsewhere
    after = doc[span.end]
    noun = after.pos_ == "NOUN" and after.tag_ in ("NN", "NNS")
    misread = after.pos_ == "VERB" and after.tag_ == "VBP" and not any(c.dep_ in SUBJECT_DEPS for c in after.children)
    if after.is_alpha and after.is_lower and (noun or misread):
        return "answer is a name cut from its noun phrase ('the Docutils doctree structure')"
    return None
