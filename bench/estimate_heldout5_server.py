"""A fifth held-out reply distribution for the estimate's harness: a reasoning model that thinks aloud.

Written without reading the estimate's code or its results, from kgrag's prompts, reply schemas, the
scripted fake server and the other scripted servers (to differ from them) only. It answers the way a
small open reasoning model in thinking mode (Qwen3-8B/14B or a DeepSeek-R1 distill) does when it is served
by an OpenAI-compatible server that leaves the reasoning in the message content (llama-server with
``--reasoning-format none``, vLLM without a reasoning parser) and does not bind the reply to the
``response_format`` schema, but stops it at ``max_tokens`` with ``finish_reason: "length"`` (the check serves
it with ``FakeOpenAIServer(cut_at_max_tokens=True)``). None of the other scripted servers spends reply tokens
on reasoning; here every reply, whatever the prompt, is a ``<think>`` block of prose (no brackets or braces:
the model plans in words) followed by the answer, so a reply's size is its thinking plus its answer, and the
thinking grows with the work the prompt asks for:

* extraction thinks through the unit's candidates one line each: capitalised names and acronyms (an
  acronym in brackets after its expansion included; a lone capitalised word only when the unit writes it
  so twice and never in lower case), and lower-case terms of two to four words the unit says at least
  twice (the longest first), each kept unless said once in a sentence that names no other candidate (then
  thought about and left out), plus a few one-off phrases and sentence-opening words considered and
  rejected; then one line per planned relation, and a closing line. One request in six double-checks every
  kept name against the text (a second pass), and one in fifteen also reconsiders every type, which is
  what pushes a dense unit's reply past ``max_tokens``. The answer after it is concise: every kept
  candidate (no per-unit share, no ceiling) with a description of 4–9 words from its first sentence;
  relations only where a verb (or ``such as``, ``including``, a bracketed short form) stands between two
  kept entities of one sentence that is not a question, from the sentence's first entity to at most two
  others, described by the sentence (9–16 words, at least up to the later end), with one or two keywords
  and a strength;
* the answer is bare JSON (``", "`` separators) seven times in ten and a fenced, two-space-indented
  ```json block otherwise (per request; 15% on a re-ask); one first extraction reply in twenty quotes the
  text inside a description with unescaped double quotes (invalid JSON, re-asked), and one in twenty-five
  names the list ``relationships`` instead of ``relations`` (valid, but without relations);
* a re-ask thinks in two or three sentences: after a cut reply it answers briefly (the entities the unit
  names twice or that are capitalised, at most three in five of them and at least four, descriptions of
  three to six words, one relation a sentence at most), though one such re-ask in six first thinks the
  whole unit through again, which can overrun once more (the unit is then asked in halves); after an
  invalid reply it sends the same answer with its quoting fixed; a half of a unit is asked afresh and
  thinks it through in full;
* gleaning thinks through the found list and every candidate not in it (one-off phrases with a domain head
  included, since it is asked about misses), then adds none to four of them (drawn per request) with their
  relations to found entities, and up to two relations between found entities (always when it adds an
  entity, in half the replies otherwise); when it adds nothing it says so and returns empty lists;
* summaries think through the notes (one short line each for the first twelve, then a line for the rest, a
  word count now and then) and merge the distinct notes, each kept to 30–50% of its words, into well under
  the word limit (40–70% of it at most), so a summary asked for under a small ``max_tokens`` can still run
  past it with its thinking; the same request is answered the same way again;
* community reports think through the material (one line an item, up to fourteen) and plan each finding,
  then give a title naming the first three items, a two-sentence summary and one finding per two items of
  material up to the number asked (entities first, each once), each a one-sentence summary, an explanation
  of 12–24 words and refs, with a rating, which almost never fits a report's ``max_tokens``; the re-ask after a
  cut thinks briefly and gives a one-sentence summary and two or three findings with short explanations;
* merge confirmations think about each candidate and whether each other one is the first, then say yes (for
  the group, only when all are) for names equal up to case, punctuation and a plural, for an acronym of the
  other name (its initials, or written in brackets after it), and, when their descriptions share a content
  word, for a name of two words or more that opens the other, which goes on with a function word or
  ``alone`` (``NCCN Guidelines``, ``NCCN Guidelines for Patients``), or that the other repeats after one
  loose modifier (``nearby lymph nodes``), unless one reads as a treatment or test and the other as a
  disease; they keep the fullest name without such a modifier and give a one-sentence description; they
  are never near the cap;
* reflection thinks one short line a relation (its ends, a verdict in two words, the score) and scores
  every one with a reason of six to twelve words: near 0.1 for a pronoun or fragment end, about 0.4 for a
  generic end, 0.5–0.6 when the description names neither end, 0.65–0.8 for a vague label, 0.85–0.97
  otherwise; a full batch's thinking and answer together sit near the cap, and the re-ask after a cut gives
  reasons of three to five words after a one-sentence thought.

Deterministic: every draw is seeded by a hash of the request's text (its messages and temperature; the
unit's text for what is extracted from it), never by arrival order.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scripted_requests import ScriptedRequest, prompt_kind  # a sibling module of this script

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")
_CAPITAL_RUN = re.compile(r"[A-Z][A-Za-z0-9'’-]*(?:\s+(?:of\s+|for\s+|and\s+)?[A-Z][A-Za-z0-9'’-]*)*")
_BRACKETED = re.compile(r"\(([A-Z]{2,6}s?)\)")
_STOP = frozenset(
    "a an the this that these those it its they them their there here what how why when where who which whom "
    "if then than so as and or but not no nor is are was were be been being am do does did has have had can "
    "could may might must should will would shall of in on at by for with from to into onto about after before "
    "over under during while also only very more most less least many much some any all each every other such "
    "you your yours we our us he she his her one two three four five first second new main most often usually "
    "about above below between among through per via like just even still too well way ways part parts "
    "lot lots kind kinds type types thing things people person someone something called known used using "
    "find out keep read reading get see ask let because another following considered starts start however "
    "although therefore instead sometimes others".split()
)
_VERB_CUES = frozenset(
    "is are was were can may might will causes cause caused treats treat treated uses use used removes remove "
    "removed forms form includes include included involves involve produces produce protects protect helps "
    "help occurs occur develops develop spreads spread grows grow affects affect shows show found made "
    "makes make becomes become called known recommends recommend requires require kills kill".split()
)
_DOMAIN_HEAD = re.compile(
    r"(?:cancers?|cells?|tumou?rs?|lesions?|skin|therapy|therapies|surgery|treatments?|tests?|biopsy|scans?|"
    r"drugs?|rays?|layers?|glands?|nodes?|vessels?|tissues?|system|radiation|[a-z]+(?:oma|itis|osis|ectomy|ology))$"
)
_TREATMENT = re.compile(r"therap|surger|treatment|biopsy|test|scan|excision|radiation|drug|cream|medicine")
_CUES = (
    ("organization", ("nccn", "society", "institute", "network", "association", "foundation", "hospital", "fda")),
    ("location", ("united states", "america", "europe", "canada", "county", "city")),
    ("document", ("guidelines", "guide", "book", "patientguidelines", "report")),
    ("product", ("mab", "nib", "cream", "gel", "vaccine", "app")),
    ("technology", ("therapy", "surgery", "biopsy", "scan", "test", "radiation", "imaging", "excision")),
    ("metric", ("rate", "percent", "stage", "grade", "score", "risk")),
)
_PRONOUNS = frozenset(
    {"it", "they", "this", "that", "he", "she", "them", "those", "these", "which", "others", "some", "you", "we"}
)
_GENERIC = frozenset({"the", "a", "an", "thing", "things", "people", "part", "type", "area", "areas", "way"})
_LOOSE_MODIFIERS = frozenset("nearby standard usual common general overall main typical normal".split())
_VAGUE = ("related to", "associated with", "linked to", "connected to", "mentioned with", "involves")
_CUT_MARK = "cut off"
_BRACKETS = re.compile(r"[{}\[\]]")
_QUOTE = "\u241f"  # stands for an unescaped double quote until the reply is serialised


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("\x1e".join(parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _clip(text: str, words: int) -> str:
    cut = " ".join(text.split()[: max(1, words)]).rstrip(",;:–—-( ")
    return cut if cut.endswith((".", "!", "?")) else cut + "."


def _phrase(text: str, words: int) -> str:
    """The first ``words`` words of ``text``, without a closing stop (for a thought, not a sentence)."""
    return " ".join(text.split()[: max(1, words)]).rstrip(".,;:!?–—-( ")


def _article(word: str) -> str:
    return "an" if word[:1].casefold() in "aeiou" else "a"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.split()) >= 3]


def _mentions(name: str, text: str) -> int:
    return len(re.findall(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, flags=re.IGNORECASE))


# ---- what the model considers in a unit ----------------------------------------------------------


class Reading:
    """A unit read as the model reads it: sentences, the candidates it keeps and those it rejects."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sentences = _sentences(text)
        names, rejected = self._names()
        concepts, once = self._concepts(names)
        candidates = self._ordered([*names, *concepts])
        self.kept = [c for c in candidates if not self._minor(c, candidates)]
        self.minor = [c for c in candidates if c not in self.kept]  # thought about, then left out
        self.rejected = rejected
        self.once = once  # lower-case phrases said once: rejected by the first pass, taken by gleaning

    def _names(self) -> tuple[list[str], list[str]]:
        """Capitalised runs and bracketed acronyms; a lone capitalised word only when the unit writes it so twice
        and never in lower case, and it does not read as a verb form (a heading's or a sentence's first word
        otherwise, rejected)."""
        lower = {w for w in _WORD.findall(self.text) if w.islower()}
        capitals = Counter(_WORD.findall(self.text))
        names: list[str] = []
        rejected: list[str] = []
        for sentence in self.sentences:
            for match in _CAPITAL_RUN.finditer(sentence):
                words = match.group(0).split()
                while words and words[0].casefold() in _STOP:
                    words = words[1:]
                while words and words[-1].casefold() in _STOP:
                    words = words[:-1]
                name = " ".join(words)
                if len(name) < 2:
                    continue
                lone = len(words) == 1 and not name.isupper()
                if lone and (name.casefold() in lower or capitals[name] < 2 or name.endswith(("ing", "ed", "ly"))):
                    rejected.append(name)
                else:
                    names.append(name)
            names += _BRACKETED.findall(sentence)
        return list(dict.fromkeys(names)), list(dict.fromkeys(r for r in rejected if r not in names))

    def _concepts(self, names: Sequence[str]) -> tuple[list[str], list[str]]:
        """Lower-case terms of two to four words said at least twice (longest first; a shorter one inside a kept
        one only when said three more times on its own), and the two-word terms with a domain head said once."""
        counts: Counter[str] = Counter()
        for sentence in self.sentences:
            for segment in re.split(r"[,;:()–—]| - ", sentence):
                words = _WORD.findall(segment)
                for size in (4, 3, 2):
                    for start in range(len(words) - size + 1):
                        run = [w.casefold() for w in words[start : start + size]]
                        if all(_concept_word(w) for w in words[start : start + size]) and not run[-1].endswith(
                            ("ed", "ing", "ly")
                        ):
                            counts[" ".join(run)] += 1
        folded_names = [f" {n.casefold()} " for n in names]
        kept: list[str] = []
        for gram, count in sorted(counts.items(), key=lambda item: (-len(item[0].split()), -item[1])):
            outer = [k for k in kept if f" {gram} " in f" {k} "]
            if count < 2 or any(f" {gram} " in n for n in folded_names):
                continue
            if not outer or count >= max(counts[k] for k in outer) + 3:
                kept.append(gram)
        once = [
            g
            for g, c in counts.items()
            if c == 1 and _DOMAIN_HEAD.search(g) and len(g.split()) == 2 and not g.split()[0].endswith(("ing", "ed"))
        ]
        return kept, [g for g in once if not any(g in k for k in kept)]

    def _minor(self, name: str, candidates: Sequence[str]) -> bool:
        """Said once, in a sentence that names no other candidate: mentioned in passing."""
        if _mentions(name, self.text) > 1:
            return False
        said = _said(name, self.sentences).casefold()
        return not any(other != name and other.casefold() in said for other in candidates)

    def _ordered(self, things: Sequence[str]) -> list[str]:
        """``things`` each once, as the text first writes them, in reading order; a lone capitalised word that
        opens a longer candidate (``Key`` of ``Key points``) is a part of it, not a thing of its own."""
        written: dict[str, tuple[int, str]] = {}
        for thing in things:
            thing = re.sub(r"\b(\w+(?: \w+){0,3}) \1\b", r"\1", thing)  # a heading run into its own text
            found = re.search(rf"(?<![\w-]){re.escape(thing)}(?![\w-])", self.text, flags=re.IGNORECASE)
            if found:
                written.setdefault(thing.casefold(), (found.start(), found.group(0)))
        parts = {k for k in written if " " not in k and any(o.startswith(k + " ") for o in written)}
        kept = [(at, w) for k, (at, w) in written.items() if k not in parts or w.isupper()]
        return [w for _, w in sorted(kept)]


def _concept_word(word: str) -> bool:
    """A word a term is made of: lower case (or capitalised only), not a function word or a common verb."""
    folded = word.casefold()
    shape = word.islower() or (word[:1].isupper() and word[1:].islower())
    return shape and len(word) >= 3 and folded not in _STOP and folded not in _VERB_CUES


def _type(name: str, types: Sequence[str]) -> str:
    folded = name.casefold()
    guess = next((kind for kind, cues in _CUES if any(re.search(rf"{c}\b", folded) for c in cues)), "concept")
    if guess == "concept" and name.isupper() and len(name) >= 3 and not name.endswith("s"):
        guess = "organization" if folded in {"nccn", "fda", "who", "nih", "cdc", "aad"} else "concept"
    if not types or guess in types:
        return guess
    return "concept" if "concept" in types else types[0]


def _said(name: str, sentences: Sequence[str]) -> str:
    folded = name.casefold()
    return next((s for s in sentences if folded in s.casefold()), name)


# ---- extraction answers ---------------------------------------------------------------------------------


def _description(name: str, sentences: Sequence[str], words: int) -> str:
    """About ``words`` words of the first sentence naming ``name``: from its start, or from just before the name
    when the name comes late in it (the name always included)."""
    sentence = _said(name, sentences)
    start = sentence.casefold().find(name.casefold())
    before = len(sentence[: max(0, start)].split())
    tokens = sentence.split()
    first = max(0, min(before - 2, len(tokens) - words)) if before + len(name.split()) > words else 0
    return _clip(" ".join(tokens[first:]), max(words, before - first + len(name.split()) + 1))


def _link(between: str) -> str | None:
    """The label a sentence gives the link between two entities, from the words between them (None: no link)."""
    words = [w for w in between.strip(" ,;:").split() if w.casefold() not in {"a", "an", "the"}]
    folded = " ".join(words).casefold()
    if between.strip().startswith("("):
        return "is abbreviated as"
    if folded.startswith(("such as", "including", "like")):
        return "includes"
    verbs = [i for i, w in enumerate(words) if w.casefold() in _VERB_CUES]
    if not verbs or len(words) > 10 or re.search(r"[?!:;]", between):
        return None
    label = re.split(r"[,.()–—]", " ".join(words[verbs[0] : verbs[0] + 3]))[0]
    return label.casefold().strip()


def _relations(reading: Reading, names: Sequence[str], brief: bool, rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[frozenset[str]] = set()
    for sentence in reading.sentences:
        if sentence.endswith("?"):  # a question (a heading) states no link
            continue
        folded = sentence.casefold()
        here = sorted((n for n in names if n.casefold() in folded), key=lambda n: folded.find(n.casefold()))
        made = 0
        for other in here[1:]:
            source = here[0]
            key = frozenset((source.casefold(), other.casefold()))
            start = folded.find(source.casefold()) + len(source)
            end = folded.find(other.casefold(), start)
            label = _link(sentence[start:end]) if end > start else None
            if len(key) < 2 or key in seen or label is None or made >= (1 if brief else 2):
                continue
            seen.add(key)
            made += 1
            reach = len(sentence[: end + len(other)].split())
            words = max(reach, rng.randint(8, 12) if brief else rng.randint(9, 16))
            head = other.split()[-1].casefold()
            keywords = [label.split()[0], head] if not brief and rng.random() < 0.5 else [head]
            strength = 9 if source[:1].isupper() and other[:1].isupper() else rng.randint(6, 8)
            out.append({"source": source, "target": other, "label": label, "description": _clip(sentence, words),
                        "keywords": keywords, "strength": strength})  # fmt: skip
    return out


def _graph(reading: Reading, names: Sequence[str], types: Sequence[str], brief: bool, seed: str) -> dict[str, Any]:
    entities = []
    for name in names:
        words = _rng(seed, name).randint(3, 6) if brief else _rng(seed, name).randint(4, 9)
        entities.append(
            {"name": name, "type": _type(name, types), "description": _description(name, reading.sentences, words)}
        )
    return {"entities": entities, "relations": _relations(reading, names, brief, _rng(seed, "relations", str(brief)))}


def _brief_names(reading: Reading) -> list[str]:
    """What a re-ask after a cut keeps: capitalised names and things said twice, at most 3 in 5 (at least 4)."""
    chosen = [n for n in reading.kept if n[:1].isupper() or _mentions(n, reading.text) >= 2]
    limit = max(4, round(0.6 * len(reading.kept)))
    ranked = sorted(chosen, key=lambda n: -_mentions(n, reading.text))[:limit]
    return [n for n in reading.kept if n in ranked]


def _extraction_thought(reading: Reading, names: Sequence[str], graph: dict[str, Any], request: Request) -> str:
    rng = request.rng("thought")
    types = ", ".join(request.types) or "the listed types"
    topic = " and ".join(names[:2]) or "a short passage"
    lines = [
        f"Okay, let me work through this text. It seems to be about {topic}. I need the entities with their names "
        f"copied exactly, a type from the list ({types}), a one-sentence description, and then the relations with "
        "a label, a description, keywords and a strength.",
        "",
        "Going through the text:",
    ]
    for name in names:
        count = _mentions(name, reading.text)
        kind = _type(name, request.types)
        context = f", {_phrase(_description(name, reading.sentences, 12), rng.randint(2, 5))}" if count > 2 else ""
        lines.append(f'- "{name}", {count}x: {_article(kind)} {kind}{context}. Keep.')
    for minor in reading.minor:
        lines.append(f'- "{minor}", 1x: mentioned once in passing, nothing links it to the rest. Leave it out.')
    for rejected in [*reading.rejected, *reading.once][: max(2, len(names) // 3)]:
        reason = rng.choice(
            ("just a heading word", "too generic", "not really a named thing", "said only once in passing")
        )
        lines.append(f'- "{rejected}" is {reason}, so I will skip it.')
    lines += ["", "Now the relations."]
    for relation in graph["relations"]:
        lines.append(f"{relation['source']} {relation['label']} {relation['target']}: the text says it explicitly.")
    if rng.random() < 1 / 6:
        lines += ["", "Wait, let me double-check that every name is copied exactly as the text writes it."]
        lines += [f'"{n}": yes, the text writes it like that.' for n in names]
        if rng.random() < 0.4:  # one request in fifteen: the types too
            lines += ["Hmm, and the types. Let me reconsider each one."]
            lines += [f"{n} as {_type(n, request.types)}? I think that fits best here." for n in names]
    lines += ["", f"Okay, {len(names)} entities and {len(graph['relations'])} relations. Let me write the JSON."]
    return "\n".join(lines)


def _extract(request: Request) -> str:
    reading = Reading(request.first.removeprefix("Text:\n"))
    if request.again:
        return _extract_again(request, reading)
    graph = _graph(reading, reading.kept, request.types, False, reading.text)
    thought = _extraction_thought(reading, reading.kept, graph, request)
    fault = request.rng("fault").random()
    if fault < 0.05 and graph["entities"]:  # a description quoting the text with bare double quotes
        entity = graph["entities"][0]
        entity["description"] = f"Called {_QUOTE}{entity['name']}{_QUOTE} in the text. " + entity["description"]
    elif fault < 0.09:
        graph = {"entities": graph["entities"], "relationships": graph["relations"]}
    return request.answer(thought, graph)


def _extract_again(request: Request, reading: Reading) -> str:
    if _CUT_MARK in request.last:
        names = _brief_names(reading)
        graph = _graph(reading, names, request.types, True, reading.text)
        thought = (
            "The previous answer was cut off at the token limit. I need to be much shorter: only the main "
            f"entities ({', '.join(names[:6])}), very short descriptions, and only the clearest relations."
        )
        if request.rng("rethink").random() < 1 / 6:  # it goes through the whole unit again before choosing
            thought += "\nLet me go through the text again to choose.\n" + _extraction_thought(
                reading, reading.kept, graph, request
            )
    else:
        graph = _graph(reading, reading.kept, request.types, False, reading.text)
        thought = "The JSON was invalid because a description had unescaped quotes. I will send the same answer fixed."
    return request.answer(thought, graph)


def _glean(request: Request) -> str:
    found_line, _, text = request.first.partition("\n")
    reading = Reading(text.removeprefix("Text:\n"))
    found = [n.strip() for n in found_line.removeprefix("Found:").split(";") if n.strip() and n.strip() != "(none)"]
    known = {n.casefold() for n in found}
    missing = [c for c in [*reading.kept, *reading.once] if c.casefold() not in known]
    rng = request.rng("glean")
    fresh = missing[: rng.randint(0, 4)] if missing else []
    lines = [
        f"The user lists {len(found)} names already found: {', '.join(found[:10])}{' and more' * (len(found) > 10)}. "
        "I need only what was missed. Let me read the text again and check each candidate.",
    ]
    for name in missing:
        verdict = "missing, add it" if name in fresh else "probably too minor, leave it"
        lines.append(f'- "{name}" is not in the list. {verdict.capitalize()}.')
    ends = [*fresh, *(n for n in reading.kept if n.casefold() in known)]
    relations = [r for r in _relations(reading, ends, False, rng) if r["source"] in fresh or r["target"] in fresh]
    pairs = {(r["source"], r["target"]) for r in relations}
    among = [r for r in _relations(reading, ends, True, rng) if (r["source"], r["target"]) not in pairs]
    among = among[: rng.randint(0, 2)]
    relations += among if fresh or rng.random() < 0.5 else []
    for relation in relations:
        lines.append(f"Relation: {relation['source']} {relation['label']} {relation['target']}. Not given before.")
    entities = [
        {
            "name": n,
            "type": _type(n, request.types),
            "description": _description(n, reading.sentences, rng.randint(8, 14)),
        }
        for n in fresh
    ]
    lines.append("So those are the additions." if entities or relations else "I do not see anything missing.")
    return request.answer("\n".join(lines), {"entities": entities, "relations": relations})


# ---- the other prompts ------------------------------------------------------------------------------------


def _summary(request: Request) -> str:
    head, _, notes = request.first.partition("\nNotes:\n")
    name = head.partition(":")[2].strip() or "it"
    limit = int(m.group(1)) if (m := re.search(r"at most (\d+) words", request.system)) else 100
    rng = request.rng("summary")
    distinct = list(dict.fromkeys(n.removeprefix("- ").strip() for n in notes.splitlines() if n.strip()))
    lines = [f"Merging {len(distinct)} notes about {name}, at most {limit} words, every fact kept."]
    for number, note in enumerate(distinct[:12], start=1):
        lines.append(f"{number}: {_phrase(note, rng.randint(2, 4))}, {rng.choice(('keep', 'new fact', 'overlaps'))}.")
    if len(distinct) > 12:
        lines.append(f"The other {len(distinct) - 12} notes say much the same, with a few details to add.")
    ratio = rng.uniform(0.3, 0.5)
    kept = [_clip(note, max(3, round(len(note.split()) * ratio))) for note in distinct] or [f"{name} is mentioned."]
    text = " ".join(kept)
    if name.casefold() not in text.casefold()[:60]:
        text = f"{name}: {text}"
    text = _clip(text, min(round(limit * rng.uniform(0.4, 0.7)), len(text.split())))
    if rng.random() < 0.2:
        lines.append(f"Let me count: about {len(text.split())} words, within the limit.")
    lines.append("Now I will write it in the third person.")
    return f"<think>\n{_BRACKETS.sub('', chr(10).join(lines))}\n</think>\n\n{text}"


_MATERIAL = re.compile(r"^\[([ERC]\d+)\] (.+)$", re.MULTILINE)


def _head(item: str) -> str:
    return re.split(r" \(| — |: ", item, maxsplit=1)[0].strip()


def _report(request: Request) -> str:
    items = _MATERIAL.findall(request.first) or [("E1", "The group: the material is empty.")]
    rng = request.rng("report")
    asked = int(m.group(1)) if (m := re.search(r"findings: up to (\d+)", request.system)) else 5
    limit = int(m.group(1)) if (m := re.search(r"at most (\d+) words", request.system)) else 150
    names = list(dict.fromkeys(_head(t) for label, t in items if label[0] != "R")) or [_head(items[0][1])]
    brief = request.again and _CUT_MARK in request.last
    count = rng.randint(2, 3) if brief else max(1, min(asked, (len(items) + 1) // 2))
    ranked = [*(i for i in items if i[0][0] != "R"), *(i for i in items if i[0][0] == "R")]
    findings = []
    for label, item in ranked[:count]:
        name, body = _head(item), item.split(": ", 1)[-1]
        refs = [label, *(lab for lab, other in items if lab != label and name in other)][: 2 if brief else 4]
        explanation = _clip(body, rng.randint(5, 9) if brief else rng.randint(12, 24))
        findings.append(
            {"summary": f"{name} is one of the central items of this group.", "explanation": explanation, "refs": refs}
        )
    first = f"This group centres on {', '.join(names[:3])}."
    second = " " + _clip(items[0][1].split(": ", 1)[-1], rng.randint(12, 22)) if not brief else ""
    report = {
        "title": " and ".join(names[:2]) if len(names) < 3 else f"{names[0]}, {names[1]} and {names[2]}",
        "summary": _clip(first + second, limit),
        "findings": findings,
        "rating": min(10, 4 + len(items) // 4 + rng.randint(0, 2)),
    }
    if brief:
        thought = f"The report was cut off. This time a one-sentence summary and only {count} short findings."
    else:
        lines = [
            f"Let me look at the material: {len(items)} items. "
            f"I need a title, a summary, up to {asked} findings and a rating."
        ]
        lines += [f"{label}: {_phrase(item, rng.randint(5, 9))}." for label, item in items[:14]]
        lines.append(f"The central item seems to be {names[0]}; most of the other items connect to it.")
        lines += [f"Finding {i}: {f['summary']} Refs {', '.join(f['refs'])}." for i, f in enumerate(findings, start=1)]
        lines.append(f"Rating: about {report['rating']}, it matters for understanding the documents.")
        thought = "\n".join(lines)
    return request.answer(thought, report)


_ENTITY_LINE = re.compile(r"^(\d+)\. (.+?) \(([^()]*)\): ?(.*)$", re.MULTILINE)


def _letters(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.casefold()).removesuffix("s")


def _acronym(short: str, full: str) -> bool:
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z]+", full) if w.casefold() not in _STOP).casefold()
    bare = short.rstrip("s").casefold()
    return short.rstrip("s").isupper() and (initials == bare or f"({short.rstrip('s')})".casefold() in full.casefold())


def _content(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text) if len(w) > 3 and w.casefold() not in _STOP}


def _same(a: tuple[str, str], b: tuple[str, str]) -> bool:
    (name_a, text_a), (name_b, text_b) = a, b
    if _letters(name_a) == _letters(name_b) or _acronym(name_a, name_b) or _acronym(name_b, name_a):
        return True
    if bool(_TREATMENT.search(name_a.casefold())) != bool(_TREATMENT.search(name_b.casefold())):
        return False
    short, long = sorted((name_a.casefold().split(), name_b.casefold().split()), key=len)
    # NCCN Guidelines / NCCN Guidelines for Patients: the longer name goes on with a function word (or "alone")
    prefix = len(short) >= 2 and long[: len(short)] == short and long[len(short)] in {*_STOP, "alone"}
    # lymph nodes / nearby lymph nodes: one modifier that does not make a kind of its own
    suffix = len(long) == len(short) + 1 and long[1:] == short and long[0] in _LOOSE_MODIFIERS
    return (prefix or suffix) and bool(_content(text_a) & _content(text_b))


def _loose(name: str) -> bool:
    """A name that is another one with a loose modifier before it or ``alone`` after it (not the one to keep)."""
    words = name.casefold().split()
    return len(words) > 1 and (words[0] in _LOOSE_MODIFIERS or words[-1] == "alone")


def _merge(request: Request) -> str:
    found = _ENTITY_LINE.findall(request.first)
    entities = [(name, description) for _, name, _, description in found] or [("the entity", "")]
    rng = request.rng("merge")
    lines = [f"There are {len(entities)} candidates."]
    for number, (name, description) in enumerate(entities, start=1):
        lines.append(f'Entity {number} is "{name}", described as {_phrase(description or name, rng.randint(5, 10))}.')
    verdicts = []
    for other in entities[1:]:
        same = _same(entities[0], other)
        verdicts.append(same)
        why = "the same thing written another way" if same else "related, but not the same thing"
        lines.append(
            f'Is "{other[0]}" the same as "{entities[0][0]}"? Looking at the names and descriptions, it is {why}.'
        )
    merge = bool(verdicts) and all(verdicts)
    plain = [i for i, (n, _) in enumerate(entities) if not _loose(n)] or list(range(len(entities)))
    keep = max(plain, key=lambda i: (len(entities[i][0].split()), len(entities[i][0]))) + 1 if merge else 1
    lines.append(f"So {'merge, keeping entity ' + str(keep) if merge else 'do not merge'}.")
    name, said = entities[keep - 1]
    description = _clip(f"{name}: " + (said or "an entity of the documents"), rng.randint(14, 24))
    return request.answer("\n".join(lines), {"merge": merge, "keep": keep, "description": description})


_VERDICTS = {  # what the thinking calls each reason
    "One end is a pronoun or a fragment, not an entity.": "pronoun end",
    "One end is too generic to be a real entity here.": "generic end",
    "The description does not clearly state this link between them.": "not stated",
    "Both ends are real, but the label is rather vague.": "vague label",
    "Both ends are specific entities and the text states the link.": "solid",
}


def _verdict(source: str, label: str, target: str, description: str, rng: random.Random) -> tuple[float, str]:
    ends = (source.strip().casefold(), target.strip().casefold())
    said = description.casefold()
    if any(e in _PRONOUNS or len(e) < 3 for e in ends):
        return rng.uniform(0.05, 0.15), "One end is a pronoun or a fragment, not an entity."
    if any(e in _GENERIC or e.split()[-1] in _GENERIC for e in ends):
        return rng.uniform(0.35, 0.45), "One end is too generic to be a real entity here."
    if not any(e in said for e in ends):
        return rng.uniform(0.5, 0.6), "The description does not clearly state this link between them."
    if any(v in label.casefold() for v in _VAGUE):
        return rng.uniform(0.65, 0.8), "Both ends are real, but the label is rather vague."
    return rng.uniform(0.85, 0.97), "Both ends are specific entities and the text states the link."


def _reflect(request: Request) -> str:
    rng = request.rng("reflect")
    brief = request.again and _CUT_MARK in request.last
    lines = ["I need to judge each relation: are both ends real entities, and does the label make sense?"]
    scores = []
    for number, line in re.findall(r"^(\d+)\. (.*)$", request.first, re.MULTILINE):
        source, label, rest = [*line.split(" | ", 2), "", ""][:3]
        target, _, description = rest.partition(":")
        score, reason = _verdict(source, label, target, description, rng)
        if brief:
            reason = " ".join(reason.split()[: rng.randint(3, 5)]).rstrip(",") + "."
        else:
            lines.append(f"{number}: {source}, {target}: {_VERDICTS[reason]}, {score:.1f}.")
        scores.append({"id": int(number), "score": round(score, 2), "reason": reason})
    thought = "The reply was cut off; the same scores with much shorter reasons." if brief else "\n".join(lines)
    return request.answer(thought, {"scores": scores})


def _other(request: Request) -> str:
    return request.answer("The user asks a general question. A short direct answer is enough.", None)


# ---- the responder -------------------------------------------------------------------------------------------


class Request(ScriptedRequest):
    """A :class:`ScriptedRequest` with this server's draws, the last user message (a re-ask's error), and the
    reply's shape: the thinking, then the answer bare or fenced."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        super().__init__(body)
        users = [str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user"]
        self.last = users[-1] if users else ""

    def rng(self, purpose: str) -> random.Random:
        return _rng(self.seed, purpose)

    def answer(self, thought: str, value: object) -> str:
        """``<think>`` with ``thought``, then ``value`` as JSON: fenced and indented in three requests in ten
        (fewer on a re-ask), bare otherwise; plain text when ``value`` is None."""
        if value is None:
            body = "Here is a short answer based on what you sent."
        elif self.rng("fence").random() < (0.15 if self.again else 0.3):
            body = "```json\n" + json.dumps(value, ensure_ascii=False, indent=2) + "\n```"
        else:
            body = json.dumps(value, ensure_ascii=False)
        thought = _BRACKETS.sub("", thought)  # the model plans in words: no bracket its answer could be taken from
        return f"<think>\n{thought}\n</think>\n\n{body.replace(_QUOTE, chr(34))}"


_ANSWERS: dict[str, Callable[[Request], str]] = {
    "extract": _extract,
    "glean": _glean,
    "summarize": _summary,
    "report": _report,
    "merge": _merge,
    "reflect": _reflect,
}


def heldout5_server(body: dict[str, Any]) -> str:
    """Answers one chat request as the reasoning model of the module docstring, thinking included and whole:
    the transport (``FakeOpenAIServer(cut_at_max_tokens=True)``) cuts it at ``max_tokens`` and says ``length``."""
    request = Request(body)
    return _ANSWERS.get(prompt_kind(request.system), _other)(request)
