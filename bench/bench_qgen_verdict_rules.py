"""How many not-usable and usable questions of the blind reads each stand-alone rule removes.

``bench/data/qgen_blind_verdicts.jsonl.gz`` holds every question of the blind reads in
``docs/results/qgen-blind-read-*.md``: question, answer, source sentence and file, verdict, the reader's
reason, and for reads 1–8 the failure class read from the reason ("(not classed)" for the later ones);
reads 12–16 read each question with and without its headings (``version``: ``plain`` or ``headings``),
and the rules run on the ``plain`` version; reads 17 and later were read only with their headings, and
the rules run on their questions with the headings taken off.
For each question the source sentence is parsed alone, the answer's span found among the generator's
candidate spans (else by its characters) and the question rebuilt from it
(:func:`kgrag.evaluation.qgen.wording.ask_around`); each rule then runs on the rebuilt parse and the
recorded question. The rules of :mod:`kgrag.evaluation.qgen.referents` and the four defect checks named
after them in ``KEPT`` are the ones kept; the others here were measured and not kept (they removed about
as many usable questions as not usable ones).

    HF_HUB_OFFLINE=1 python bench/bench_qgen_verdict_rules.py [--show RULE]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from bench_qgen_preferences import SCOPE
from bench_qgen_shapes import wilson
from kgrag.config import KgragConfig
from kgrag.evaluation.qgen import answers, defects, fitness, referents, structure
from kgrag.evaluation.qgen.answers import MEASURES, trusted_label
from kgrag.evaluation.qgen.cloze import candidate_spans, clause_of
from kgrag.evaluation.qgen.labels import names_people
from kgrag.evaluation.qgen.quality import trusted_shape
from kgrag.evaluation.qgen.wording import ask_around, side_parts
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings
from kgrag.tuning.qgen_usability import load_verdicts

VERDICTS = Path(__file__).parent / "data" / "qgen_blind_verdicts.jsonl.gz"


class Parsed(NamedTuple):
    sent: Any
    span: Any
    clause: Any
    question: str  # as the reader saw it


def parse(nlp: Any, row: dict[str, Any]) -> tuple[Parsed, bool]:
    """The parse of a read question's source sentence and whether the rebuilt question is the read one."""
    doc = nlp(row["source"])
    for sent in doc.sents:
        for span, label in candidate_spans(sent):
            if span.text.strip(" ,.;:()\"'") == row["answer"]:
                clause = clause_of(span, sent)
                rebuilt, _, _ = ask_around(clause, span, trusted_label(span, sent, label))
                return Parsed(sent, span, clause, row["question"]), rebuilt == row["question"]
    start = row["source"].index(row["answer"])
    span = doc.char_span(start, start + len(row["answer"]), alignment_mode="expand")
    clause = clause_of(span, span.sent)
    rebuilt, _, _ = ask_around(clause, span, "THING")
    return Parsed(span.sent, span, clause, row["question"]), rebuilt == row["question"]


def _kept(p: Parsed) -> list[Any]:
    drop = side_parts(p.clause, p.span)
    return [t for t in p.clause if t.i not in drop and not p.span.start <= t.i < p.span.end]


def _names(tokens: list[Any], span: Any) -> bool:
    return any(
        t.pos_ in ("PROPN", "NUM") or t.ent_type_ not in ("", "ORDINAL") or span.start <= t.i < span.end for t in tokens
    )


def shorthand_answer(p: Parsed) -> bool:
    """A one-word answer written "the X" in its sentence (the text's shorthand for something named
    before)."""
    span = p.span
    return len(span) == 1 and span.start > 0 and span.doc[span.start - 1].lower_ == "the" and not span[0].like_num


def generic_definite(p: Parsed) -> bool:
    """A "the NOUN" in the question with no modifier, its head word nowhere else in the question."""
    kept = _kept(p)
    ids = {t.i for t in kept}
    for t in kept:
        definite = any(c.dep_ == "det" and c.lower_ == "the" for c in t.children)
        modified = any(c.dep_ not in ("det", "punct") and c.i in ids for c in t.children)
        again = any(x.lemma_.lower() == t.lemma_.lower() and x.i != t.i for x in kept)
        if t.pos_ == "NOUN" and definite and not modified and not again:
            return True
    return False


_QUANTIFIERS = frozenset("some any several many another other typical various most few".split())


def quantified_subject(p: Parsed) -> bool:
    """The clause's subject opens with a quantifier ("Some existing APIs", "Typical values") and names
    nothing."""
    for s in (c for c in p.clause.root.children if c.dep_ in ("nsubj", "nsubjpass")):
        words = list(s.subtree)
        quantified = words[0].lower_ in _QUANTIFIERS and s.pos_ == "NOUN"
        if quantified and not p.span.start <= s.i < p.span.end and not _names(words, p.span):
            return True
    return False


_POINTING = re.compile(r"\b(?:above|below|following|such|aforementioned|former|latter|previous|earlier)\b", re.I)


def pointing_word(p: Parsed) -> bool:
    """The question holds a word pointing at the text around it ("below", "earlier", "following")."""
    return bool(_POINTING.search(p.question.rstrip("?")))


def common_noun_answer(p: Parsed) -> bool:
    """A one-word answer that is a common noun (capitalised only as its sentence's first word)."""
    t = p.span[0]
    return len(p.span) == 1 and t.pos_ == "NOUN" and (t.is_lower or (t.i == p.sent.start and not t.is_upper))


_COMPARING = frozenset({"other", "another", "typical", "similar"})


def comparison_without_term(p: Parsed) -> bool:
    """A comparative or "other"/"typical" modifier in the question with no "than"/"as"/"from"/"to" after
    it ("An easier solution", "Several other utilities")."""
    kept = _kept(p)
    for t in kept:
        comparing = (t.tag_ == "JJR" and t.dep_ == "amod") or (t.lower_ in _COMPARING and t.dep_ in ("amod", "det"))
        term = any(x.lower_ in ("than", "as", "from", "to") for x in kept if x.i > t.i)
        if comparing and not term and not (t.i > 0 and t.doc[t.i - 1].lower_ == "each"):
            return True
    return False


_CONNECTIVE = re.compile(
    r"^(?:in fact|in particular|indeed|however|moreover|furthermore|also|instead|likewise|similarly|otherwise|"
    r"therefore|thus|hence|as a result|in addition|additionally|in contrast|by contrast|on the other hand|"
    r"for this reason|in this case|in that case|at the same time|still|besides|nevertheless|nonetheless|"
    r"conversely|consequently|accordingly|again|of course|finally)\b",
    re.I,
)


def negated_ask(p: Parsed) -> bool:
    """The span is what a negated verb takes ("The parser used on PyPI is not what?")."""
    head = p.span.root.head
    heads = [head, head.head] if head.dep_ in ("prep", "agent") else [head]
    return any(c.dep_ == "neg" for t in heads for c in t.children)


def connective_opening(p: Parsed) -> bool:
    """The sentence opens with a connective that answers the sentence before ("In fact", "However")."""
    return bool(_CONNECTIVE.match(p.sent.text.strip()))


def imperative_opening(p: Parsed) -> bool:
    """The sentence is an instruction: its first word a base-form verb and its root ("Use plain language")."""
    return p.sent[0].tag_ == "VB" and p.sent[0].dep_ == "ROOT"


KEPT: dict[str, Callable[[Parsed], object]] = {
    "sequence_adverb": lambda p: referents.sequence_adverb(p.question),
    "open_comparison": lambda p: referents.open_comparison(p.question),
    "markup_residue": lambda p: referents.markup_residue(p.question),
    "postmodified_span": lambda p: referents.postmodified_span(p.span),
    "second_question_word": lambda p: referents.second_question_word(p.clause, p.span),
    "name_cut": lambda p: referents.name_cut(p.span),
    "pointed_span": lambda p: referents.pointed_span(p.span),
    "cut_modifier": lambda p: referents.cut_modifier(p.span),
    "pointer_opening": lambda p: referents.pointer_opening(p.sent),
    "issue_line": lambda p: "issue" in (defects.sentence_defect(p.sent) or ""),
    "vague_amount": lambda p: "vague amount" in (defects.answer_defect(p.span, p.span.text, p.question, "") or ""),
    "glued_answer": lambda p: "glued to a word" in (defects.answer_defect(p.span, p.span.text, p.question, "") or ""),
    "cut_coordination": lambda p: "joining word" in (fitness.wording_defect(p.span, p.question) or ""),
    "dash_opening": lambda p: "dash" in (defects.sentence_defect(p.sent) or ""),
    "cut_end": lambda p: defects.cut_end(p.question),
    "run_on": lambda p: defects.run_on(p.question),
    "other_answer": lambda p: "named before" in (defects.answer_defect(p.span, p.span.text, p.question, "") or ""),
    "negation_dropped": lambda p: "negation" in (defects.answer_defect(p.span, p.span.text, p.question, "") or ""),
    "code_comment": lambda p: "comment" in (defects.sentence_defect(p.sent) or ""),
    "hedged": lambda p: "hedged" in (defects.sentence_defect(p.sent) or ""),
    "possessive_or_adverb": lambda p: (
        any(t.tag_ == "POS" for t in p.span[1:])
        or (p.span[0].pos_ == "ADV" and p.span[0].lower_.endswith("ly") and p.span.root.ent_type_ not in MEASURES)
    ),
    "decimal_count": lambda p: "decimal" in (structure.unsure_word(p.span, "CARDINAL") or ""),
    "date_range": lambda p: (
        p.span.root.ent_type_ == "DATE" and "range" in (structure.unsure_word(p.span, "DATE") or "")
    ),
    "not_english": lambda p: "not English" in (defects.sentence_defect(p.sent) or ""),
    "adverb_phrase": lambda p: answers._adverb_phrase(p.span),
    "typed_field": lambda p: "parameter" in (defects.sentence_defect(p.sent) or ""),
    "lorem_ipsum": lambda p: "filler" in (defects.sentence_defect(p.sent) or ""),
    "infinitive_fragment": lambda p: "term and what it is for" in (defects.sentence_defect(p.sent) or ""),
    "ratio": lambda p: (
        p.span.root.ent_type_ == "CARDINAL" and "ratio" in (structure.unsure_word(p.span, "CARDINAL") or "")
    ),
    "status_code": lambda p: (
        p.span.root.ent_type_ == "CARDINAL" and "status code" in (structure.unsure_word(p.span, "CARDINAL") or "")
    ),
    "ip_address": lambda p: "IP address" in (structure.unsure_word(p.span, p.span.root.ent_type_) or ""),
    "time_subject": lambda p: (
        "span of time as a verb's subject" in (structure.unsure_word(p.span, p.span.root.ent_type_) or "")
    ),
    "release_name": lambda p: (
        p.span.root.ent_type_ == "PERSON" and "release" in (structure.unsure_word(p.span, "PERSON") or "")
    ),
}


REWORDED: dict[str, Callable[[Parsed], object]] = {
    "people_asked_what": lambda p: names_people(p.span) and "what" in p.question.lower().split(),
}
"""Rules that change the question's wording rather than remove it (people named by their role are now asked
"who"): the table shows the verdicts of the questions as read before the change."""


def user_handle(p: Parsed) -> bool:
    """The answer is a user handle ("@name"): a person asked "what", or an organisation or a bot."""
    return p.span.text.startswith("@")


def pointing_that(p: Parsed) -> bool:
    """The question keeps "that" as a determiner ("exclude that boundary"), pointing at something named
    before; also where the question itself named it ("on macOS … on that platform")."""
    asked = p.question.lower()
    return any(
        t.lower_ == "that" and t.dep_ == "det" and f"that {t.head.lower_}" in asked
        for t in p.clause
        if not p.span.start <= t.i < p.span.end
    )


NOT_KEPT: dict[str, Callable[[Parsed], object]] = {
    "shorthand_answer": shorthand_answer,
    "generic_definite": generic_definite,
    "quantified_subject": quantified_subject,
    "pointing_word": pointing_word,
    "common_noun_answer": common_noun_answer,
    "comparison_without_term": comparison_without_term,
    "negated_ask": negated_ask,
    "connective_opening": connective_opening,
    "imperative_opening": imperative_opening,
    "user_handle": user_handle,
    "pointing_that": pointing_that,
}


def plain_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per read question, without its headings: the ``plain`` version where a read has one, else
    the question read with its headings, the headings taken off."""
    both = {r["read"] for r in rows if r["version"] == "plain"}
    out = []
    for r in rows:
        if r["answer"] not in r["source"] or (r["version"] != "plain" and r["read"] in both):
            continue
        question = SCOPE.sub("", r["question"])
        out.append({**r, "question": question[:1].upper() + question[1:]})
    return out


def _line(name: str, hits: list[dict[str, Any]]) -> str:
    bad = [r for r in hits if not r["usable"]]
    good = [r for r in hits if r["usable"]]
    trusted = [sum(trusted_shape(r["answer"], r["question"]) for r in rows) for rows in (bad, good)]
    where = ", ".join(f"{r['corpus']} {r['number']}{' (usable)' if r['usable'] else ''}" for r in hits)
    return f"| {name} | {len(bad)} | {len(good)} | {trusted[0]} | {trusted[1]} | {where} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", help="Print the questions a rule removes and those it keeps that are not usable.")
    args = parser.parse_args()
    own = nlp_settings(KgragConfig())
    nlp = SpacyExtractor(own.spacy_model, allow_torch=own.spacy_torch).nlp
    rows = plain_rows(load_verdicts(VERDICTS))
    parsed = [parse(nlp, r) for r in rows]
    print(f"{len(rows)} questions, {sum(same for _, same in parsed)} rebuilt as read from the sentence alone")
    print(f"failure classes: {dict(Counter(r['failure'] for r in rows if not r['usable']).most_common())}\n")
    print("| rule | not usable removed | usable lost | trusted shape: removed | lost | questions |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    rules = {**KEPT, **REWORDED, **NOT_KEPT}
    for name, rule in rules.items():
        print(_line(name, [r for r, (p, _) in zip(rows, parsed, strict=True) if rule(p)]))
    union = [r for r, (p, _) in zip(rows, parsed, strict=True) if any(rule(p) for rule in KEPT.values())]
    print(_line(f"the {len(KEPT)} kept, together", union))
    for subset, label in ((rows, "all"), ([r for r in rows if trusted_shape(r["answer"], r["question"])], "trusted")):
        left = [r for r in subset if r not in union]
        for name, group in (("", subset), ("without the removed: ", left)):
            k = sum(r["usable"] for r in group)
            lo, hi = wilson(k, len(group))
            print(f"{label}, {name}{k} of {len(group)} usable ({k / len(group):.0%} [{lo:.0%}, {hi:.0%}])")
    if args.show:
        for r, (p, _) in zip(rows, parsed, strict=True):
            if rules[args.show](p):
                print(f"{'usable' if r['usable'] else r['verdict']}: {r['question']} -> {r['answer']}")


if __name__ == "__main__":
    main()
