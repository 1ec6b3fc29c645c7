"""Does this model need worked examples? One extraction call on a fixed text with the schema-only prompt.

Worked examples are what make a sub-1B model copy the reply's shape, and they cost tokens on every call
(about 180 per extraction call, 90 per community report, 140 per global map call). A model that answers
the schema-only prompt with a valid reply whose entities are all copied from the text does not need
them, so its prompts go compact; a model that fails (invalid JSON, the schema echoed back, invented or
missing names) keeps them. The verdict is kept in the server profile (``ServerProfile.examples``), so it
costs one call per server and model (a few more for a model whose replies do not validate).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgrag.core.errors import KgragError
from kgrag.core.llm_types import StructuredResult

if TYPE_CHECKING:
    from kgrag.models.llm.client import LLMClient

PROBE_PROMPT = "extract_graph"
PROBE_STAGE = "probe.examples"
PROBE_TEXT = (
    "Marta Lindqvist founded Coldbay Analytics in Tromsø in 2019. Coldbay Analytics sells sea-ice forecasts "
    "to the Norwegian Coast Guard, and Lindqvist still leads its forecasting team."
)
PROBE_NAMES = ("marta lindqvist", "coldbay analytics", "tromsø", "norwegian coast guard")
MIN_NAMES_FOUND = 3
PROBE_TYPES = "person, organization, location, concept"
PROBE_TRIES = 3


def _entities(value: Any) -> list[Any]:
    data = value.model_dump() if hasattr(value, "model_dump") else value
    entities = data.get("entities") if isinstance(data, dict) else None
    return entities if isinstance(entities, list) else []


def follows_schema_alone(value: Any) -> bool:
    """True when a probe reply names only things the probe text holds, and most of its names."""
    names = [str(e.get("name", "")).casefold().strip() for e in _entities(value) if isinstance(e, dict)]
    text = PROBE_TEXT.casefold()
    if not names or any(not name or name not in text for name in names):
        return False
    return sum(any(expected in name for name in names) for expected in PROBE_NAMES) >= MIN_NAMES_FOUND


def needs_examples(client: LLMClient) -> bool | None:
    """Send the probe with examples off; False (compact prompts) when the reply follows the schema alone,
    True when it does not, None when the call could not be made (undecided: examples stay, probe again).

    A reply that could not be validated even after its re-ask is asked again, up to :data:`PROBE_TRIES`
    times, so one garbled reply from a flaky endpoint does not decide for good; a valid reply with invented
    names decides at once (a model does that again)."""
    shown = client.settings.examples
    client.use_examples(False)
    try:
        variables = {"text": PROBE_TEXT, "entity_types": PROBE_TYPES, "language": "English"}
        for _ in range(PROBE_TRIES):
            result: StructuredResult[Any] = client.structured(PROBE_PROMPT, variables, stage=PROBE_STAGE)
            if result.value is not None:
                return not follows_schema_alone(result.value)
    except KgragError:
        return None
    finally:
        client.use_examples(shown)
    return True
