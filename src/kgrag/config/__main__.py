"""``python -m kgrag.config > docs/configuration.md``."""

from kgrag.config.docs import configuration_markdown

print(configuration_markdown())
