"""Sentences that define a term: the known-item questions that most often stand on their own.

"Ownership is a set of rules that govern how a Rust program manages memory." asks itself: the term is the
answer, the definition the question ("What is a set of rules that govern how a Rust program manages
memory?"). Such a question names what it asks about, needs no sentence around it and has one answer the
corpus names; read blind, definitions asked this way were usable far more often than any other shape
(figures in ``docs/results/qgen-llm-free.md``), so the generator asks them first
(:func:`kgrag.evaluation.qgen.known_item.pick_known_items`).

A sentence defines its subject here when, read off the parse alone:

- it opens with the subject (an article before it is allowed, and so is an opening phrase that sets
  where the definition holds, closed by a comma, "In JavaScript, …", which the question keeps): one to
  four words, none a pronoun, a preposition, a conjunction or an auxiliary, and not a pointing or
  quantifying word ("This", "Here", "Everything", "Each");
- the main verb is a present or past form of *be* right after the subject, followed by the noun phrase
  it governs as its complement: after an article in the singular ("is a set of …", "was the first …"), a
  plural noun with "the" or none in the plural ("are unordered collections of …");
- the predicate noun is narrowed by what follows it (a prepositional phrase, a relative or participle
  clause: "a number *without a fractional component*"), not a bare "a flexible operating model" or "a
  piece of work" that many terms could be;
- the predicate is not coordinated with a second verb ("is a string and should be non-empty" says two
  things, and the question would ask both), a plural verb does not take "a" ("Metrics are a kind of …"
  would be asked "What are a kind of …?"), the noun is not itself "definition", "example", "one" or
  "thing" (a stand-in for a noun given before), and a
  subject after "the" names something (a capitalised word): "The result is …", "The first argument is …"
  point back at a call or a list the sentences before gave.

Everything else a question must pass (the defect, fitness and stand-alone checks, the quality floor)
applies to definitions as to any other candidate, with two differences. The answer's rarity is not asked
for (:func:`kgrag.evaluation.qgen.answers.unfit_answer`): a term the corpus names often is what readers
ask about. And two signs of :mod:`kgrag.evaluation.qgen.quality` that judge an answer picked out of a
sentence are left out of its quality (:func:`definition_signs`): a lower-case term ("gauge", "tuple") is as
good an answer as a name, and the narrowed definition, not a name found elsewhere in the corpus, is what
makes the question specific.
"""

from __future__ import annotations

from typing import Any

TEMPLATE = "definition"
"""The template name of a question asked of a definition."""
MAX_TERM_WORDS = 4
MIN_PREDICATE_TOKENS = 4
MAX_FRONTED_TOKENS = 8
_ARTICLES = frozenset({"a", "an", "the"})
_COPULA_TAGS = frozenset({"VBZ", "VBD", "VBP"})
_NOT_IN_TERM = frozenset({"PRON", "ADP", "CCONJ", "SCONJ", "AUX", "PART", "DET", "INTJ", "SYM"})
_TERM_PUNCT = frozenset({"-", ".", "+", "#"})
_POINTING = frozenset(
    "this that these those there here it everything nothing something anything each every one what which who "
    "below above next following such another both all some any most many none either neither example certain "
    "other several various different similar same further additional".split()
)
_SETTING_PREPOSITIONS = frozenset({"in", "within", "inside", "on", "under"})
"""Prepositions of an opening phrase that sets where the definition holds ("In JavaScript, …"); others
("Like the exporter, …", "Unlike …", "After …") lean on something outside the sentence."""
_META_NOUNS = frozenset({"definition", "example", "one", "thing"})
_ANSWER_SIGNS = ("specific answer", "known topic")


def definition_subject(sent: Any) -> Any | None:
    """The term a parsed sentence (a spaCy span) defines, as a span, or None (module docstring)."""
    tokens = [t for t in sent if not t.is_space]
    opening = _fronted(tokens)
    start = opening + 1 if len(tokens) > opening and tokens[opening].lower_ in _ARTICLES else opening
    copula = next((i for i, t in enumerate(tokens[start:], start) if t.lemma_ == "be"), None)
    if copula is None or not 1 <= copula - start <= MAX_TERM_WORDS or len(tokens) - copula - 1 < MIN_PREDICATE_TOKENS:
        return None
    term = tokens[start:copula]
    if not _defining(tokens[copula], tokens[copula + 1]) or not _names_a_term(term):
        return None
    if start > opening and _anaphoric(tokens[opening], term):
        return None
    return sent.doc[term[0].i : term[-1].i + 1]


def _defining(verb: Any, first: Any) -> bool:
    """Whether ``verb`` (the word after the subject) is a main *be* whose complement, opening at ``first``,
    is a narrowed noun phrase: after an article in the singular, a plural noun (with "the" or none) in the
    plural ("are unordered collections of …", never "are a kind of …")."""
    noun = _complement(verb)
    if verb.dep_ != "ROOT" or verb.tag_ not in _COPULA_TAGS or noun is None or noun.left_edge.i != first.i:
        return False
    if any(c.dep_ == "conj" for c in verb.children) or noun.lemma_.lower() in _META_NOUNS or not _narrowed(noun):
        return False
    if verb.lower_ in ("are", "were"):
        return noun.tag_ in ("NNS", "NNPS") and first.lower_ not in ("a", "an")
    return first.lower_ in _ARTICLES


def _names_a_term(term: list[Any]) -> bool:
    """Whether the words before the verb can be a term: no pronoun, preposition, conjunction, auxiliary or
    stray punctuation, not a pointing word, not "example"."""
    if term[0].lower_ in _POINTING or any(t.lemma_.lower() in _META_NOUNS for t in term):
        return False
    return not any(t.pos_ in _NOT_IN_TERM or (t.is_punct and t.text not in _TERM_PUNCT) for t in term)


def _fronted(tokens: list[Any]) -> int:
    """Where the sentence's subject may start: after an opening phrase that sets where the definition holds,
    closed by a comma ("In JavaScript, PascalCase is …"; it stays in the question), else 0."""
    if not tokens or tokens[0].lower_ not in _SETTING_PREPOSITIONS:
        return 0
    comma = next((i for i, t in enumerate(tokens[:MAX_FRONTED_TOKENS]) if t.text == ","), None)
    if comma is None or any(t.pos_ in ("VERB", "AUX") for t in tokens[:comma]):
        return 0
    return comma + 1


def _anaphoric(article: Any, term: list[Any]) -> bool:
    """A term after "The" that names nothing ("The result", "The first argument"): it points back at
    something the sentences before introduced."""
    return article.lower_ == "the" and not any(t.pos_ == "PROPN" or t.text[:1].isupper() for t in term)


def _complement(verb: Any) -> Any | None:
    return next((c for c in verb.children if c.dep_ == "attr"), None)


def _narrowed(noun: Any) -> bool:
    """Whether what follows ``noun`` narrows it: a relative or participle clause, or a prepositional phrase;
    an "of" phrase only when its own noun is narrowed ("a set of rules *that govern …*", not "a piece of
    work")."""
    for child in noun.children:
        if child.i < noun.i:
            continue
        if child.dep_ in ("relcl", "acl") or (child.dep_ == "prep" and child.lower_ != "of"):
            return True
        if child.dep_ == "prep" and any(_narrowed(o) for o in child.children if o.dep_ == "pobj"):
            return True
    return False


def definition_signs(signs: dict[str, float]) -> dict[str, float]:
    """The quality signs of a question asked of the term a sentence defines, those judging an answer
    picked out of a sentence left out (module docstring)."""
    return {name: value for name, value in signs.items() if name not in _ANSWER_SIGNS}
