"""The entity labels spaCy gives each name across the corpus, so that one sentence's label is checked
against the others before a question word is chosen by it.

The small English model labels a product or a service a person often enough ("Docker Swarm exposes the
desired state …" → PERSON), and "Who exposes …?" then misleads. Its other labels of the same name, or of
the name's words standing alone ("part of the Swarm" → a place), show the slip: a span is asked as a person
only when spaCy labels the name a person in more than half of its mentions, and each of its words that
is labelled on its own as well (:meth:`NameLabels.bears_out_person`). A lone first name ("Iris has played
around with OTel logging") is a person when the corpus also names that person in full ("Iris Dyrmishi"), as
interviews, posts and stories do after their first mention (:meth:`NameLabels.first_name`). A full name whose
later word the corpus also writes in lower case ("Fluent Bit": "bit") is a person only when its first word
vouches for one (:meth:`NameLabels.unsure_person`). A name the corpus describes as a thing ("Verona is a
research language", "Blaze was the inspiration for …") is no person however spaCy labels it
(:meth:`NameLabels.described_as_thing`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

PERSON = "PERSON"
PEOPLE = "PEOPLE"
"""The label of a span that names people by their role or handle (:func:`names_people`), asked "who"."""
ROLE_NOUNS = frozenset(
    "administrator administrators approver approvers assignee assignees author authors bdfl committer committers "
    "contributor contributors council committee creator creators developer developers engineer engineers founder "
    "founders maintainer maintainers mentor mentors moderator moderators owner owners requester requesters "
    "requestor requestors reviewer reviewers sponsor sponsors submitter submitters team teams user users people "
    "persons volunteer volunteers scientist scientists analyst analysts researcher researchers student students "
    "customer customers attendee attendees participant participants organizer organizers organiser organisers "
    "employee employees farmer farmers teacher teachers instructor instructors learner learners intern interns "
    "recruiter recruiters interviewer interviewers doctor doctors physician physicians clinician clinicians nurse "
    "nurses patient patients".split()
)
"""Head nouns that name people by what they do in a project ("Windows users" too). Nouns that also name
software ("manager", "editor", "reader", "writer", "designer", "architect", "admin") are left out: "what"
misleads less there than "who"; "members" counts only with a group of people in the span ("Python
community members", not "enum members")."""
_PERSON_NOUNS = ROLE_NOUNS | frozenset(
    "person man woman guy girl boy child kid friend colleague member lead leader head director president chair "
    "ceo cto cofounder co-founder professor expert fan hacker programmer coder artist illustrator writer "
    "journalist blogger consultant advocate evangelist fellow winner recipient candidate alumnus graduate "
    "speaker host guest engineer manager editor designer architect wizard".split()
)
"""Nouns that describe a person ("Ana is a Principal Engineer", "Greg was the author of …")."""
_THING_NOUNS = frozenset(
    "language library framework tool toolkit toolchain app application project package module plugin extension "
    "component platform service system engine database server protocol format standard specification api sdk "
    "program implementation wrapper client interface website site blog podcast newsletter conference event "
    "course book paper game product company organization organisation foundation startup business firm browser "
    "runtime compiler interpreter kernel distribution distro feature technique algorithm approach pattern "
    "inspiration alternative replacement successor predecessor fork port collection suite pipeline workflow "
    "backend frontend cache queue driver bot repository registry dataset benchmark template theme widget syntax "
    "dialect superset subset container image cluster proxy gateway router scheduler allocator parser formatter "
    "linter debugger profiler emulator simulator shell terminal device chip processor network".split()
)
"""Nouns that describe a thing ("Verona is a research language", "Blaze was the inspiration for …"). A
name described by a noun on neither list ("Dominic Gannaway is a wizard") is left as spaCy labels it."""
_DESCRIBING_NOUNS = _THING_NOUNS | _PERSON_NOUNS
_GROUPS = frozenset("community team core staff board council committee project".split())
_LINK_TARGET = re.compile(r"\]\([^)\n]*\)")
"""A Markdown link's or image's target ("](/assets/2024 johannes müller.jpg)"): file names and addresses, not prose."""
_CODE_AT = re.compile(r"decorat|annotat|selector|at-rule|\bcss\b|directive", re.I)
"""Words of a sentence where "@name" is code (a decorator, an annotation, a CSS at-rule), not a person's handle."""
PARTICLES = frozenset("de da di del della der den van von la le du dos das bin ibn al".split())
"""Lower-case words inside a person's name ("Frank de Jonge", "Guido van Rossum")."""
_INITIAL = re.compile(r"[A-Z]\.?")
FORMS_OF_ADDRESS = frozenset(
    "mr mrs ms miss dr sir lady lord madam madame dame captain colonel general professor elder father mother "
    "grandfather grandmother brother sister uncle aunt cousin saint king queen prince princess".split()
)
"""First words that make a name a person's whatever follows ("Mother Hall", "Captain Cook")."""


def names_people(span: Any) -> bool:
    """Whether a span (a spaCy ``Span``) names people: its head noun is a role ("the aiohttp committer",
    "the Rust team", "the BDFL", "Windows users", "Python community members") or it is one user handle
    ("@name", not a dotted name and not in a sentence about decorators, annotations or CSS selectors and at-rules,
    where "@name" is code). Such a
    span asked "what" reads as a question about a thing, and a reader answers with one."""
    handle = len(span) == 1 and len(span.text) > 1 and span.text.startswith("@") and "." not in span.text
    handle = handle and not _CODE_AT.search(span.sent.text)  # "a decorator called @guvectorize", CSS's "@nest"
    members = span.root.lower_ in ("member", "members") and any(t.lower_ in _GROUPS for t in span)
    return handle or members or span.root.lower_ in ROLE_NOUNS


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def _not_a_person(labels: Counter[str] | None) -> bool:
    """Whether a name's labelled mentions are a person in half of them or fewer (None: never labelled)."""
    return labels is not None and labels[PERSON] * 2 <= labels.total()


class NameLabels:
    """Counts of each name's entity labels (lower-cased), and of each word's when it is a name alone."""

    def __init__(self) -> None:
        self.names: dict[str, Counter[str]] = defaultdict(Counter)
        self.words: dict[str, Counter[str]] = defaultdict(Counter)
        self.full_names: dict[str, set[str]] = defaultdict(set)
        self.lower_words: Counter[str] = Counter()
        self.prose_lower_words: Counter[str] = Counter()
        self.described: dict[str, Counter[bool]] = defaultdict(Counter)  # name → is its describing noun a thing's

    def add(self, doc: Any) -> None:
        """Count the entities of one parsed text (a spaCy ``Doc``), and its words written in lower case (also
        apart, those outside a Markdown link's or image's target: ``prose_lower_words``)."""
        targets = [m.span() for m in _LINK_TARGET.finditer(doc.text)]
        lower = [t for t in doc if t.is_lower and t.is_alpha]
        self.lower_words.update(t.text for t in lower)
        self.prose_lower_words.update(t.text for t in lower if not any(a <= t.idx < b for a, b in targets))
        for ent in doc.ents:
            key = _key(ent.text)
            self.names[key][ent.label_] += 1
            if len(ent) == 1:
                self.words[key][ent.label_] += 1
            elif ent.label_ == PERSON and person_shaped(ent):
                self.full_names[_key(ent[0].text)].add(key)
        for name, noun in _descriptions(doc):
            kind = {noun.lemma_.lower(), noun.lower_}
            if kind & _DESCRIBING_NOUNS:
                self.described[_key(name)][bool(kind & _THING_NOUNS)] += 1

    def bears_out_person(self, name: str) -> bool:
        """Whether the corpus's labels agree that ``name`` is a person: labelled one in more than half of its
        mentions, and each of its words that is a name alone too (a word never labelled alone says nothing),
        and the corpus does not describe it as a thing (:meth:`described_as_thing`)."""
        key = _key(name)
        if self.described_as_thing(key):
            return False
        return not any(_not_a_person(labels) for labels in (self.names.get(key), *map(self.words.get, key.split())))

    def bears_out_place(self, name: str) -> bool:
        """Whether the corpus's labels agree that ``name`` is a place: labelled one (GPE, LOC) in more than two
        thirds of its labelled mentions (spaCy calls software it does not know a place in about half of them:
        "Configure Concord", "Log in to Concord"), and, a name of one word, never written in lower case ("jinja"
        is a package wherever the corpus writes it so, "nice" a word)."""
        key = _key(name)
        mentions = self._place_mentions(key)
        placed = mentions is None or mentions[0] * 3 > mentions[1] * 2
        return placed and not (" " not in key and self.lower_words[key] > 0)

    def never_lower_case(self, word: str) -> bool:
        """Whether the corpus never writes ``word`` in lower case outside a link's or an image's target
        ("hugo server", "pip install ruby", "nick" are not a person's; a photo's file name "johannes
        müller.jpg" says nothing)."""
        return self.prose_lower_words[_key(word)] == 0

    def labelled_place(self, name: str) -> bool:
        """Whether spaCy labels ``name`` a place (GPE, LOC) in more than half of its labelled mentions."""
        mentions = self._place_mentions(_key(name))
        return mentions is not None and mentions[0] * 2 > mentions[1]

    def _place_mentions(self, key: str) -> tuple[int, int] | None:
        """How many of a name's labelled mentions spaCy labels a place (GPE, LOC), and how many there are; None
        for a name never labelled."""
        labels = self.names.get(key)
        return None if labels is None else (labels["GPE"] + labels["LOC"], labels.total())

    def first_name(self, word: str) -> bool:
        """Whether ``word`` opens a full name the corpus labels a person ("Iris" of "Iris Dyrmishi") and is
        itself, where labelled alone, a person in most mentions ("Prometheus" of a mislabelled "Prometheus
        Operator" is a product wherever it stands alone). A full name whose later words the corpus also
        writes in lower case is a product's ("Kafka Connect": "connect"), not a person's."""
        full = self._full_names_opened_by(word)
        return any(self.bears_out_person(name) for name in full) and self.bears_out_person(_key(word))

    def named_in_full(self, name: str) -> bool:
        """Whether ``name``, two words or more, is labelled a person in at least two of its mentions and in more
        than half, and the corpus writes none of its words in lower case: a person whatever one sentence or the
        words alone were labelled ("Yuito" alone an organisation once, "Yuito Murase" a person twice). A
        product's name has a word the corpus writes in lower case ("docker", "bit", "connect")."""
        key = _key(name)
        labels, words = self.names.get(key), key.split()
        if labels is None or len(words) < 2 or labels[PERSON] < 2 or _not_a_person(labels):
            return False
        if self.described_as_thing(key):
            return False
        return not self._common_words([p for w in words for p in re.split(r"[-']", w) if p])

    def opens_full_name(self, word: str) -> bool:
        """Whether ``word`` opens a full name the corpus bears out as a person's, none of whose later words it
        writes in lower case ("Amritpan" of "Amritpan Kaur"), whatever the word alone was labelled."""
        return any(self.bears_out_person(name) or self.named_in_full(name) for name in self._full_names_opened_by(word))

    def _full_names_opened_by(self, word: str) -> list[str]:
        """The full names labelled a person that ``word`` opens, but for those with a later word the corpus
        writes in lower case (a product's: "Kafka Connect")."""
        return [name for name in self.full_names.get(_key(word), ()) if not self._common_words(name.split()[1:])]

    def unsure_person(self, name: str) -> bool:
        """Whether a name of two words or more that the labels bear out as a person may be a product all
        the same: a later word is one the corpus writes in lower case ("Fluent Bit": "bit"; "Docker Hub":
        "hub"), and the first word vouches for no person: it is no form of address ("Mother Hall") and not a
        first name: never written in lower case, and labelled a person where it stands alone ("Angelo" of
        "Angelo Hall") or opening two or more of the full names the corpus labels people ("John" of "John
        Hall" and "John Brown"). "Vite", which spaCy calls a person alone too, is written "vite" in paths.
        Surnames that are common words (Hall, Rose, Brown) make some people unsure (a person named once in
        full, "Ernestine Rose"), so such a name is asked nothing rather than asked "what"."""
        first, *later = _key(name).split() or [""]
        if not later or not self._common_words(later) or first.rstrip(".") in FORMS_OF_ADDRESS:
            return False
        alone = self.words.get(first)
        named = (alone is not None and not _not_a_person(alone)) or len(self.full_names.get(first, ())) >= 2
        return self.lower_words[first] > 0 or not named

    def described_as_thing(self, name: str) -> bool:
        """Whether the corpus describes ``name`` by a noun of a thing more often than by one of a person: the
        subject of "is a …"/"was the …" ("Verona is a research language", "Blaze was the inspiration for …";
        not "Ana is a Principal Engineer", and nothing is told by "Dominic is a wizard")."""
        counts = self.described.get(_key(name))
        return counts is not None and counts[True] > counts[False]

    def _common_words(self, words: list[str]) -> bool:
        return any(self.lower_words[w] for w in words if w not in PARTICLES)


def _descriptions(doc: Any) -> list[tuple[str, Any]]:
    """Each name (a proper noun, or a capitalised noun: the tagger makes a name opening its sentence one) that is
    the subject of a form of "be" with a common noun and its article after it, and that noun ("Verona is a
    research language" → ("Verona", language); not "Andy has been part of the community")."""
    found = []
    for token in doc:
        named = token.pos_ == "PROPN" or (token.pos_ == "NOUN" and token.text[:1].isupper())  # "Blaze was …"
        if token.dep_ != "nsubj" or not named or token.head.lemma_ != "be":
            continue
        noun = next((c for c in token.head.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
        if noun is None or not any(c.dep_ == "det" for c in noun.children):
            continue  # "Andy has been part of the community": no article, no kind of thing
        start = min((c.i for c in token.lefts if c.dep_ == "compound" and c.pos_ == "PROPN"), default=token.i)
        found.append((doc[start : token.i + 1].text, noun))
    return found


def person_shaped(span: Any) -> bool:
    """Whether a span is written as a person's name: one to three capitalised proper nouns ("O'Brien" and
    "MacDonald" too, not "OTel"; a double-barrelled "Richard-Foy" is one), with initials ("John F. Kennedy") or
    lower-case particles ("Frank de Jonge") inside or before its last word, two words at least."""
    tokens = [t for t in span if not _hyphen_inside(t, span)]
    extra = [t for t in tokens[:-1] if _initial(t) or (t.i > span.start and t.lower_ in PARTICLES)]
    named = [t for t in tokens if t not in extra]
    capitalised = all(_capitalised(t.text) and t.pos_ == "PROPN" for t in named)
    words = [t for t in named if t.i == span.start or not _hyphen_inside(span.doc[t.i - 1], span)]
    shaped = 1 <= len(words) <= 3 and len(tokens) >= 2 and len(words) + len(extra) >= 2 and len(span) <= 7
    return shaped and capitalised and span[-1] in named


def _hyphen_inside(token: Any, span: Any) -> bool:
    """A hyphen that joins two parts of one name without spaces ("Richard-Foy")."""
    doc = token.doc
    inside = span.start < token.i < span.end - 1
    return inside and token.text == "-" and not token.whitespace_ and not doc[token.i - 1].whitespace_


def _initial(token: Any) -> bool:
    return token.pos_ == "PROPN" and _INITIAL.fullmatch(token.text) is not None


def _capitalised(word: str) -> bool:
    return word.istitle() or (word[:1].isupper() and word[1:2].islower())
