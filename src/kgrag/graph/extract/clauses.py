"""Names that read as a clause: a sentence copied from the text is not an entity.

Small models, on text with dialogue or letters, store whole sentences as entities ("I wish I could go
right on to you", typed ``concept``; "You feel so troubled about you", typed ``person``). Grounding keeps
them (the text holds them word for word), yet they name nothing, and every relation to them is noise. This
check is word-level and LLM-free (no parser is loaded for it), so it runs on every item of every reply.

A name is refused when one of these holds (each is rare in real names; the reason is returned):

* **sentence break**: a ``.``, ``!`` or ``?`` inside it followed by a capitalised word (not after a
  title or an initial: "Mr. Hall", "J. Smith", "St. Louis"), or a ``!``/``?`` ending a name of three
  or more words;
* **first or second person**: a lower-case ``me``, ``my``, ``we``, ``us``, ``our``, ``you``, ``your`` …
  anywhere, a capitalised one followed by a lower-case word ("You feel", but "Our Lady", "My Fair Lady"
  pass), or ``I`` followed by a verb ("I wish", "I had"; "Type I diabetes", "World War I" pass);
* **third person**: a lower-case ``he``, ``him``, ``his``, ``her``, ``its``, ``their`` … anywhere ("near
  his lungs"): a name refers to something, it does not point back at what a sentence already named;
* **a subject and its verb**: a personal or indefinite pronoun (``he``, ``she``, ``it``, ``they``,
  ``everyone`` …; capitalised only as the first word) followed by a lower-case word ("It may kill him",
  "everyone with FL needs …");
* **a finite auxiliary between words**: ``is``, ``was``, ``had``, ``would`` … with a word before it and a
  lower-case word after it ("The ball is in the chest"), or ``will``/``can``/``may``/``must``/``might``
  followed by ``be``, ``not``, ``have`` … ("Things will be more settled"; "living will" and "trash can"
  are nouns and pass);
* **too long**: more than :data:`MAX_NAME_WORDS` words.

A part in brackets is a note on the name and is not judged ("Capt. Fox [his room-mate at McGrawville]").
Refused entities are dropped and counted like ungrounded ones, and a relation with a refused end goes
with them. The word lists are English: with ``graph.extractors.llm.grounding`` off (text whose names are
translated) the check does not run.
"""

from __future__ import annotations

import re

from kgrag.graph.extract.parse import ParsedItems

MAX_NAME_WORDS = 12  # longer than any organisation, disease or title name the test corpora hold
MIN_WORDS_FOR_END_MARK = 3  # "Yahoo!" and "Jeopardy!" are names; "You will come?" is not
_EDGE = "\"'“”‘’()[]{},;:"
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'"})
_BREAK = re.compile(r"(\S*)[.!?…]+[\"'”’)]*(?=\s+[\"'“‘(]*[A-Z])")
_INITIALS = re.compile(r"^(?:[A-Za-z]{1,2}\.)*[A-Za-z]{1,2}$")  # "J", "U.S", "e.g", "Ph.D"
ABBREVIATIONS = frozenset(
    "mr mrs ms dr st jr sr capt col gen lt sgt maj adm prof rev hon gov sen rep messrs mme mlle co inc ltd "
    "corp bros no nos nr vol vols bd pp ed eds fig figs mt ft ave rd vs etc cf al approx ca viz dept univ jan feb "
    "mar apr jun jul aug sep sept oct nov dec".split()
)
FIRST_SECOND = frozenset(
    "me my myself we us our ours ourselves you your yours yourself yourselves i'm i've i'd i'll "
    "we're we've we'd we'll you're you've you'd you'll".split()
)
SUBJECTS = frozenset(
    "he she it they we you everyone everybody someone somebody anyone anybody nobody he's she's it's they're".split()
)
AUXILIARIES = frozenset(
    "is are was were am has had does did would could should shall isn't aren't wasn't weren't hasn't "
    "hadn't doesn't didn't won't wouldn't couldn't shouldn't can't cannot".split()
)
THIRD_PERSON = frozenset("he him his himself she her hers herself its itself they them their theirs themselves".split())
MODALS = frozenset("will can may must might".split())  # also nouns: a clause only before one of these
AFTER_MODAL = frozenset("be have not never also only still always now then".split())
VERBS_AFTER_I = (
    AUXILIARIES
    | MODALS
    | frozenset(
        "am have do think wish know feel hope want said say see saw went go believe love like thought "
        "knew felt got get".split()
    )
)


def _words(name: str) -> list[str]:
    return [w for w in (raw.strip(_EDGE) for raw in name.translate(_APOSTROPHES).split()) if w]


def _lower(word: str) -> bool:
    return word[:1].islower()


def _pronoun_case(word: str) -> bool:
    """Lower case, or capitalised as a sentence starts ("You"), never all capitals ("US", "ME")."""
    return _lower(word) or (word[:1].isupper() and word[1:] == word[1:].lower())


def _sentence_break(name: str, words: list[str]) -> bool:
    for match in _BREAK.finditer(name):
        before = match.group(1).strip(_EDGE)
        if before and not (_INITIALS.match(before) or before.casefold() in ABBREVIATIONS):
            return True
    return len(words) >= MIN_WORDS_FOR_END_MARK and name.rstrip(_EDGE).endswith(("!", "?"))


def _first_second_person(words: list[str]) -> bool:
    for i, word in enumerate(words):
        folded = word.casefold().rstrip(".!?")
        after = words[i + 1] if i + 1 < len(words) else ""
        if word == "I":
            if after.casefold() in VERBS_AFTER_I:
                return True
        elif folded in FIRST_SECOND and _pronoun_case(word) and (_lower(word) or _lower(after)):
            return True
    return False


def _third_person(words: list[str]) -> bool:
    return any(_lower(word) and word.casefold() in THIRD_PERSON for word in words)


def _subject_verb(words: list[str]) -> bool:
    for i, word in enumerate(words[:-1]):
        if (_lower(word) or (i == 0 and _pronoun_case(word))) and word.casefold() in SUBJECTS and _lower(words[i + 1]):
            return True
    return False


def _finite_auxiliary(words: list[str]) -> bool:
    for i in range(1, len(words) - 1):
        word, after = words[i], words[i + 1]
        if not _lower(word) or not _lower(after):
            continue
        if word in AUXILIARIES or (word in MODALS and after in AFTER_MODAL):
            return True
    return False


def clause_reason(name: str) -> str | None:
    """Why ``name`` reads as a clause rather than a name (see the module docstring), or None. A part in
    brackets is a note on the name, not the name: "Capt. Fox [his room-mate at McGrawville]" is judged as
    "Capt. Fox", "Follicular lymphoma (FL)" as "Follicular lymphoma"."""
    name = _BRACKETED.sub(" ", name) if _BRACKETED.sub("", name).strip() else name
    words = _words(name)
    if len(words) > MAX_NAME_WORDS:
        return f"more than {MAX_NAME_WORDS} words"
    if _sentence_break(name, words):
        return "a sentence break"
    if _first_second_person(words):
        return "a first- or second-person pronoun"
    if _third_person(words):
        return "a third-person pronoun"
    if _subject_verb(words):
        return "a subject and its verb"
    if _finite_auxiliary(words):
        return "a finite verb"
    return None


def refuse_clauses(items: ParsedItems) -> tuple[ParsedItems, int, int]:
    """``items`` without the entities whose name reads as a clause and the relations with such an end,
    and how many entities and relations went."""
    refused: dict[str, bool] = {}

    def clause(name: str) -> bool:
        if name not in refused:
            refused[name] = clause_reason(name) is not None
        return refused[name]

    entities = [e for e in items.entities if not clause(e.name)]
    relations = [r for r in items.relations if not (clause(r.source) or clause(r.target))]
    kept = ParsedItems(entities, relations, items.dropped)
    return kept, len(items.entities) - len(entities), len(items.relations) - len(relations)
