"""The YAML loader the document loaders read metadata with: YAML's safe loader (no objects constructed) with
dates and timestamps kept as the text written.

Front matter and site configs are read for a few strings (a title, a navigation); a page's impossible date
("date: 2017-02-29 11:00:00", a typo a static-site generator lets through) would otherwise make the safe loader
raise, and the whole block would be lost or the load would fail.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def text_dates_loader() -> type[Any]:
    """A :class:`yaml.SafeLoader` subclass that leaves timestamps as strings (one class, made on first use)."""
    import yaml  # imported here: most documents have no YAML

    class TextDatesLoader(yaml.SafeLoader):
        """:class:`yaml.SafeLoader` that leaves timestamps as the text written."""

    TextDatesLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
    return TextDatesLoader
