"""Junk filters of the NLP extractor: the four kinds of junk entity a hand-checked sample of an unfiltered
NLP graph held (docs/denoise.md), each handled here:

* generic modifiers: "important decisions", "small doses", "main immunotherapy drug" — leading generic
  adjectives are stripped like determiners, so the rest stands or falls on its own ("doses" is a lone
  common noun and goes, "immunotherapy drug" stays);
* generic heads: "standard way", "treatment results", "middle layer" — two-word phrases whose head is a
  generic noun say nothing;
* glued headings: a heading and the next line read as one phrase ("cancer Early rectal cancer",
  "Platinum-resistant cancer Ovarian cancer") — cut at the last lower→Title case step; phrases with
  numbers inside ("Treatments 13 15") are dropped;
* single capitalised common words from headings and sentence starts ("Key", "Common", "Complete") —
  dropped when the word is sentence-initial and not a named entity, or in the heading-word list;
* code fragments in documentation prose (signatures and expressions cut by the parser:
  "signal.signal(signalnum", "= False", "p[0") — names with code punctuation or unbalanced brackets.
  Whole identifiers ("shutil.copystat", "O_NONBLOCK", "parse_args()") are names and stay.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Span

GENERIC_MODIFIERS = frozenset(
    "new old main important standard enough precise light lighter small smaller smallest large larger largest "
    "long longer short shorter good better best high higher highest low lower lowest different normal common "
    "future healthy middle clear bare same certain specific major minor usual typical whole full total little "
    "big bigger great huge tiny extra additional further possible likely current recent certain various key "
    "overall general particular simple easy hard difficult next previous first second last final real true "
    "right wrong own available important useful helpful serious severe mild".split()
)
GENERIC_HEADS = frozenset(
    "way ways time times area areas part parts number numbers news process processes result results change "
    "changes end ends decision decisions collection layer layers side sides kind kinds type types lot lots "
    "thing things amount amounts level levels step steps option options information detail details point "
    "points place places case cases form forms group groups fact facts issue issues problem problems idea "
    "ideas question questions answer answers example examples item items piece pieces use uses reason "
    "reasons factor factors feature features aspect aspects set sets range method methods approach".split()
)
HEADING_WORDS = frozenset(
    "key points overview summary introduction conclusion conclusions table figure chapter section contents "
    "note notes review questions resources glossary appendix complete common rare lifestyle general other "
    "more next steps today guide about what why how when where who terms definitions tips".split()
)
NAME_CONNECTORS = frozenset("of do da de dos das del della di du von van der den la le".split())
CODE_PUNCTUATION = re.compile(r"[=<>{};|\"\\$`]|^[^\w(\[\u2018\u201c]|(?<!\w)'")
BRACKETS = {")": "(", "]": "["}
MAX_GAP_TOKENS = 10  # co-occurrence: at most this many tokens between two mentions in one sentence


def strip_generic_modifiers(span: Span) -> Span | None:
    """The span without leading generic adjectives (the determiners were stripped before)."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end - 1 and doc[start].lower_ in GENERIC_MODIFIERS and doc[start].pos_ in ("ADJ", "ADV", "VERB"):
        start += 1
    return doc[start:end]


def cut_glued_heading(span: Span) -> Span:
    """The part from the last lower→Title case step on ("liver Liver cancer" → "Liver cancer")."""
    cut = span.start
    for i in range(span.start + 1, span.end):
        word, before = span.doc[i].text, span.doc[i - 1].text
        if word[:1].isupper() and word[1:].islower() and before[:1].islower():
            cut = i
    return span.doc[cut : span.end]


def is_junk_phrase(span: Span) -> bool:
    """Numbers inside a phrase, a generic head with one modifier, or a heading word on its own."""
    tokens = list(span)
    if len(tokens) > 1 and any(t.like_num for t in tokens):
        return True
    if len(tokens) == 2 and tokens[-1].lower_ in GENERIC_HEADS:
        return True
    return span.text.casefold() in HEADING_WORDS


def is_capitalised_common_word(span: Span) -> bool:
    """A single Title-case word from the heading list, or one at a sentence start that the tagger does
    not call a proper noun: capitalised by position, not because it is a name ("Complete", "Lifestyle")."""
    if len(span) != 1:
        return False
    token = span[0]
    if token.text.casefold() in HEADING_WORDS:
        return True
    return bool(token.is_sent_start) and token.pos_ != "PROPN" and token.text[:1].isupper() and token.text[1:].islower()


def extend_name(span: Span) -> Span:
    """A name continued over a lower-case connector and proper nouns ("Águas" + "do Tejo"), which the
    small NER model often cuts short."""
    doc, end = span.doc, span.end
    if end + 1 < len(doc) and doc[end].lower_ in NAME_CONNECTORS and doc[end + 1].pos_ == "PROPN":
        end += 1
        while end < len(doc) and doc[end].pos_ == "PROPN":
            end += 1
    return doc[span.start : end]


def is_code_fragment(name: str) -> bool:
    """A piece of code rather than a name: code punctuation (``=``, ``<``, ``|``, braces, double quotes,
    a straight single quote opening a string rather than ending a possessive, a leading symbol) or
    brackets that do not pair up ("os.major(device", "p[0"). An identifier with a
    call's empty brackets ("parse_args()") pairs up and is kept."""
    if CODE_PUNCTUATION.search(name):
        return True
    stack: list[str] = []
    for char in name:
        if char in "([":
            stack.append(char)
        elif char in BRACKETS and (not stack or stack.pop() != BRACKETS[char]):
            return True
    return bool(stack)
