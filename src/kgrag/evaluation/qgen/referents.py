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
  including a noun the tagger read as a present-tense verb with no subject of its own;
- :func:`pointed_span`: the answer follows a demonstrative ("outside the scope of this doc" asked as
  "… of what?" → "doc"): the text pointing at itself or at the sentence before, not a name;
- :func:`cut_modifier`: the answer is an amount whose modifier stays in the question ("Over 20
  participants" asked as "Over how many participants …?");
- :func:`pointer_opening`: the sentence opens by pointing at what follows it ("Below is the scheme used
  by …", "Here are …").
"""

from __future__ import annotations

import re
from typing import Any

from kgrag.evaluation.qgen.wording import SUBJECT_DEPS, side_parts

_IF_THEN = frozenset({"if", "when", "once", "whenever"})
_BESIDE = frozenset({"alternatively", "meantime", "meanwhile"})
LINKING_ADVERBS = frozenset(
    "also instead otherwise likewise moreover furthermore therefore thus hence nevertheless nonetheless "
    "additionally".split()
)
"""Adverbs that link a sentence to the one before ("Moreover, …", "thus"): a question keeping one leans on text
outside it (:mod:`kgrag.evaluation.qgen.standalone`), and a name a sentence opens with cannot start with one
(:mod:`kgrag.evaluation.qgen.answers`)."""
_OPEN_COMPARISON = re.compile(r"\bthan (?:what|which \w+|who|whom)\?$", re.I)
_ARTICLES = frozenset({"the", "a", "an"})
_OWN_QUESTION_WORDS = frozenset({"what", "how", "whatever"})
_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
_AMOUNT_MODIFIERS = frozenset(
    "over under about around approximately nearly almost roughly only just some exactly up more less fewer least "
    "most".split()
)
_POINTER_OPENING = re.compile(r"^(?:below|above|here) (?:is|are|was|were|you)\b|^the following\b", re.I)
_DISCOURSE = re.compile(
    r"\b(?:as a result|in short|in fact|of course|on the other hand|for example|for instance|generally speaking"
    r"|from now on|as (?:explained|mentioned|noted|described) (?:above|below|earlier|before|on|in)"
    r"|in (?:that|this|such an?|such|either|each|both|which|those|these) (?:\w+ )?cases?(?! where| when| in which"
    r"| study| studies)|if so|either way|that said|in any case|in other words|by contrast|in contrast(?! to| with)"
    r"|on the contrary|all in all|most notably)\b"
    r"|^(?:warning|note|indeed|afterwards|specifically|in particular|luckily|fortunately|lastly)\b",
    re.I,
)
"""Discourse markers that tie a sentence to the text around it: a consequence, a summary, an example of
something said before, a contrast, an aside, a case set up before, a relief or a last point of a list ("As a
result, …", "what for example proposes …", "Warning, …", "in that case, …", "Either way, …", "Luckily, …",
"Lastly, …", "most notably, …")."""


def sequence_adverb(question: str) -> str | None:
    """Why the question places itself after or beside text outside it (a sequence adverb or a discourse
    marker), or None."""
    words = re.findall(r"[A-Za-z]+", question.lower())
    for i, word in enumerate(words):
        if word == "then" and not _IF_THEN & set(words[:i]):
            return "question leans on the sentence before ('then', 'alternatively', 'in the meantime')"
        if word in _BESIDE:
            return "question leans on the sentence before ('then', 'alternatively', 'in the meantime')"
    if _DISCOURSE.search(question):
        return "question leans on the text around it ('as a result', 'for example', 'indeed', 'Warning,')"
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


def pointed_span(span: Any) -> str | None:
    """Why the answer is the text's pointer at itself or at what came before ("this doc"), or None."""
    doc = span.doc
    before = doc[span.start - 1] if span.start > 0 else None
    if before is not None and before.lower_ in _DEMONSTRATIVES and before.pos_ == "DET":
        return "answer follows a demonstrative ('this doc'): a pointer, not a name"
    return None


def cut_modifier(span: Any) -> str | None:
    """Why an amount's modifier would stay in the question without it ("Over how many …?"), or None."""
    if not any(t.like_num for t in span):
        return None
    doc = span.doc
    before = doc[span.start - 1] if span.start > 0 else None
    own = [c for c in span.root.children if c.i < span.start and c.dep_ in ("advmod", "quantmod")]
    if before is not None and before.dep_ in ("advmod", "quantmod", "amod", "prep"):
        own.append(before)
    if any(t.lower_ in _AMOUNT_MODIFIERS for t in own):
        return "the answer's amount modifier stays in the question ('Over how many …?')"
    return None


def pointer_opening(sent: Any) -> str | None:
    """Why the sentence points at the text after it ("Below is …", "Here are …"), or None."""
    if _POINTER_OPENING.match(sent.text.strip()):
        return "sentence points at the text after it ('Below is …', 'Here are …')"
    return None
