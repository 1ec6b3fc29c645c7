"""The judge set-up every report names: which models judged, with which prompts, at which temperature.

An unnamed judge is the complaint users have about published LLM-judged numbers; here every report
and every stored run carries :meth:`JudgeSetup.describe`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, TypeVar

from pydantic import BaseModel

from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry, settings_of
from kgrag.evaluation.metrics.base import Measured, Sample
from kgrag.models.llm import LLMClient


class JudgeDisclosure(TypedDict):
    """The judge set-up a run stores and every report prints."""

    models: list[str]
    prompts: dict[str, str]
    temperature: float


@dataclass(frozen=True)
class JudgeSetup:
    """The judge clients (one per panel model; the first judges alone where a judge uses one), the
    sampling temperature, the seed that makes each run's calls distinct requests, and each judge's own
    validated ``[evaluation.judges.<name>]`` table (read with :meth:`settings_for`)."""

    clients: tuple[LLMClient, ...]
    temperature: float = 0.0
    seed: int = 0
    settings: Mapping[str, BaseModel] = field(default_factory=dict)

    def settings_for(self, judge: str, model: type[S]) -> S:
        """``judge``'s settings as ``model`` (its table, else ``model``'s defaults)."""
        return settings_of(self.settings, judge, model)

    @property
    def primary(self) -> LLMClient:
        return self.clients[0]

    def with_seed(self, seed: int) -> JudgeSetup:
        return JudgeSetup(self.clients, self.temperature, seed, self.settings)

    def describe(self, prompts: Sequence[str]) -> JudgeDisclosure:
        """Models, prompt names with versions, temperature: what a reader needs to trust or redo it."""
        client = self.primary
        versions = {name: client.prompt(name).version for name in prompts}
        return {
            "models": [c.settings.model for c in self.clients],
            "prompts": versions,
            "temperature": self.temperature,
        }


class AnswerJudge(Protocol):
    """Scores one answer; returns named scores on the judge's own scale (``judge.<name>...``)."""

    name: str
    paper: str
    prompts: tuple[str, ...]
    scale: tuple[float, float]

    def score(self, sample: Sample, setup: JudgeSetup) -> dict[str, Measured]: ...


S = TypeVar("S", bound=BaseModel)
JUDGES: RegistryKind[Any] = RegistryKind("judge")
"""Judge classes (or factories) called with no arguments."""


def judge_registry() -> Registry[Any]:
    """A fresh registry of judges: built-ins plus plug-ins from the ``kgrag.judges`` group."""
    return JUDGES.new()
