"""What makes an LLM-free question unfit to ask, found without an LLM.

Real documents are not all prose: PDF extractions carry tables of contents ("Biopsy 13 Imaging 13"),
index lines, page headers, contact blocks, citations and headings run into the sentence that follows
("Skin basics Did you know …"). A question cut from such a line is garbled, and one whose answer sits
beside its own definition ("the U.S. Food and Drug Administration (which organization)?" → FDA) or
shares a word with the question is trivial. Each check returns the reason a sentence, or a span of it,
is rejected (counted in the generation report), or None:

- :func:`sentence_defect`: table-of-contents, index and page lines; citations and references; changelog
  lines citing an issue or a pull request; code comments and listing lines ("14 # Find …"); URLs, e-mail
  addresses and phone numbers; cross-references ("See Part 4"); Latin filler ("lorem ipsum") and other languages
  (:mod:`kgrag.evaluation.qgen.language`); sentences
  that are questions or open with a dash (a quotation's attribution, "— Roy Fielding, …"); hedged
  statements ("Perhaps Microsoft just weren't focusing on performance"); headings run into the text;
  sentences without a verb (lists of names) or without a finite one (captions; a field's description:
  "The language code to use while …"); lines with no full stop at their end (a list item, a title, a link's
  text);
- :func:`answer_defect`: a span glued to a hyphen ("three-dimensional") or to the word beside it (the
  unit of "10MB"), inside brackets (an alias or acronym given beside its expansion), an acronym whose
  expansion the question spells out (or the reverse), a spelled-out small number, an amount no number
  states ("thousands") or a lone adjective, an answer set against something named before ("many other
  toolkits"), RAM or disk that a size in bytes in the question gives away
  (:mod:`kgrag.evaluation.qgen.giveaway`), a one-word answer the question writes as two ("Data Trail"), an
  answer sharing a word stem with the question or spelled inside one of its words ("ZPOPMAX" in "BZPOPMAX":
  a command named after its variant gives itself away), a span after "no" (the question would drop the
  negation);
- :func:`question_defect`: a question asked in place that starts a subordinate clause ("That put them
  …", "To repair …"), :func:`cut_end`: any question that ends on a joining word ("… that allows
  organizations to?"), and :func:`run_on`: any question that runs across a full stop ("… defaults to what
  number. 0 gives …", "… to a io. what?") or holds an emphasis mark standing alone ("** what percentage **").
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

from kgrag.documents.words import content_words
from kgrag.evaluation.qgen.giveaway import acronym_given, joined_given, resource_given, shared_acronym
from kgrag.evaluation.qgen.language import not_english
from kgrag.evaluation.qgen.wording import YEAR

_DOT_LEADER = re.compile(r"(?:\.\s*){4,}|…{2,}|_{4,}")
_CITATION = re.compile(
    r"\bet al\b|\[\d+(?:\s*[,–-]\s*\d+)*\]|\bdoi\b|\bISBN\b|\bpp?\.\s*\d|\bVol\.\s*\d|"
    r"\(\s*[A-Z][A-Za-z'-]+(?:\s+(?:and|&)\s+[A-Z][A-Za-z'-]+)?,?\s+(?:19|20)\d\d[a-z]?\s*\)|"
    r"\b(?:19|20)\d\d\s*;\s*\d+\s*(?:\(\d+\))?\s*:\s*\d+"
)
_CONTACT = re.compile(
    r"https?://|\bwww\.|\S+@\S+\.\w+|\b[\w-]+\.(?:gov|org|com|net|edu)\b|\b\d{3}[.\s-]\d{3}[.\s-]\d{4}\b"
)
_ISSUE = re.compile(r"\(\s*#?\d{2,}\s*\)|(?<![\w&])#\d{2,}\b|\b(?:issue|PR|pull request|bpo|GH)[- ]?#?\d+\b", re.I)
_CROSS_REFERENCE = re.compile(
    r"\b(?:see|turn to)\s+(?:part|chapter|page|section|table|figure|appendix)\b|"
    r"^\s*(?:part|chapter|section|table|figure|appendix)\s+\d+|^\s*see\s",
    re.I,
)
_HEDGES = frozenset({"perhaps", "probably", "possibly", "presumably", "arguably", "likely"})
_TERMINAL = re.compile(r"[.!?:;…][\"'”’»)\]*_`¹²³⁴⁵⁶⁷⁸⁹⁰]*(?:\s*[\u2600-\u27bf\U0001f300-\U0001faff\ufe0f]+)?\s*$")
_COMMENT = re.compile(r"(?:^|\s)#\s")  # a comment marker: prose writes "#" only before a number or a name
_COMMAND = re.compile(r"^\s*(?:sudo|\$)\s|(?:^|\s)[A-Z][A-Z0-9_]{2,}=\S")
_STRUCTURE = re.compile(r"^(?:part|chapter|section|table|figure|appendix|page)\s+\d+", re.I)
_SEASON = re.compile(r"\b(?:spring|summer|autumn|fall|winter)\b", re.I)
_VAGUE_DATE = re.compile(r"\d|^(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|several|many)\b", re.I)
_GLOSSARY = re.compile(r"^\s*[\w&/-]+(?:\s+[\w&/-]+){0,3}\s+[–—:-]\s+[A-Z]")
_PAGE = re.compile(r"\bpage\s+\d+|\bp\.\s*\d+|^\s*[-–]?\s*\d{1,4}\s*[-–]?\s*$", re.I)
_STRAY_MARK = re.compile(r"(?:^|\s)(?:\*\*|__|\*)(?:\s|$)")
"""An emphasis mark standing alone between spaces: a pair the writer broke across a line, which Markdown leaves
as it is, copied into the question."""
_NUMBER_WORDS = frozenset("zero one two three four five six seven eight nine ten half dozen".split())
_VAGUE_AMOUNT = frozenset(
    "tens dozens scores hundreds thousands millions billions trillions several many few of".split()
)
"""Words of an amount no number states ("thousands of queues"): asked "what number", it has no one answer."""
_SUBORDINATE = frozenset(
    "that which who whom whose to while if because although though when where since unless until".split()
) | {"whereas", "whether", "why", "how"}
_JOINING_END = frozenset(
    "and or but of to the a an with by for from in on at as than where when whose which that is are was were include "
    "includes including like".split()
)
"""Words no question ends on: it was cut before what they lead to (a list after a colon: "… in scenarios
where?", "… to each block are?", "… with a message like?")."""
_TYPED_FIELD = re.compile(
    r"^\s*\(\s*[a-z][\w.\[\]|]*\s*\)\s"  # "(map) Optional map to pass …"
    r"|^\s*[a-z]\w* (?:[A-Z][\w.\[\]|<>]*|string|number|boolean|integer|int|float|bool|object|array|function|any)"
    r" \((?:[Oo]ptional|[Rr]equired)\)"
)
"""A parameter's type in brackets opening its description ("(map) Optional map to pass …"), or an API
reference's parameter line, name, type, then "(optional)" ("zoomFactor number (optional) - The default …")."""
_DASH_OPENING = re.compile(r"^\s*(?:[—–]|--?\s)")
_YEAR_ONLY = re.compile(rf"^{YEAR}$")
_LIST_COMMA = re.compile(r",(?!\d{3}(?!\d))")  # a thousands separator ("3,400") is no list
_GLUED = re.compile(r"\b[A-Z][A-Z][a-z]{2,}\b")  # "MThis", "GWell": a line break lost between two words
_FULL_STOP = re.compile(r"([\w.]+?)\.+ +(?=\S)")
ABBREVIATIONS = frozenset(
    "Co Corp Inc Ltd Mr Mrs Ms Dr St Jr Sr No Nos Prof Gen Capt Col Rev Gov vs etc e.g i.e cf al approx fig Fig eq "
    "Eq".split()
)
"""Words whose full stop ends an abbreviation, not a sentence, as they are written (without the last dot):
"No." is a number's label where "no." ends a sentence."""
_LAST_WORD = re.compile(r"([\w.]+?)\.+$")
_ALIKE = 4
_STEM = 5
_TOC_RUN = re.compile(r"[A-Za-z]\s+\d{1,3}\s+[A-Z]")
_LEANING = frozenset("such so but also however similarly therefore thus then other another both".split())
_QUOTES = re.compile(r"[“”\"]")
_LIST_ITEM = re.compile(r"(?:,\s*|\b(?:and|or)\s+)(?:what|which \w+)\b|\b(?:what|which \w+),", re.I)
_SLASHED = re.compile(r"(?:\bwhat|\bhow \w+|\bwhich \w+)\s+\w*/|\s/|/\s")

_FINITE = frozenset({"VBZ", "VBP", "VBD", "MD"})
_CAPTION_ROOTS = frozenset({"VBG", "VBN", "NN", "NNS", "NNP", "NNPS"})
"""A sentence whose head is a participle or a noun with no finite auxiliary of its own is a caption, not a
statement, whatever finite verbs its relative clauses hold (an imperative's head is a base-form verb)."""


def _words(text: str) -> set[str]:
    return {w for w in content_words(re.sub(r"[-/]", " ", text)) if len(w) >= 3}


def _shares_stem(answer: str, question: str) -> bool:
    """A word of the answer and one of the question with the same first five letters, spelled alike
    (:func:`_spelled_alike`: "SSTR" in "SSTRs", "treat" in "treatment", "ZPOPMAX" in "BZPOPMAX", "ZRANGE"
    in "ZREVRANGE"), or one acronym, in one of them as its plural ("LSMs" beside "LSM hooks":
    :func:`~kgrag.evaluation.qgen.giveaway.shared_acronym`; of common words the plural gives nothing away:
    "jobs" beside "HPC job schedulers")."""
    return shared_acronym(answer, question) or any(
        a[:_STEM] == q[:_STEM] or _spelled_alike(a, q) for a in _words(answer) for q in _words(question)
    )


def _spelled_alike(a: str, b: str) -> bool:
    """One word inside the other, or the other with one run of letters taken out, the shorter of at least
    four letters: a command named after its variant, a term after its compound, give each other away."""
    short, long_ = sorted((a, b), key=len)
    if len(short) < _ALIKE:
        return False
    if short in long_:
        return True
    head = next((i for i, (x, y) in enumerate(zip(short, long_, strict=False)) if x != y), len(short))
    return long_.endswith(short[head:]) and head > 0


def _numbers_among_words(sent: Any) -> bool:
    """Two or more page numbers between a word and a capitalised word ("tests 12 Biopsy 13 Imaging"):
    a table of contents or an index run together."""
    return len(_TOC_RUN.findall(sent.text)) >= 2


def _heading_run_in(sent: Any) -> bool:
    """A capitalised stop word mid-sentence right after a lower-case word ("basics Did", "symptoms Half")
    or after a capitalised word that names nothing ("Settings All configuration options", "Roadmap Where
    the project is going": link cards run together): a heading or a label with no full stop run into the
    text after it. Other capitalised words are left alone (names a small tagger misreads: "approved by
    Security", "submitted in Ledgerly")."""
    for prev, tok in pairwise(sent):
        named = tok.ent_type_ not in ("", "CARDINAL", "ORDINAL")  # "May" in "May 2024" is a month, not a verb
        run_in = (tok.is_stop or tok.lower_ in ("half", "key")) and not named
        after_label = prev.is_title and not prev.ent_type_ and prev.i > sent.start
        if tok.is_title and run_in and tok.text != "I" and prev.is_alpha and (prev.is_lower or after_label):
            return True
    return False


def _bare_number(token: Any) -> bool:
    return token.text.isdigit() and 4 <= len(token.text) <= 6 and not _YEAR_ONLY.match(token.text)


def _edge_number(sent: Any) -> bool:
    """A bare number of four to six digits, not a year, opening the sentence before a capitalised word
    ("12488 Fix …") or closing it after a full stop ("… is now 0.16. 12488"): a pull request's number left
    from a changelog's markup. A number after its label ("RFC 5869") is not one."""
    words = [t for t in sent if not t.is_punct]
    if len(words) < 2:
        return False
    first, last = words[0], words[-1]
    opening = _bare_number(first) and words[1].is_title
    closing = _bare_number(last) and last.i > sent.start and sent.doc[last.i - 1].is_punct
    return opening or closing


def _not_prose(sent: Any) -> str | None:
    """A line of a table of contents, an index, a bibliography, a contact block or a glossary."""
    text = sent.text
    if _DOT_LEADER.search(text) or _numbers_among_words(sent) or _PAGE.search(text):
        return "table of contents, index or page line"
    if _CITATION.search(text):
        return "citation or reference"
    if _CONTACT.search(text):
        return "address, link or phone number"
    if _CROSS_REFERENCE.search(text):
        return "cross-reference"
    if _ISSUE.search(text) or _edge_number(sent):
        return "changelog line citing an issue or pull request ('(585)', '#2205')"
    if _COMMENT.search(text):
        return "code comment or listing line ('14 # Find the first line')"
    if _COMMAND.search(text) or (sent[0].is_lower and not text.rstrip().endswith((".", "!", ":"))):
        return "command line or list fragment (lower-case start, no full stop)"
    if _GLOSSARY.match(text) or _TYPED_FIELD.match(text):
        return "glossary entry (term – definition) or a parameter's description ('(map) …', 'name Type (optional)')"
    return not_english(sent)


def _not_stated(sent: Any) -> str | None:
    """A sentence that does not state a fact in the writer's own words: hedged or quoted."""
    if any(t.lower_ in _HEDGES and t.dep_ == "advmod" for t in sent):
        return "hedged statement ('perhaps', 'probably'): no fact to ask for"
    if _QUOTES.search(sent.text):
        return "quotation"
    return None


def sentence_defect(sent: Any) -> str | None:
    """Why a parsed sentence cannot be evidence for a question, or None."""
    text = sent.text
    if why := _not_prose(sent):
        return why
    if text.rstrip().endswith("?"):
        return "sentence is a question"
    if _DASH_OPENING.match(text):
        return "sentence opens with a dash (a quotation's attribution or a list item)"
    if sent[0].lower_ in _LEANING or text.lower().startswith(("for comparison", "in addition", "for example")):
        return "sentence leans on the one before"  # "Such blood tests include …", "For comparison, …"
    if why := _not_stated(sent):
        return why
    if any(len(t.text) == 1 and t.is_alpha and t.text not in "aAI" for t in sent):
        return "bullet or list marker in the sentence"  # "… not very deep h", "h Thick saliva"
    if _heading_run_in(sent):
        return "heading run into the sentence"
    if why := _no_finite_verb(sent):
        return why
    return None if _TERMINAL.search(text) else "no full stop: a list item, a title or a link's text"


def _no_finite_verb(sent: Any) -> str | None:
    """A sentence without a verb, or whose head is a noun, a participle or an infinitive with no finite
    auxiliary of its own: a list, a title, a caption or a field's description."""
    if not any(t.pos_ in ("VERB", "AUX") for t in sent):
        return "no verb (a list or a title)"
    root = sent.root
    if root.tag_ in _CAPTION_ROOTS and not any(c.tag_ in _FINITE for c in root.children if c.dep_.startswith("aux")):
        return "no finite verb (a caption: an image's alt text, 'Diagram showing …')"
    if root.tag_ == "VB" and any(c.tag_ == "TO" and c.dep_ == "aux" for c in root.children):
        return "no finite verb (a term and what it is for: 'The language code to use while …', a field's description)"
    return None


def _shape_defect(span: Any, answer: str) -> str | None:
    """A span cut badly out of its text: glued to a hyphen, bracketed, garbled or glued to a word."""
    doc = span.doc
    before = doc[span.start - 1] if span.start > 0 else None
    after = doc[span.end] if span.end < len(doc) else None
    if (after is not None and after.text in "-–/" and not span[-1].whitespace_) or (
        before is not None and before.text in "-–/" and not before.whitespace_
    ):
        return "answer is part of a hyphenated word"
    glued_after = after is not None and not span[-1].whitespace_ and after.text[:1].isalnum()
    if glued_after or (before is not None and not before.whitespace_ and before.text[-1:].isalnum()):
        return "answer is glued to a word ('10MB' asked as '10 what')"
    if before is not None and after is not None and before.text in "([{—–" and after.text in ")]}—–":
        return "answer is in brackets or dashes (an alias or acronym)"
    words = answer.lower().split()
    if any(ch in answer for ch in "()[]") or len(set(words)) < len(words) or _GLUED.search(answer):
        return "answer is garbled (a bracket, a repeated word or words run together)"
    if words[0] in ("and", "or", "and/or", "but"):
        return "answer starts with a joining word"
    if _LIST_COMMA.search(answer):
        return "answer is a list (a comma inside)"
    return None


def _kind_defect(answer: str) -> str | None:
    """An answer of a kind no question asks well: a small number spelled out, an amount no number states,
    a part of the document."""
    if answer.lower() in _NUMBER_WORDS:
        return "answer is a spelled-out small number"
    if set(answer.lower().split()) <= _VAGUE_AMOUNT:
        return "answer is a vague amount ('thousands', 'hundreds')"
    if _STRUCTURE.match(answer):
        return "answer is a part of the document (chapter, table, page)"
    return None


def _given_away(answer: str, question: str) -> str | None:
    """Why the question's own words give the answer away (:mod:`kgrag.evaluation.qgen.giveaway`), or None."""
    if acronym_given(answer, question):
        return "acronym gives the answer away"
    if joined_given(answer, question):
        return "the question writes the answer's one word as two ('Data Trail' → DataTrail)"
    if resource_given(answer, question):
        return "a size in bytes or memory in the question gives the resource away ('15GB of what?' → RAM)"
    return None


def _label_defect(answer: str, label: str) -> str | None:
    """Why no question word of the answer's label asks for it well, or None."""
    if label in ("DATE", "TIME") and (not _VAGUE_DATE.search(answer) or re.fullmatch(r"\d0'?s", answer)):
        return "answer is a vague date (no number or amount, or a decade of life)"  # "the final week", "40s"
    words = answer.lower().split()
    if label == "QUANTITY" and len(words) == 2 and words[0] in _NUMBER_WORDS and words[1] not in _VAGUE_AMOUNT:
        return "answer is a spelled-out small number of things ('two VMs'): 'what quantity' does not ask for it"
    if label == "DATE" and _SEASON.search(answer):
        return "answer is a season ('the spring of 2020'): neither 'what date' nor 'which year' fits it"
    return None


def answer_defect(span: Any, answer: str, question: str, label: str) -> str | None:
    """Why a masked span makes a defective or trivial question, or None."""
    if why := _shape_defect(span, answer) or _kind_defect(answer):
        return why
    if why := _given_away(answer, question) or _label_defect(answer, label):
        return why
    if span.root.dep_ == "appos" or " than " in f" {answer.lower()} ":
        return "answer is an apposition or a comparison"
    if {"other", "another"} & set(answer.lower().split()):
        return "answer leans on something named before ('many other toolkits')"
    if not any(t.pos_ in ("NOUN", "PROPN", "NUM") for t in span):
        return "answer is not a noun or a number"
    if _shares_stem(answer, question):
        return "question contains the answer's words"
    if span.start > 0 and span.doc[span.start - 1].lower_ == "no":
        return "answer follows 'no' (the question would drop the negation: 'No ZCML is required')"
    return None


def question_defect(question: str) -> str | None:
    """Why a question asked in place reads as a cut-off clause, asks for one item of a list (any other
    item would do as well), or breaks a unit apart; None when it does not."""
    words = question.rstrip("?").split()
    if not words:
        return "question too short"
    if question.count(",") >= 2 and _LIST_ITEM.search(question):
        return "question asks for one item of a list"
    if _SLASHED.search(question):
        return "question breaks a unit or a pair apart"
    if words[0].lower().strip(",;:") in _SUBORDINATE:
        return "question is a subordinate clause"
    return cut_end(question)


def cut_end(question: str) -> str | None:
    """Why a question, however asked, ends cut off on a joining word ("… that allows organizations to?"),
    or None."""
    words = question.rstrip("?").split()
    if words and words[-1].lower() in _JOINING_END:
        return "question ends on a joining word"
    return None


def run_on(question: str) -> str | None:
    """Why a question runs across a full stop: two sentences the splitter left joined (an option's
    description, "defaults to 75. 0 gives …"), or a dotted name or version cut at its dot ("a io. what?",
    "Scrapy 0. what"); an initial ("Jason R. Coombs") or an abbreviation ("etc.") is no full stop. None
    when it does not."""
    if any(not abbreviation(match.group(1)) for match in _FULL_STOP.finditer(question)):
        return "question runs across a full stop"
    if _STRAY_MARK.search(question):
        return "question holds a stray emphasis mark ('has now ** what percentage **')"
    return None


def abbreviation(word: str) -> bool:
    """Whether ``word`` (before its full stop) is an initial ("R" of "Jason R. Coombs") or an abbreviation
    (:data:`ABBREVIATIONS`), so that its full stop ends no sentence."""
    word = word.lstrip("(\"'")
    return (len(word) == 1 and word.isupper()) or word in ABBREVIATIONS


def ends_in_abbreviation(text: str) -> bool:
    """Whether ``text`` ends on an abbreviation's or an initial's full stop ("… at the U.S.", "… Ltd.")."""
    match = _LAST_WORD.search(text.rstrip())
    return match is not None and (abbreviation(match.group(1)) or abbreviation(match.group(1).rsplit(".", 1)[-1]))
