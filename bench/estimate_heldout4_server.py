"""A fourth held-out reply distribution for the estimate's harness: a verbose hosted model under a tight cap.

Written without reading the estimate's code or its results, from kgrag's prompts, reply schemas, the
scripted fake server and the other scripted servers (to differ from them) only. It answers the way a
capable hosted chat model (GPT-4 class, behind an API that honours ``max_tokens``) does when it writes
rich replies that the request's output cap often cannot hold:

* extraction lists the unit's distinct named things (capitalised runs and acronyms) and concepts
  (lower-case terms whose head is a noun of the domain, such as ``skin cancer`` or ``radiation therapy``)
  in reading order, keeping a share of them drawn per unit (55–90%), with no ceiling: a unit with more
  distinct things gets a longer list; each entity gets two or three sentences (a sentence placing it, then
  the text's first and, for most, a further sentence that mentions it); relations link entities named in
  one sentence, 0.6–1.0 of them per entity (drawn per unit), each described in one or two sentences, with
  a verb-phrase label, one to three keywords and a strength; replies are bare compact JSON;
* so a dense unit's first reply runs well past twice its tokens and is cut at ``max_tokens`` (the check
  serves it with ``FakeOpenAIServer(cut_at_max_tokens=True)``: finish ``length``); the re-ask after a cut
  answers briefly (one sentence an entity, the first 12–18 words of its sentence, a quarter fewer relations
  described in under fifteen words), which a very dense unit can still overrun; a half of a unit is asked
  afresh and gets the full treatment of what it holds, so it fits more often;
* gleaning adds two to five further entities (with relations to them) on dense text (180 words or more
  with three or more candidates not found), described as richly as the first pass; empty lists otherwise;
* summaries are concise: each distinct note kept to 40–60% of its words (one ratio a request), within the
  word limit; community reports are long: a specific title, a three-sentence summary, five to eight
  findings (the asked number holds seven times in ten) of two to four sentences each, with refs and a
  rating; the re-ask after a cut report gives three or four findings of one or two sentences;
* merge confirmations are JSON and conservative: yes only for names equal up to case, punctuation,
  spacing and a final plural ``s``, keeping the first entity; no otherwise (an abbreviation included), with a
  one-sentence description;
* reflection scores every relation with a reason of six to ten words: low for a pronoun, article or
  generic end, middling for a vague label, high for a specific one.

Deterministic: every draw is seeded by a hash of the request's text (its messages and temperature; the
unit's text for what is extracted from it), never by arrival order.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from scripted_requests import ScriptedRequest, prompt_kind  # a sibling module of this script

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|for|and|de)?\s*[A-Z][\w'’-]*)*")
_HEADS = (
    r"cancers?|carcinomas?|cells?|tumou?rs?|diseases?|therapy|therapies|treatments?|surgery|surgeries|tests?|"
    r"scans?|drugs?|medicines?|trials?|glands?|nodes?|tissues?|organs?|layers?|rays?|systems?|effects?|"
    r"risks?|[a-z]+(?:tion|sis|oma|itis|ectomy|ogy|ment|ance|ence)"
)
_CONCEPT = re.compile(rf"\b(?:[a-z][a-z-]{{2,}}\s+){{1,2}}(?:{_HEADS})\b")
_STOP = frozenset(
    "a an the this that these those it its they them their there here what how why when where who which "
    "if then than so as and or but not no is are was were be been being do does did has have had can could "
    "may might must should will would of in on at by for with from to into about after before over under "
    "during while also only very more most less many much some any all each every other such you your we our "
    "he she his her one two three most can't don't known called used uses using get gets make makes find "
    "keep reading read more out up other another both either first second new main".split()
)
_VERBS = frozenset(
    "use form fight remove restore help treat cause spread grow occur happen test sample see ask call need "
    "become becoming include including whether same best higher lower suitable like take give pay key "
    "particular important".split()
)
_CUES = (
    ("organization", ("nccn", "society", "institute", "network", "association", "fda", "hospital", "center")),
    ("location", ("united states", "america", "europe", "county", "city")),
    ("person", ("doctor", "patient", "surgeon", "oncologist", "nurse", "dr")),
    ("product", ("drug", "medicine", "cream", "vaccine", "mab", "nib", "app")),
    ("technology", ("therapy", "surgery", "scan", "test", "biopsy", "treatment", "imaging", "radiation")),
    ("document", ("guidelines", "guide", "book", "org")),
)
_PRONOUNS = frozenset({"it", "they", "this", "that", "the", "a", "an", "he", "she", "thing", "things", "people"})
_VAGUE = ("related to", "associated with", "linked to", "connected to", "discussed with")


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("\x1e".join(parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[8:16], "little"))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _clip(text: str, words: int) -> str:
    cut = " ".join(text.split()[: max(1, words)]).rstrip(",;:–—- ")
    return cut if cut.endswith((".", "!", "?")) else cut + "."


def _article(word: str) -> str:
    return "an" if word[:1].casefold() in "aeiou" else "a"


# ---- what the model notices in a unit ------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.split()) >= 3]


def _trim(phrase: str) -> str:
    words = phrase.split()
    while words and words[0].casefold() in _STOP:
        words = words[1:]
    while words and words[-1].casefold() in _STOP:
        words = words[:-1]
    return " ".join(words)


def _things(sentences: Sequence[str]) -> list[str]:
    """Named things and concepts in reading order, each once (a concept inside a name, or the reverse, once).

    A lone capitalised word counts when it is an acronym or the unit also writes it capitalised after a
    lower-case word (a name, not a heading's or a sentence's first word); a concept's words before its head
    are neither function words nor common verbs."""
    text = " ".join(sentences)
    inner = {m.group(0) for m in re.finditer(r"(?<=[a-z,] )[A-Z][\w'’-]+", text)}
    found: dict[str, str] = {}
    for sentence in sentences:
        spans: list[tuple[int, str]] = []
        for match in _NAME.finditer(sentence):
            name = re.sub(r"\b(\w+) \1\b", r"\1", _trim(match.group(0)))  # a heading run into its text
            if len(name) >= 3 and (" " in name or name.isupper() or name in inner):
                spans.append((match.start(), name))
        for match in _CONCEPT.finditer(sentence):
            words = match.group(0).split()
            while words and (words[0] in _STOP or words[0] in _VERBS):
                words = words[1:]
            if len(words) >= 2 and not any(_not_modifier(w) for w in words[:-1]):
                spans.append((match.start(), " ".join(words)))
        for _, thing in sorted(spans):
            key = thing.casefold()
            if not any(key in k or k in key for k in found):
                found[key] = thing
    return list(found.values())


def _not_modifier(word: str) -> bool:
    """A function word, a common verb or a verb's third person (``measures cells``), never before a head."""
    return word in _STOP or word in _VERBS or (word.endswith("s") and not word.endswith(("ss", "us", "is")))


def _said_in(name: str, sentences: Sequence[str]) -> list[str]:
    return [s for s in sentences if name.casefold() in s.casefold()]


def _type(name: str, types: Sequence[str]) -> str:
    folded = name.casefold()
    guess = next((kind for kind, cues in _CUES if any(re.search(rf"{c}\b", folded) for c in cues)), "concept")
    if guess == "concept" and name.isupper() and len(name) <= 6:
        guess = "organization"
    if not types or guess in types:
        return guess
    return "concept" if "concept" in types else types[0]


# ---- extraction ------------------------------------------------------------------------------------


def _entity(
    name: str, sentences: Sequence[str], types: Sequence[str], brief: bool, rng: random.Random
) -> dict[str, str]:
    kind = _type(name, types)
    said = _said_in(name, sentences) or [name]
    if brief:
        return {"name": name, "type": kind, "description": _clip(said[0], rng.randint(12, 18))}
    parts = [f"{name} is {_article(kind)} {kind} that the text discusses.", _clip(said[0], rng.randint(12, 24))]
    if len(said) > 1 and rng.random() < 0.85:  # a thing the text says more about gets a third sentence
        parts.append(_clip(said[1], rng.randint(10, 20)))
    return {"name": name, "type": kind, "description": " ".join(parts)}


def _label(sentence: str, source: str, target: str) -> str:
    folded = sentence.casefold()
    start = folded.find(source.casefold()) + len(source)
    end = folded.find(target.casefold(), start)
    words = [w for w in sentence[start:end].strip(" ,;:()").split() if w.casefold() not in {"a", "an", "the"}]
    if 1 <= len(words) <= 4 and words[0].casefold() not in _STOP and words[0].casefold().endswith(("s", "ed")):
        return " ".join(words).casefold()
    return "is part of" if " of " in f" {sentence[start:end]} " else "is associated with"


def _relations(sentences: Sequence[str], names: Sequence[str], brief: bool, rng: random.Random) -> list[dict[str, Any]]:
    rate = rng.uniform(0.6, 1.0) * (0.75 if brief else 1.0)
    limit = max(1, round(rate * len(names)))
    out: list[dict[str, Any]] = []
    seen: set[frozenset[str]] = set()
    for index, sentence in enumerate(sentences):
        here = sorted((n for n in names if n.casefold() in sentence.casefold()), key=sentence.casefold().find)
        for source, target in zip(here, here[1:] + here[:1], strict=True):
            key = frozenset((source.casefold(), target.casefold()))
            if len(key) < 2 or key in seen or len(out) >= limit:
                continue
            seen.add(key)
            text = _clip(sentence, rng.randint(8, 14) if brief else rng.randint(12, 24))
            if not brief and rng.random() < 0.5 and index + 1 < len(sentences):
                text += " " + _clip(sentences[index + 1], rng.randint(8, 16))
            words = [w.casefold() for w in (*target.split()[-1:], *source.split()[-1:]) if w.casefold() not in _STOP]
            out.append({"source": source, "target": target, "label": _label(sentence, source, target),
                        "description": text, "keywords": list(dict.fromkeys(words))[: rng.randint(1, 3)],
                        "strength": rng.randint(5, 9)})  # fmt: skip
    return out


def _listed(text: str) -> tuple[list[str], list[str]]:
    """The things the first pass lists (a per-unit share of them, in reading order) and those it leaves out."""
    rng = _rng(text, "coverage")
    share = rng.uniform(0.55, 0.9)
    things = _things(_sentences(text))
    kept = [t for t in things if rng.random() < share]
    return kept, [t for t in things if t not in kept]


def _extract(request: Request) -> str:
    text = request.first.removeprefix("Text:\n")
    sentences = _sentences(text)
    names, _ = _listed(text)
    brief = request.again
    rng = _rng(text, "brief" if brief else "full")
    entities = [_entity(n, sentences, request.types, brief, _rng(text, n, str(brief))) for n in names]
    return _json({"entities": entities, "relations": _relations(sentences, names, brief, rng)})


def _glean(request: Request) -> str:
    found_line, _, text = request.first.partition("\n")
    text = text.removeprefix("Text:\n")
    known = {n.strip().casefold() for n in found_line.removeprefix("Found:").split(";") if n.strip()}
    sentences = _sentences(text)
    _, left = _listed(text)
    fresh = [t for t in dict.fromkeys([*left, *_things(sentences)]) if t.casefold() not in known]
    if len(fresh) < 3 or len(text.split()) < 180:
        return _json({"entities": [], "relations": []})
    rng = request.rng("glean")
    names = fresh[: rng.randint(2, 5)]
    entities = [_entity(n, sentences, request.types, False, _rng(text, n, "glean")) for n in names]
    ends = [*names, *(t for t in _things(sentences) if t.casefold() in known)]
    relations = [r for r in _relations(sentences, ends, False, rng) if r["source"] in names or r["target"] in names]
    return _json({"entities": entities, "relations": relations[: len(names) + 1]})


# ---- the other prompts -------------------------------------------------------------------------------


def _summary(request: Request) -> str:
    head, _, notes = request.first.partition("\nNotes:\n")
    name = head.partition(":")[2].strip()
    limit = int(m.group(1)) if (m := re.search(r"at most (\d+) words", request.system)) else 100
    ratio = request.rng("summary").uniform(0.4, 0.6)
    distinct = {n.removeprefix("- ").strip().casefold(): n.removeprefix("- ").strip() for n in notes.splitlines()}
    kept = [_clip(note, max(3, round(len(note.split()) * ratio))) for note in distinct.values() if note]
    text = " ".join(kept) or f"{name} is mentioned in the documents."
    if name and name.casefold() not in text.casefold()[:80]:
        text = f"{name}: {text}"
    return _clip(text, min(limit, len(text.split())))


_MATERIAL = re.compile(r"^\[([ERC]\d+)\] (.+)$", re.MULTILINE)


def _head(item: str) -> str:
    return re.split(r" \(| — |: ", item, maxsplit=1)[0].strip()


def _findings(items: Sequence[tuple[str, str]], count: int, brief: bool, rng: random.Random) -> list[dict[str, Any]]:
    findings = []
    for index in range(count):
        label, item = items[index % len(items)]
        name, body = _head(item), item.split(": ", 1)[-1]
        refs = [label, *(lab for lab, other in items if lab != label and name in other)][:4]
        sentences = [_clip(body, rng.randint(12, 22))]
        sentences.append(f"{name} is connected to {len(refs) - 1} other items of this group, which shows its weight.")
        sentences += [_clip(items[(index + k) % len(items)][1].split(": ", 1)[-1], rng.randint(10, 20)) for k in (1, 2)]
        sentences = sentences[: rng.randint(1, 2) if brief else rng.randint(2, 4)]
        findings.append({"summary": f"{name} is central to what this group covers.",
                         "explanation": " ".join(sentences), "refs": refs})  # fmt: skip
    return findings


def _report(request: Request) -> str:
    items = _MATERIAL.findall(request.first) or [("E1", "The group: the material is empty.")]
    rng = request.rng("report")
    asked = int(m.group(1)) if (m := re.search(r"findings: up to (\d+)", request.system)) else 5
    limit = int(m.group(1)) if (m := re.search(r"at most (\d+) words", request.system)) else 150
    names = list(dict.fromkeys(_head(t) for label, t in items if label[0] != "R")) or [_head(items[0][1])]
    title = " and ".join(names[:2]) + (f": {names[2]} and related items" if len(names) > 2 else "")
    summary = (
        f"This group brings together {', '.join(names[:5])}. "
        + " ".join(_clip(t.split(": ", 1)[-1], rng.randint(10, 18)) for _, t in items[:2])
        + f" Together these {len(items)} items describe how {names[0]} relates to the rest of the documents."
    )
    if request.again:
        count = rng.randint(3, 4)
    else:
        count = rng.randint(5, 8)
        count = min(count, asked) if rng.random() < 0.7 else count
    report = {
        "title": title,
        "summary": _clip(summary, limit),
        "findings": _findings(items, count, request.again, rng),
        "rating": min(10, 5 + len(items) // 6 + rng.randint(0, 2)),
    }
    return _json(report)


def _same(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.casefold()).removesuffix("s")


def _merge(request: Request) -> str:
    names = re.findall(r"^\d+\. (.+?) \(", request.first, re.MULTILINE) or ["the entity"]
    if len({_same(n) for n in names}) == 1:
        reply = {"merge": True, "keep": 1, "description": f"{names[0]} is written in {len(names)} ways in the text."}
    else:
        reply = {"merge": False, "keep": 1, "description": f"{names[0]} and {names[-1]} are distinct entities."}
    return _json(reply)


def _reflect(request: Request) -> str:
    rng = request.rng("reflect")
    scores = []
    for number, line in re.findall(r"^(\d+)\. (.*)$", request.first, re.MULTILINE):
        source, label, target = [*line.split(" | ", 2), "", ""][:3]
        ends = (source.strip().casefold(), target.split(":", 1)[0].strip().casefold())
        if any(e in _PRONOUNS or len(e) < 3 for e in ends):
            score, reason = rng.uniform(0.0, 0.2), "One end is a pronoun or a generic word."
        elif any(v in label.casefold() for v in _VAGUE):
            score, reason = rng.uniform(0.45, 0.65), "Plausible, but the label is too vague."
        else:
            score, reason = rng.uniform(0.75, 0.95), "Specific entities with a clearly stated link."
        scores.append({"id": int(number), "score": round(score, 2), "reason": reason})
    return _json({"scores": scores})


def _other(request: Request) -> str:
    return "Certainly. Here is a short answer based on what you sent."


# ---- the responder ---------------------------------------------------------------------------------


class Request(ScriptedRequest):
    """A :class:`ScriptedRequest` with this server's draws."""

    def rng(self, purpose: str) -> random.Random:
        return _rng(self.seed, purpose)


_ANSWERS: dict[str, Callable[[Request], str]] = {
    "extract": _extract,
    "glean": _glean,
    "summarize": _summary,
    "report": _report,
    "merge": _merge,
    "reflect": _reflect,
}


def heldout4_server(body: dict[str, Any]) -> str:
    """Answers one chat request as the verbose hosted model of the module docstring, whole: the transport
    (``FakeOpenAIServer(cut_at_max_tokens=True)``) cuts it at ``max_tokens`` and says ``length``."""
    request = Request(body)
    return _ANSWERS.get(prompt_kind(request.system), _other)(request)
