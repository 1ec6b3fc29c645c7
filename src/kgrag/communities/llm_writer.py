"""LLM community reports: one structured call per community (``community_report`` prompt), many at
once through the client's concurrency limit, booked under ``index.community-reports``.

A reply that still fails validation after the client's one re-ask, or an estimate run (which sends
nothing), gets the extractive report instead, marked ``fallback`` so it is visible and can be redone.
Citations come back as the material's labels (E3, R7, C2) and are mapped to ids; labels the material
did not contain are dropped rather than trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kgrag.communities.extractive import ExtractiveWriter
from kgrag.communities.material import Job, Material, build_material, chunk_provenance, merged_provenance
from kgrag.communities.schemas import CommunityReportReply
from kgrag.config import CommunitiesConfig
from kgrag.core.community_records import CommunityReport, Finding
from kgrag.models.llm import LLMClient

REPORT_PROMPT = "community_report"
SUMMARY_WORDS = 120


def to_report(job: Job, material: Material, reply: CommunityReportReply, findings: int) -> CommunityReport:
    """The stored report of a validated reply, citations resolved to ids."""
    resolved = tuple(
        Finding(
            f.summary.strip(),
            f.explanation.strip(),
            tuple(material.labels[ref.strip("[] ")] for ref in f.refs if ref.strip("[] ") in material.labels),
        )
        for f in reply.findings[:findings]
    )
    provenance = merged_provenance(job.children) if job.children else chunk_provenance(job.entities)
    return CommunityReport(
        job.community.id,
        job.level,
        reply.title.strip(),
        reply.summary.strip(),
        resolved,
        round(reply.rating, 1),
        "llm",
        provenance,
    )


def report_variables(material: Material, config: CommunitiesConfig, language: str) -> dict[str, object]:
    """The ``community_report`` prompt's variables for one community's ``material``."""
    return {
        "level_note": material.note,
        "material": material.text,
        "findings": config.report_findings,
        "max_words": SUMMARY_WORDS,
        "language": language,
    }


class LLMWriter:
    """Writes reports with ``client``; the extractive writer covers items whose reply failed."""

    method = "llm"
    redoes_fallbacks = True  # reports that fell back in an earlier run are written again

    def __init__(
        self,
        client: LLMClient,
        config: CommunitiesConfig,
        fallback: ExtractiveWriter,
        stage: str,
        language: str = "English",
    ) -> None:
        self.client = client
        self.language = language  # graph.language, for prompts that say which language to write in
        self.config = config
        self.fallback = fallback
        self.stage = stage
        self.failures = 0

    def checkpoint(self) -> None:
        """A level is written: the next one is built from its reports (a batch round must end here)."""
        self.client.checkpoint()

    def write(self, jobs: Sequence[Job]) -> list[CommunityReport]:
        materials = [build_material(job, self.config.report_input_tokens, self.client.count_tokens) for job in jobs]
        variables = [report_variables(m, self.config, self.language) for m in materials]
        results = self.client.map_structured(
            REPORT_PROMPT, variables, CommunityReportReply, stage=self.stage, max_tokens=self.config.report_max_tokens
        )
        reports = []
        for job, material, result in zip(jobs, materials, results, strict=True):
            if result.ok and result.value is not None:
                reports.append(to_report(job, material, result.value, self.config.report_findings))
            else:
                self.failures += 0 if self.client.estimating else 1
                reports.append(replace(self.fallback.one(job), method="fallback"))
        return reports
