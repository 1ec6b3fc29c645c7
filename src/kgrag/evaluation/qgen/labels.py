"""The entity labels spaCy gives each name across the corpus, so that one sentence's label is checked
against the others before a question word is chosen by it.

The small English model labels a product or a service a person often enough ("Docker Swarm exposes the
desired state …" → PERSON), and "Who exposes …?" then misleads. Its other labels of the same name, or of
the name's words standing alone ("part of the Swarm" → a place), show the slip: a span is asked as a person
only when spaCy labels the name a person in more than half of its mentions, and each of its words that
is labelled on its own as well (:meth:`NameLabels.bears_out_person`). A lone first name ("Iris has played
around with OTel logging") is a person when the corpus also names that person in full ("Iris Dyrmishi"), as
interviews, posts and stories do after their first mention (:meth:`NameLabels.first_name`).
"""

from __future__ import annotations

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
    "persons volunteer volunteers".split()
)
"""Head nouns that name people by what they do in a project ("Windows users" too). Nouns that also name
software ("manager", "editor", "reader", "writer") are left out: "what" misleads less there than "who";
"members" counts only with a group of people in the span ("Python community members", not "enum
members")."""
_GROUPS = frozenset("community team core staff board council committee project".split())
PARTICLES = frozenset("de da di del della der den van von la le du dos das bin ibn al".split())
"""Lower-case words inside a person's name ("Frank de Jonge", "Guido van Rossum")."""


def names_people(span: Any) -> bool:
    """Whether a span (a spaCy ``Span``) names people: its head noun is a role ("the aiohttp committer",
    "the Rust team", "the BDFL", "Windows users", "Python community members") or it is one user handle
    ("@name", not a dotted name and not in a sentence about decorators, where "@name" is code). Such a
    span asked "what" reads as a question about a thing, and a reader answers with one."""
    handle = len(span) == 1 and len(span.text) > 1 and span.text.startswith("@") and "." not in span.text
    handle = handle and "decorat" not in span.sent.text.lower()  # "a decorator called @guvectorize"
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

    def add(self, doc: Any) -> None:
        """Count the entities of one parsed text (a spaCy ``Doc``)."""
        for ent in doc.ents:
            key = _key(ent.text)
            self.names[key][ent.label_] += 1
            if len(ent) == 1:
                self.words[key][ent.label_] += 1
            elif ent.label_ == PERSON and person_shaped(ent):
                self.full_names[_key(ent[0].text)].add(key)

    def bears_out_person(self, name: str) -> bool:
        """Whether the corpus's labels agree that ``name`` is a person: labelled one in more than half of its
        mentions, and each of its words that is a name alone too (a word never labelled alone says nothing)."""
        key = _key(name)
        return not any(_not_a_person(labels) for labels in (self.names.get(key), *map(self.words.get, key.split())))

    def first_name(self, word: str) -> bool:
        """Whether ``word`` opens a full name the corpus labels a person ("Iris" of "Iris Dyrmishi") and is
        itself, where labelled alone, a person in most mentions ("Prometheus" of a mislabelled "Prometheus
        Operator" is a product wherever it stands alone)."""
        key = _key(word)
        return any(self.bears_out_person(name) for name in self.full_names.get(key, ())) and self.bears_out_person(key)


def person_shaped(span: Any) -> bool:
    """Whether a span is written as a person's name: two or three capitalised proper nouns, and lower-case
    particles inside it ("Frank de Jonge")."""
    inner = [t for t in span[1:-1] if t.lower_ in PARTICLES and t.is_lower]
    named = [t for t in span if t not in inner]
    capitalised = all(t.text[:1].isupper() and t.text[1:2].islower() and t.pos_ == "PROPN" for t in named)
    return 2 <= len(named) <= 3 and len(span) <= 4 and capitalised  # "MacDonald" too, not "OTel"
