"""A held-out reply distribution for ``bench_estimate_servers.py``: a capable hosted instruction model.

Written without reading the estimate's code or its results, from kgrag's prompts and reply schemas
only, and not changed after its first measurement. It answers the way a mid-sized instruction model that
follows the JSON schema does, with rules unlike those of the other scripted servers:

* entities are noun phrases found with a part-of-speech heuristic (closed-class words, verb and adverb
  endings and numbers end a phrase; at most three words, head last), ranked by a word-frequency rule
  (how often the phrase and its head word occur in the unit, more for acronyms, names and multi-word
  terms); the unit gets about one entity per 28–48 words, the rate drawn per unit; each is typed by
  cues in its words (``Guidelines`` a document, ``-nib``/``-mab`` a product, ``therapy`` a technology, ...)
  among the types the prompt lists, and described by one sentence whose length grows with its mentions;
* relations link entities that follow each other (or are one apart) in a sentence, each kept with a
  probability drawn per unit (a sparse or a dense reply), labelled with the verb between them when
  there is one, described by a sentence of varying length, with keywords and a strength;
* gleaning returns nothing for two units in five and one to four further noun phrases (with relations to
  what was found) otherwise;
* summaries are about half as long as their notes, within the word limit; community reports have a
  summary and a number of findings proportional to the material; merge confirmations say yes only to
  spelling variants, plurals and abbreviations, keep the fuller name, and always give a description;
  reflection scores every relation with a reason of at most fifteen words, lower for generic ends and
  vague labels;
* at a small rate the first reply to a request slips as real models do (a code fence, a sentence before
  or after the JSON); a re-ask is answered cleanly, and more concisely when the reply was cut off;
* a reply longer than the request's ``max_tokens`` (cl100k tokens) is cut there, as a server stops
  generating; the bench's server reports ``finish_reason`` ``stop`` for it, so kgrag sees JSON that stops.

Deterministic: every draw is seeded by a hash of the request's text, never by arrival order.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scripted_requests import cut_at_max_tokens, prompt_kind  # a sibling module of this script

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*(?:::[A-Za-z0-9]+)?|\d[\d.,%]*")
_CLOSED = frozenset(
    "a an the this that these those some any all each every no not both either neither other another such "
    "i you he she it we they me him her us them my your his its our their mine yours what which who whom whose "
    "when where why how whether if then than so as because although though while since until unless "
    "and or but nor yet also only just even still very too more most less least much many few several "
    "of in on at by for with without within into onto from to up down out over under about above below "
    "between among through during before after around against along across near per via "
    "is are was were be been being am do does did done has have had having can could may might must "
    "shall should will would there here called known like used using make makes made get gets got "
    "one two three four five six seven eight nine ten first second main new well often usually way ways "
    "need needs help helps find found take takes given give gives part parts type types kind lot lots".split()
)
_VERB_ENDINGS = ("ed", "ing", "ize", "izes", "ise", "ises", "ly")
_ADJECTIVE_ENDINGS = ("ous", "ful", "ive", "able", "ible", "ic", "al", "ent", "ant")
_VERBS = frozenset(
    "is are causes cause caused include includes included contains contain treats treat treated affects affect "
    "affected forms form formed grows grow spreads spread starts start uses use produces produce makes make "
    "helps help measures measure shows show leads lead increases increase reduces reduce removes remove "
    "carries carry fights fight controls control explains explain describes describe".split()
)
_TYPE_CUES = (
    ("document", ("guidelines", "guideline", "book", "guide", "report", "booklet", "website", "org")),
    ("organization", ("nccn", "network", "institute", "association", "society", "foundation", "center", "centre",
                      "hospital", "clinic", "fda", "university", "agency", "administration")),
    ("person", ("doctor", "doctors", "oncologist", "patient", "patients", "nurse", "surgeon", "caregiver",
                "caregivers", "expert", "experts", "pathologist", "radiologist")),
    ("team", ("team", "teams")),
    ("event", ("trial", "trials", "diagnosis", "surgery", "transplant", "relapse", "remission")),
    ("technology", ("therapy", "therapies", "chemotherapy", "radiation", "imaging", "scan", "test", "tests",
                    "biopsy", "ct", "mri", "pet", "x-ray", "procedure", "treatment", "treatments")),
    ("metric", ("rate", "rates", "level", "levels", "count", "counts", "score", "stage", "stages", "grade",
                "percent", "size", "risk")),
)  # fmt: skip
_DRUG_ENDINGS = ("nib", "mab", "cillin", "platin", "taxel", "mide", "stat", "rubicin", "vir", "zole")
_REASONS = {
    "sound": ("Both ends are named in the text and the link is stated.",
              "A specific, explicitly stated link between two real entities.",
              "The description states this relation directly."),
    "plausible": ("Plausible, but the description does not state the link directly.",
                  "Likely true; the sentence supports it only indirectly.",
                  "Reasonable link, though its wording in the source is loose."),
    "vague": ("The label is generic and says little about the link.",
              "Vague co-occurrence rather than a stated relation."),
    "fragment": ("One end is a generic word or fragment, not an entity.",
                 "An end is not a real entity."),
}  # fmt: skip


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _words(text: str, limit: int) -> str:
    """The first ``limit`` words of ``text`` as one sentence ending in a full stop."""
    words = text.split()[: max(1, limit)]
    return " ".join(words).rstrip(",;:—-").rstrip(".!?") + "."


# ---- noun phrases ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Phrase:
    """A noun phrase as the text writes it, with how much the unit talks about it."""

    name: str
    score: float
    mentions: int


def _is_content(word: str, initial: bool) -> bool:
    lower = word.casefold()
    if lower in _CLOSED or lower in _VERBS or word[0].isdigit() or len(word) < 2:
        return False
    if word[0].isupper() and not initial:
        return True  # a capitalised word inside a sentence: a name, whatever its ending
    return not (len(lower) > 4 and lower.endswith(_VERB_ENDINGS))


def _is_head(word: str) -> bool:
    """Whether ``word`` can end a noun phrase (adjectives cannot, unless written as a name)."""
    if word.isupper() or (word[0].isupper() and len(word) > 2):
        return True
    return len(word) >= 4 and not word.casefold().endswith(_ADJECTIVE_ENDINGS)


def _phrase(run: Sequence[re.Match[str]], sentence: str) -> str | None:
    """The run of words cut back to a noun head and to its last three words, as the text writes it."""
    words = list(run)
    while words and not _is_head(words[-1].group(0)):
        words.pop()
    tail = words[-3:]
    return sentence[tail[0].start() : tail[-1].end()] if tail else None


def _phrases_of(sentence: str) -> list[str]:
    """Maximal runs of content words separated by single spaces, each made a noun phrase."""
    runs: list[list[re.Match[str]]] = [[]]
    for match in _WORD.finditer(sentence):
        run = runs[-1]
        if not _is_content(match.group(0), match.start() == 0):
            runs.append([])
        elif run and sentence[run[-1].end() : match.start()] != " ":
            runs.append([match])
        else:
            run.append(match)
    return [phrase for run in runs if (phrase := _phrase(run, sentence))]


def _rank(sentences: Sequence[str]) -> list[Phrase]:
    """Candidate noun phrases, best first, by the word-frequency rule of the module docstring."""
    surface: dict[str, str] = {}
    mentions: Counter[str] = Counter()
    for sentence in sentences:
        for phrase in _phrases_of(sentence):
            key = phrase.casefold()
            surface.setdefault(key, phrase)
            mentions[key] += 1
    heads = Counter(key.split()[-1] for key in mentions.elements())
    ranked = []
    for key, count in mentions.items():
        name = surface[key]
        score = count + 0.5 * heads[key.split()[-1]] + 0.5 * (len(key.split()) - 1)
        if any(w.isupper() and len(w) > 1 for w in name.split()):
            score += 1.5  # an acronym
        elif name[:1].isupper():
            score += 0.5  # a name, or a word that only starts a sentence
        if score >= 2.0:
            ranked.append(Phrase(name, score, count))
    ranked.sort(key=lambda p: (-p.score, p.name))
    return ranked


def _type(name: str, allowed: Sequence[str]) -> str:
    words = [w.casefold().strip("’'") for w in re.split(r"[\s.]+", name) if w]
    guess = "concept"
    if words and words[-1].endswith(_DRUG_ENDINGS) and len(words[-1]) > 6:
        guess = "product"
    else:
        guess = next((kind for kind, cues in _TYPE_CUES if any(w in cues for w in words)), "concept")
    if guess in allowed:
        return guess
    return "concept" if "concept" in allowed or not allowed else allowed[0]


# ---- extraction ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """The text of one extraction or gleaning request, split into sentences."""

    sentences: tuple[str, ...]
    types: tuple[str, ...]
    concise: bool

    def mentioning(self, name: str) -> list[str]:
        folded = name.casefold()
        return [s for s in self.sentences if folded in s.casefold()]


def _around(sentence: str, name: str, length: int) -> str:
    """``length`` words of ``sentence`` from just before ``name``: what the text says about it."""
    at = sentence.casefold().find(name.casefold())
    before = sentence[: max(0, at)].split()[-2:]
    return " ".join([*before, *sentence[max(0, at) :].split()][:length])


def _entity(unit: Unit, phrase: Phrase, rng: random.Random) -> dict[str, str]:
    """One sentence about the phrase, longer the more often the unit mentions it."""
    length = 6 + 2 * min(phrase.mentions, 6) + rng.randint(-2, 3)
    if unit.concise:
        length = min(length, 9)
    said = [_around(s, phrase.name, length) for s in unit.mentioning(phrase.name)[:2]]
    description = _words("; ".join(said) or phrase.name, length)
    return {"name": phrase.name, "type": _type(phrase.name, unit.types), "description": description}


def _label(between: str) -> tuple[str, bool]:
    """A verb phrase from the words between two mentions, and whether the text had one."""
    words = between.split()
    for i, word in enumerate(words):
        lower = word.casefold().strip(",;:()")
        if lower in ("is", "are") and i + 1 < len(words) and words[i + 1].endswith("ed"):
            continue  # "is caused by": the participle carries the meaning
        if lower in _VERBS or (lower.endswith("ed") and len(lower) > 4):
            follow = [w.strip(",;:()") for w in words[i + 1 : i + 3] if w.casefold() in _CLOSED][:1]
            return " ".join([lower, *follow]).strip(), True
    return "associated with", False


def _relation(unit: Unit, pair: tuple[str, str], sentence: str, rng: random.Random) -> dict[str, Any]:
    source, target = pair
    folded = sentence.casefold()
    start = folded.find(source.casefold()) + len(source)
    end = folded.find(target.casefold(), start)
    label, stated = _label(sentence[start:end] if end > start else "")
    length = rng.randint(7, 10) if unit.concise else rng.randint(8, 18)
    relation: dict[str, Any] = {"source": source, "target": target, "label": label,
                                "description": _words(_around(sentence, source, 40), length)}  # fmt: skip
    if rng.random() > 0.02:  # now and then a model forgets an optional-looking field
        relation["keywords"] = [label.split()[0], *target.casefold().split()[-1:]][: rng.randint(1, 2)]
    relation["strength"] = max(1, min(10, (8 if stated else 5) + rng.randint(-1, 1)))
    return relation


def _relations(unit: Unit, names: Sequence[str], density: float, seed: str, cap: int) -> list[dict[str, Any]]:
    """Entities that follow each other (or are one apart) in a sentence, each pair kept with ``density``."""
    out: list[dict[str, Any]] = []
    seen: set[frozenset[str]] = set()
    for sentence in unit.sentences:
        folded = sentence.casefold()
        present = sorted((folded.find(n.casefold()), n) for n in names if n.casefold() in folded)
        order = [n for _, n in present]
        for i, source in enumerate(order):
            for target in order[i + 1 : i + 3]:
                key = frozenset((source.casefold(), target.casefold()))
                rng = _rng(seed, source, target)
                if key in seen or len(key) < 2 or rng.random() > density or len(out) >= cap:
                    continue
                seen.add(key)
                out.append(_relation(unit, (source, target), sentence, rng))
    return out


def _unit(text: str, system: str, concise: bool) -> Unit:
    sentences = tuple(s.strip() for s in _SENTENCES.split(text) if s.strip())
    types = tuple(re.findall(r"^- (\w+)$", system, re.MULTILINE))
    return Unit(sentences, types, concise)


def extract(text: str, system: str, *, concise: bool) -> dict[str, Any]:
    """The first-pass reply for one unit of text."""
    unit = _unit(text, system, concise)
    rng = _rng("extract", text)
    wanted = max(2, min(40, round(len(text.split()) / rng.uniform(28, 48))))
    phrases = _rank(unit.sentences)[:wanted]
    entities = [_entity(unit, p, _rng(text, p.name)) for p in phrases]
    density = rng.uniform(0.45, 1.0)
    cap = round(len(entities) * (0.6 if concise else rng.uniform(0.7, 1.3)))
    relations = _relations(unit, [p.name for p in phrases], density, text, cap)
    return {"entities": entities, "relations": relations}


def glean(first: str, system: str) -> dict[str, Any]:
    """The gleaning reply: nothing for two units in five, else one to four noun phrases not yet found."""
    found_line, _, text = first.partition("\n")
    text = text.removeprefix("Text:\n")
    found = [n.strip() for n in found_line.removeprefix("Found:").split(";") if n.strip()]
    folded = {n.casefold() for n in found}
    rng = _rng("glean", first)
    if rng.random() < 0.4:
        return {"entities": [], "relations": []}
    unit = _unit(text, system, concise=False)
    fresh = [p for p in _rank(unit.sentences) if p.name.casefold() not in folded][: rng.randint(1, 4)]
    entities = [_entity(unit, p, _rng(text, p.name)) for p in fresh]
    names = [*(p.name for p in fresh), *(n for n in found if n.casefold() in text.casefold())]
    relations = [
        r
        for r in _relations(unit, names, 0.8, text, 2 * len(fresh))
        if r["source"] in {p.name for p in fresh} or r["target"] in {p.name for p in fresh}
    ]
    return {"entities": entities, "relations": relations}


# ---- the other stages ------------------------------------------------------------------------------


def summarize(first: str, system: str) -> str:
    """About half the notes' words, within the prompt's word limit (now and then a little over it)."""
    head, _, notes = first.partition("\nNotes:\n")
    name = head.split(":", 1)[-1].strip()
    match = re.search(r"at most (\d+) words", system)
    limit = int(match.group(1)) if match else 80
    lines = list(dict.fromkeys(line.removeprefix("- ").strip() for line in notes.splitlines() if line.strip()))
    rng = _rng("summary", first)
    target = max(8, round(0.5 * len(" ".join(lines).split())) + rng.randint(2, 10))
    target = min(target, round(limit * 1.15) if rng.random() < 0.08 else limit)
    body = " ".join(lines)
    if not body.casefold().startswith(name.casefold()):
        body = f"{name}: {body}"
    return _words(body, target)


def _plain(item: str) -> str:
    """A material line as prose: ``A (type): text`` → ``A: text``, ``A — label — B: text`` → ``A label B: text``."""
    return re.sub(r" \((\w+)\):", ":", item).replace(" — ", " ")


_MATERIAL = re.compile(r"^\[([ERC]\d+)\] (.*)$", re.MULTILINE)


def report(first: str, system: str, *, concise: bool) -> dict[str, Any]:
    """A report whose summary and number of findings grow with the material."""
    items = _MATERIAL.findall(first)
    words = len(first.split())
    rng = _rng("report", first)
    most = re.search(r"at most (\d+) words", system)
    limit = int(most.group(1)) if most else 120
    upto = re.search(r"up to (\d+)", system)
    count = min(int(upto.group(1)) if upto else 5, max(1, round(len(items) / 3)))
    if concise:
        count, limit = max(1, count // 2), limit // 2
    texts = [_plain(text) for _, text in items] or [first]
    summary = _words(" ".join(texts), min(limit, 15 + round(words * 0.08) + rng.randint(-4, 4)))
    findings = []
    for index, (label, text) in enumerate(items[:count]):
        other = items[(index + 1) % len(items)]
        explanation = _words(_plain(other[1]), rng.randint(8, 12 if concise else 20))
        findings.append({"summary": _words(_plain(text), rng.randint(8, 16)), "explanation": explanation,
                         "refs": sorted({label, other[0]})[: rng.randint(1, 2)]})  # fmt: skip
    names = [text.split(" (", 1)[0].split(" — ", 1)[0] for _, text in items[:2]] or ["The group"]
    title = " and ".join(dict.fromkeys(names))
    return {"title": title, "summary": summary, "findings": findings,
            "rating": max(1, min(9, 3 + len(items) // 4 + rng.randint(-1, 1)))}  # fmt: skip


def _normal(name: str) -> str:
    folded = re.sub(r"[^a-z0-9 ]", "", name.casefold()).strip()
    return re.sub(r"(?:es|s)\b", "", folded).replace(" ", "")


def _initials(name: str) -> str:
    return "".join(w[0] for w in name.split() if w[:1].isalpha()).casefold()


def merge(first: str) -> dict[str, Any]:
    """Yes only to spelling variants, plurals and abbreviations; the fuller name is kept."""
    entries = re.findall(r"^(\d+)\. (.+?) \((\w+)\): ?(.*)$", first, re.MULTILINE)
    if not entries:
        return {"merge": False, "keep": 1, "description": "The entries could not be compared."}
    names = [name for _, name, _, _ in entries]
    normal = {_normal(n) for n in names}
    short = min(names, key=len)
    same = len(normal) == 1 or all(
        _normal(n) == _normal(short) or _initials(n) == short.casefold() or short.casefold() in n.casefold().split()
        for n in names
    )
    keep_at = max(range(len(entries)), key=lambda i: (len(names[i]), -i))
    rng = _rng("merge", first)
    descriptions = sorted((d for _, _, _, d in entries if d), key=len, reverse=True)
    if same:
        description = _words(descriptions[0] if descriptions else names[keep_at], rng.randint(12, 26))
    else:
        description = _words(f"{names[0]} and {names[1] if len(names) > 1 else names[0]} are different things: "
                             + " ".join(descriptions[:2]), rng.randint(14, 24))  # fmt: skip
    return {"merge": same, "keep": int(entries[keep_at][0]), "description": description}


_TRIPLE = re.compile(r"^(\d+)\. (.+?) \| (.+?) \| (.+?)(?:: (.*))?$", re.MULTILINE)


def _verdict(source: str, label: str, target: str, description: str) -> tuple[float, str]:
    ends = (source.casefold(), target.casefold())
    if any(e in _CLOSED or len(e) <= 2 for e in ends) or source.casefold() == target.casefold():
        return 0.1, "fragment"
    if label in ("associated with", "appears with", "related to", "is associated with"):
        return 0.5, "vague"
    folded = description.casefold()
    if all(e in folded for e in ends):
        return 0.9, "sound"
    return 0.7, "plausible"


def reflect(first: str) -> dict[str, Any]:
    """Every numbered relation scored once, with a short reason."""
    scores = []
    for number, source, label, target, description in _TRIPLE.findall(first):
        score, why = _verdict(source.strip(), label.strip(), target.strip(), description or "")
        rng = _rng("reflect", number, source, target)
        scores.append({"id": int(number), "score": score, "reason": rng.choice(_REASONS[why])})
    return {"scores": scores}


# ---- the responder ---------------------------------------------------------------------------------

_SLIPS = (
    (0.05, lambda s: "```json\n" + s + "\n```"),
    (0.03, lambda s: s + "\n\nThese are all the items the text supports."),
    (0.02, lambda s: "Here is the JSON:\n" + s),
)


def _slipped(reply: str, rng: random.Random) -> str:
    draw = rng.random()
    for rate, slip in _SLIPS:
        if draw < rate:
            return slip(reply)
        draw -= rate
    return reply


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _answer(kind: str, first: str, system: str, concise: bool) -> str:
    if kind == "extract":
        return _json(extract(first.removeprefix("Text:\n"), system, concise=concise))
    if kind == "glean":
        return _json(glean(first, system))
    if kind == "summarize":
        return summarize(first, system)
    if kind == "report":
        return _json(report(first, system, concise=concise))
    if kind == "merge":
        return _json(merge(first))
    if kind == "reflect":
        return _json(reflect(first))
    return "{}"


def heldout_server(body: Mapping[str, Any]) -> str:
    """Answers one chat request as the model described in the module docstring."""
    messages: Sequence[Mapping[str, Any]] = body.get("messages", [])
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    first = users[0] if users else ""
    kind = prompt_kind(system)
    again = len(users) > 1
    concise = again and "cut off" in users[-1]
    reply = _answer(kind, first, system, concise)
    if not again and kind != "summarize":
        reply = _slipped(reply, _rng("slip", json.dumps(messages, sort_keys=True)))
    return cut_at_max_tokens(reply, int(body.get("max_tokens") or 0))
