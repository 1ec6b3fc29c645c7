"""When the LLM-free answer says "not found" instead of stating a sentence, and why.

An extractive answer that states a fact about something other than what was asked is worse than none:
asked when the ``secrets`` module was added, a passage on ``pickle``'s protocol versions holds a version
and the question's other words. So the answer abstains, naming the reason, when

* **the subject is missing**: the question names an identifier (``exclude_if``, ``r.json()``,
  ``itertools.pairwise``; a word before *module*, *function*, *parameter*, …) that the chosen sentence's
  passage does not hold (the next best sentence whose passage holds it is taken instead, when there is
  one); an identifier must be in the passage as written (``by_alias``, not only the word *alias*, which
  ``validate_by_alias`` also holds), and a thing singled out by its kind ("the json parameter") must be
  named as one of that sort of thing (*json* followed by *parameter*, *argument*, *keyword*…: a passage on
  "JSON Schema" is not about the ``json`` parameter);
* **the sentence is about another one of its kind**: asked about the ``json`` *parameter*, a sentence on
  "the ``exclude_if`` parameter" that does not name ``json`` states a fact about a different subject;
* **the question is off the corpus**: it names no identifier and more than half of its words are in no
  retrieved passage ("What is the boiling point of mercury?" over a library's documentation);
* **no sentence is of the asked-for kind** (:func:`required_kinds`): a question asking what something
  raises is answered only by a sentence naming an exception, one asking since which version only by a
  sentence holding a version (or a date); a sentence that merely repeats the question's words is not one;
* **no sentence says what a yes/no question asks** (:func:`predicate_stems`): "Does Pydantic validate
  default values …?" is answered only by a sentence holding *validate* (or its opposite), not by one about
  Pydantic's defaults in general;
* **the best sentence covers too little** of the question: less than the threshold, which is
  calibrated per corpus (:func:`calibrated_threshold`).

The calibration: a question's words are also matched against a sample of the workspace's own sentences
(:data:`CORPUS_SAMPLE`, one per stored chunk up to :data:`SAMPLE_SIZE`, read once per store generation);
the coverage that the best *retrieved* sentence must reach is ``NULL_MARGIN`` times the coverage the
best of those unrelated sentences reaches, bounded by ``[MIN_THRESHOLD, generation.extractive_min_coverage]``.
Where the question's words are rare in the corpus (chance matches are poor), a sentence covering less of
the question still stands out and is stated; where any sentence of the corpus shares as much with the
question, the configured ceiling holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from kgrag.documents.words import STOP_WORDS, ordered_content_words
from kgrag.generation.answer_cues import AnswerType, cue_share

MISSING_SHARE = 0.5  # more of the question's words than this in no passage: off the corpus
MIN_THRESHOLD = 0.12
NULL_MARGIN = 1.5
NULL_QUANTILE = 0.95
SAMPLE_SIZE = 400
_IDENTIFIER = re.compile(r"\b[A-Za-z_][\w]*(?:[._][\w]+)+(?:\(\))?|\b\w+\(\)")
_KIND_NOUNS = (
    "module|function|method|class|parameter|argument|attribute|option|setting|field|package|library|flag|"
    "keyword|decorator|type|exception|command|variable"
)
_NAMED_BY_KIND = re.compile(rf"(?<![\w-])(?:the\s+)?([a-z_][\w]*)\s+({_KIND_NOUNS})s?\b")  # not "server-wide setting"
_SINGLED_OUT = re.compile(rf"\bthe\s+([a-z_][\w]*)\s+({_KIND_NOUNS})\b(?!s)")
# "Since which version …", "In what Python version …", "When was X added?": a version is what is asked for
# (not "Which headers are removed when …", nor "When will X be removed?", which a release name answers).
_ASKS_VERSION = re.compile(
    r"^(?:since|in|from|with)?\s*(?:which|what)\s+(?:\w+\s+)?versions?\b|^since\s+when\b"
    r"|^when\s+(?:was|were|did|has|have)\b.*\b(?:added|introduced|new|available|deprecated|removed|changed)\b"
)
# "What does X raise?", "Which exception …": the exception is what is asked for (not "what caused the error").
_ASKS_EXCEPTION = re.compile(r"^(?:what|which)\b.*\braise[sd]?\b|^(?:what|which)\s+(?:exceptions?|errors?|warnings?)\b")
# "Does Pydantic coerce values …", "Can r.json() raise …": an auxiliary, a one-token subject, the verb and
# what follows it (its object runs to the first stop word: "validate default values | by default").
_DO_QUESTION = re.compile(r"^(?:does|do|did|can|could|will|would|should|may|must)\s+(\S+)\s+([a-z]+)\b(.*)", re.I)
_CONDITION = re.compile(r"\s(?:when|if|for|on|after|during)\s+(.+)$", re.I)  # not a leading "When …"
_BE_QUESTION = re.compile(r"^(?:is|are|was|were)\s", re.I)
_OPPOSITE_PREFIXES = ("dis", "non", "un", "in", "en")  # "enabled" and "disabled" answer the same question
_NOT_SUBJECTS = frozenset("the a an this that which what each every any some new default same other".split())


def subject_terms(question: str, stem: object) -> list[tuple[str, frozenset[str]]]:
    """The identifiers a question is about, each with the stems a passage must hold to be about it."""
    found: dict[str, frozenset[str]] = {}
    for match in _IDENTIFIER.finditer(question):
        words = ordered_content_words(match.group(0))
        if words:
            found[match.group(0)] = frozenset(stem(w) for w in words)  # type: ignore[operator]
    for match in _NAMED_BY_KIND.finditer(question.lower()):
        word = match.group(1)
        if word not in _NOT_SUBJECTS and not any(word in key.lower() for key in found):
            words = ordered_content_words(word)
            if words:
                found[word] = frozenset(stem(w) for w in words)  # type: ignore[operator]
    return list(found.items())


def identifiers_held(question: str, passage: str) -> bool:
    """Whether ``passage`` holds every identifier of ``question`` as written (case aside, ``()`` optional):
    ``by_alias`` is not held by a passage that only has ``alias`` or ``validate_by_alias``."""
    for match in _IDENTIFIER.finditer(question):
        name = re.escape(match.group(0).removesuffix("()"))
        if re.search(rf"(?<![\w]){name}(?![\w])", passage, re.IGNORECASE) is None:
            return False
    return True


def kind_named(question: str, passage: str) -> bool:
    """Whether ``passage`` names each thing the question singles out by its kind ("the json parameter", "the
    secrets module": *the*, one word, a kind noun in the singular) as such a thing: the word followed, at
    most one word on, by any kind noun ("json parameter", "json keyword argument"), or opening an item of a
    list of that kind ("accepts the following options:" … "- matchsynonyms controls …"). A class of things
    ("environment variables", "proxy settings") is not singled out, so it is not checked."""
    lowered = passage.lower()
    for match in _SINGLED_OUT.finditer(question.lower()):
        word, kind = match.group(1), match.group(2)
        if word in _NOT_SUBJECTS or _IDENTIFIER.search(word):
            continue
        named = rf"\b{re.escape(word)}\b(?:\s+\S+)?\s+(?:{_KIND_NOUNS})s?\b"
        listed = rf"\b{kind}s\b[^\n]*:\s*$[\s\S]*^\s*(?:[-*+]|\d+\.)?\s*`?{re.escape(word)}\b"
        if re.search(named, lowered) is None and re.search(listed, lowered, re.MULTILINE) is None:
            return False
    return True


def names_another(question: str, sentence: str) -> bool:
    """Whether ``sentence`` names another thing of the kind the question names its subject by ("the
    ``exclude_if`` parameter" for "the ``json`` parameter") and not the question's one."""
    lowered = sentence.lower()
    for match in _NAMED_BY_KIND.finditer(question.lower()):
        word, kind = match.groups()
        if word in _NOT_SUBJECTS or re.search(rf"\b{re.escape(word)}\b", lowered):
            continue
        others = re.finditer(rf"\b([a-z_][\w]*)\s+{kind}s?\b", lowered)
        if any(other.group(1) not in _NOT_SUBJECTS for other in others):
            return True
    return False


def missing_subject(subjects: Sequence[tuple[str, frozenset[str]]], passage: frozenset[str]) -> str | None:
    """The first subject whose stems ``passage`` does not all hold."""
    return next((name for name, stems in subjects if not stems <= passage), None)


def missing_share(terms: Sequence[str], weights: np.ndarray, passages: Sequence[frozenset[str]]) -> float:
    """The share of the question's words (by ``weights``: a compound's parts share one word's) that no
    retrieved passage holds."""
    if not len(terms) or weights.sum() <= 0:
        return 0.0
    present: set[str] = set().union(*passages) if passages else set()
    absent = np.array([term not in present for term in terms], dtype=float)
    return float(absent @ weights / weights.sum())


def calibrated_threshold(null_coverage: float | None, ceiling: float) -> float:
    """The coverage the best sentence must reach: ``NULL_MARGIN`` x the best coverage of the corpus sample
    (``None``: no sample, the configured ``ceiling``), within ``[MIN_THRESHOLD, ceiling]``."""
    if null_coverage is None or ceiling <= 0:
        return ceiling
    return float(min(ceiling, max(MIN_THRESHOLD, NULL_MARGIN * null_coverage)))


def required_kinds(question: str) -> tuple[AnswerType, ...]:
    """The kinds of answer a sentence must hold to answer ``question``: a version (or a date) for a version
    question, an exception name for "what does X raise"; () when any sentence about the subject may do."""
    lowered = " ".join(question.lower().split())
    required: list[AnswerType] = ["version"] if _ASKS_VERSION.search(lowered) else []
    if _ASKS_EXCEPTION.search(lowered):
        required.append("exception")
    return tuple(required)


def holds_kinds(required: Sequence[AnswerType], sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds something of each required kind not already in ``question`` (a date
    stands for a version: "added in March 2021" answers "when was it added")."""
    lowered = question.lower()
    for kind in required:
        either: tuple[AnswerType, ...] = ("version", "date") if kind == "version" else (kind,)
        if not any(cue_share((k,), sentence, lowered) > 0 for k in either):
            return False
    return True


def predicate_words(question: str) -> tuple[str, ...]:
    """What a yes/no question asks its subject to do or be: the verb after a one-token subject and its
    object ("Does Pydantic *validate default values* by default?"), or the last participle of an is/are
    question ("Is SSL verification *enabled* by default?"); () when the question is not one or its verb
    cannot be told."""
    text = question.strip()
    match = _DO_QUESTION.match(text)
    if match and _names_a_subject(match.group(1)):
        tokens = re.findall(r"[\w.()]+", match.group(3).lower())
        stop = next((i for i, token in enumerate(tokens) if token in STOP_WORDS), len(tokens))
        return tuple(ordered_content_words(" ".join([match.group(2), *tokens[:stop]])))
    if _BE_QUESTION.match(text):
        return tuple([w for w in ordered_content_words(text) if len(w) > 4 and w.endswith("ed")][-1:])
    return ()


def condition_words(question: str) -> tuple[str, ...]:
    """The content words of the condition a kind-asking question sets ("What is raised *when assigning to a
    field of a frozen dataclass*?", "… raise *for a bad response*?"): a sentence naming an exception for
    another condition does not answer it."""
    match = _CONDITION.search(question)
    return tuple(ordered_content_words(match.group(1))) if match else ()


def holds_predicate(words: Sequence[str], sentence: frozenset[str], stem: object, share: float = 1.0) -> bool:
    """Whether a sentence (its stems) holds ``share`` of ``words`` (each, by default), a word's form or its
    opposite counting ("validated" for "validate", "disabled" for "enabled")."""
    roots = {_root(word) for word in sentence}
    held = 0
    for word in words:
        wanted = _root(stem(word))  # type: ignore[operator]
        held += any(r == wanted or (len(wanted) >= 4 and r.startswith(wanted)) for r in roots)
    return held >= share * len(words)


def _names_a_subject(token: str) -> bool:
    """A capitalised name or an identifier (``Pydantic``, ``r.json()``, ``follow_symlinks``), not "the"."""
    return token[:1].isupper() or any(c in token for c in "_.()")


def _root(word: str) -> str:
    """``word`` without a negating prefix and a final "e" ("validate" = "validat", "disabl" = "abl")."""
    for prefix in _OPPOSITE_PREFIXES:
        if word.startswith(prefix) and len(word) - len(prefix) >= 3:
            word = word[len(prefix) :]
            break
    return word.removesuffix("e")
