"""What metrics and judges need of the client they ask: one definition that both the workspace's
:class:`~kgrag.models.llm.LLMClient` and rescoring's replaying client
(:class:`kgrag.evaluation.rescore.ReplayClient`) are checked against where the judge code takes them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from kgrag.core.llm_types import StructuredResult
    from kgrag.models.llm.client import ClientSettings
    from kgrag.prompts.loader import Prompt

M = TypeVar("M", bound=BaseModel)


class JudgeClient(Protocol):
    """Structured calls, whether a model is there, and, for the record each judge call leaves, the model's
    settings (its name) and the prompts' versions."""

    settings: ClientSettings

    @property
    def available(self) -> bool: ...

    def prompt(self, name: str) -> Prompt: ...

    def structured(
        self,
        prompt: str | Prompt,
        variables: Mapping[str, object],
        schema_model: type[M] | None = None,
        *,
        stage: str,
        **params: Any,
    ) -> StructuredResult[M]: ...
