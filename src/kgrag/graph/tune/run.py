"""One tuning run: sample, propose types/domain/language (model or NER), build the worked examples, write
the overrides and set the types and language in kgrag.toml.

Two prompts are tuned: ``extract_graph`` (a domain note, and a worked example drawn from the corpus) and
``community_report`` (the same note, the example's items as its material, and ``Write in $language``).
The shipped prompt is always the base, so running the tuner again rewrites from the same starting point
with a bumped version.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from kgrag.config import GraphConfig
from kgrag.core.errors import KgragError
from kgrag.graph.tune.ab import ABResult, one_unit_ab
from kgrag.graph.tune.config_edit import set_section_values
from kgrag.graph.tune.example import ExampleItems
from kgrag.graph.tune.language import LanguageGuess, detect_language
from kgrag.graph.tune.ner import NerProfile, profile_texts
from kgrag.graph.tune.propose import LLMProposal, llm_example, propose
from kgrag.graph.tune.sample import Passage, SourceText, stratified_sample
from kgrag.models.llm import LLMClient
from kgrag.prompts.loader import load_prompt
from kgrag.prompts.overrides import Override, write_overrides

TUNED_PROMPTS = ("extract_graph", "community_report")
REPORT_LANGUAGE = "Write in the material's language."
REPORT_NOTE = "entities and relations of one community"
DEFAULT_LANGUAGE = "English"
DOMAIN_HEADS = 6
MIN_NER_TYPES = 3  # fewer NER-proposed types (concept included) than this: keep the shipped ones


@dataclass(frozen=True)
class TuneOptions:
    llm: Literal["auto", "none"] = "auto"
    sample_tokens: int = 6000
    seed: int = 0
    max_types: int = 10
    force: bool = False
    example: Literal["corpus", "shipped"] = "corpus"  # shipped: keep the invented examples, tune the rest


@dataclass
class TuneResult:
    """What the run saw, chose and wrote (the CLI prints it)."""

    documents: int
    sample: list[Passage]
    language_guess: LanguageGuess
    ner: NerProfile | None = None
    llm: LLMProposal | None = None
    types: list[str] = field(default_factory=list)
    domain: str = ""
    language: str = DEFAULT_LANGUAGE
    example_origin: str = ""
    written: list[tuple[Path, str]] = field(default_factory=list)
    config_file: Path | None = None
    notes: list[str] = field(default_factory=list)
    ab: ABResult | None = None  # the one-unit A/B against the shipped prompts (None: no model to run it)

    @property
    def kept(self) -> bool:
        """The tuned prompts were written (no A/B ran, or they passed it)."""
        return self.ab is None or self.ab.kept


def _template_safe(text: str) -> str:
    """Corpus or model text put into a template: ``$`` doubled so it is never read as a placeholder."""
    return text.replace("$", "$$")


def _ner_domain(profile: NerProfile) -> str:
    heads = [head for head, _ in profile.heads.most_common(DOMAIN_HEADS)]
    return f"they often mention {', '.join(heads)}" if heads else ""


def build_overrides(example: ExampleItems | None, domain: str) -> list[Override]:
    """The tuned ``extract_graph`` and ``community_report``, from the shipped prompts (with their invented
    examples when ``example`` is None)."""
    note = f"\nAbout these documents: {_template_safe(domain.rstrip('.'))}." if domain else ""
    extract = load_prompt("extract_graph")
    report = load_prompt("community_report")
    if REPORT_LANGUAGE in report.system:
        report_system = report.system.replace(REPORT_LANGUAGE, "Write in $language.")
    else:
        report_system = f"{report.system}\nWrite in $language."
    if example is None:
        return [
            Override(extract, extract.system + note, extract.example_variables, extract.example_reply, True),
            Override(report, report_system + note, report.example_variables, report.example_reply, True),
        ]
    return [
        Override(extract, extract.system + note, {"text": example.text}, example.extraction_reply()),
        Override(
            report,
            report_system + note,
            {"level_note": REPORT_NOTE, "material": example.report_material()},
            example.report_reply(),
        ),
    ]


class Tuner:
    """Runs :meth:`tune` with a workspace's parts: the LLM client (None: NER only) and a spaCy loader."""

    def __init__(
        self,
        client: LLMClient | None,
        load_nlp: Callable[[], Any],
        count: Callable[[str], int],
        ab_client: LLMClient | None = None,
    ) -> None:
        self.client = client
        self.load_nlp = load_nlp
        self.count = count
        self.ab_client = ab_client  # runs the one-unit A/B (None: the prompts are written unchecked)

    def tune(
        self, sources: Sequence[SourceText], options: TuneOptions, prompts_dir: Path, config_file: Path
    ) -> TuneResult:
        if not sources:
            raise KgragError("nothing to sample: pass document paths, or index documents into the workspace first")
        sample = stratified_sample(sources, options.sample_tokens, self.count, seed=options.seed)
        result = TuneResult(len(sources), sample, detect_language(p.text for p in sample))
        result.ner = self._ner(sample, required=options.llm == "none" or self.client is None, notes=result.notes)
        if options.llm == "auto" and self.client is not None:
            result.llm = propose(self.client, sample, options.max_types)
            if result.llm is None:
                result.notes.append("the model's proposal was unusable; types come from NER")
        self._choose(result, options)
        example = self._example(result, sample) if options.example == "corpus" else None
        if example is None:
            why = "--example shipped" if options.example == "shipped" else "no corpus example could be made"
            result.example_origin = f"the shipped prompt's invented example ({why})"
        header = self._header(result, options)
        overrides = build_overrides(example, result.domain)
        if not self._passes_ab(result, overrides, header):
            return result  # nothing written: the shipped prompts stay in use
        result.written = write_overrides(prompts_dir, overrides, header, force=options.force)
        note = f"set by kgrag prompts tune {datetime.now(UTC):%Y-%m-%d}"
        set_section_values(config_file, "graph", {"entity_types": result.types, "language": result.language}, note)
        result.config_file = config_file
        return result

    def _passes_ab(self, result: TuneResult, overrides: list[Override], header: list[str]) -> bool:
        """Run the one-unit A/B (:mod:`kgrag.graph.tune.ab`) on the longest sampled passage; True when the
        tuned prompts may be written."""
        if self.ab_client is None:
            result.notes.append(
                "no A/B against the shipped prompts: it needs the model (--llm auto with llm.provider set); "
                "the tuned prompts are written unchecked"
            )
            return True
        passage = max(result.sample, key=lambda p: p.tokens)
        with tempfile.TemporaryDirectory(prefix="kgrag-tune-ab-") as scratch:
            write_overrides(Path(scratch), overrides, header, force=True)
            result.ab = one_unit_ab(
                self.ab_client, self.count, passage.text, Path(scratch), result.types, result.language
            )
        result.notes.append(result.ab.line())
        return result.ab.kept

    def _ner(self, sample: Sequence[Passage], *, required: bool, notes: list[str]) -> NerProfile | None:
        try:
            nlp = self.load_nlp()
        except KgragError as exc:
            if required:
                raise
            notes.append(f"no NER profile: {exc}")
            return None
        return profile_texts(nlp, [p.text for p in sample])

    def _choose(self, result: TuneResult, options: TuneOptions) -> None:
        if result.llm is not None:
            result.types, result.domain = result.llm.types, result.llm.domain
        elif result.ner is not None:
            result.types, result.domain = result.ner.types(options.max_types), _ner_domain(result.ner)
            if len(result.types) < MIN_NER_TYPES:  # a small corpus: too few names to tell its kinds apart
                result.notes.append(f"spaCy found too few named things to propose types ({', '.join(result.types)})"
                                    "; the shipped entity types are kept")  # fmt: skip
                result.types = list(GraphConfig().entity_types)
        else:
            raise KgragError(
                "no entity types could be proposed: the model gave none and spaCy could not load; install the "
                "spaCy model (graph.extractors.nlp.spacy_model) or tune with a model (--llm auto)"
            )
        detected = result.language_guess.language
        result.language = detected or (result.llm.language if result.llm and result.llm.language else DEFAULT_LANGUAGE)

    def _no_example(self, result: TuneResult) -> str:
        """What was missing for a corpus example, and what was done instead."""
        sampled = sum(p.tokens for p in result.sample)
        whole = len({p.source for p in result.sample}) == result.documents
        more = "raise --sample-tokens to read more of the corpus, or " if not whole else ""
        return (
            f"no sampled sentence names two or more things spaCy recognises (sampled {sampled} tokens"
            f"{', the whole corpus' if whole else ''}); the shipped invented example is kept ({more}tune with a "
            "model, --llm auto, for an example from your documents)"
        )

    def _example(self, result: TuneResult, sample: Sequence[Passage]) -> ExampleItems | None:
        if self.client is not None:  # the model writes the example even when its proposal was unusable
            made = llm_example(self.client, sample, result.types, result.language)
            if made is not None and made.grounded():
                result.example_origin = "the model's extraction of a sampled passage (names checked against it)"
                return made
            result.notes.append("the model gave no grounded example; the example comes from NER")
        made = result.ner.example(result.types) if result.ner is not None else None
        if made is not None:
            result.example_origin = "a sampled sentence and the NER spans in it"
            return made
        result.notes.append(self._no_example(result))
        return None

    def _header(self, result: TuneResult, options: TuneOptions) -> list[str]:
        model = self.client.settings.model if self.client is not None else None
        return [
            f"command: kgrag prompts tune --llm {options.llm} --sample-tokens {options.sample_tokens} "
            f"--seed {options.seed} --max-types {options.max_types}",
            f"sample: {len(result.sample)} passages, {sum(p.tokens for p in result.sample)} tokens, "
            f"from {len({p.source for p in result.sample})} of {result.documents} documents",
            f"model: {model or 'none'}; types proposed by: "
            f"{'the model' if result.llm else 'spaCy NER labels and noun-phrase heads'}",
            f"example: {result.example_origin}",
            f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            "entity types and language live in kgrag.toml [graph] (entity_types, language): "
            f"{', '.join(result.types)}; {result.language}",
            "Review and edit freely. Running the tuner again replaces this file (version +1); delete the first",
            "line to keep your edits from being replaced.",
        ]
