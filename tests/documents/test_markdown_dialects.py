"""MDX and Quarto pages are read as the Markdown their readers see: no imports, expressions, component tags,
fenced-div lines, shortcodes or attributes in the text; children, div contents and code kept. Pages written
for these tests in the shapes Docusaurus, Astro Starlight and Quarto sites use."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.discovery import discover
from kgrag.documents.loaders import load_path
from kgrag.documents.markdown_dialects import mdx_to_markdown, quarto_to_markdown

CFG = DocumentsConfig()

MDX_PAGE = """---
title: Install the ferry
---
import Tabs from '@theme/Tabs';
import {
  Card,
  CardGrid,
} from '@astrojs/starlight/components';
export const release = { version: '2.1' };

{/* editors: keep the tabs in sync
   with the CLI page */}

The ferry leaves every `{hour}` from the {props.pier} pier.

<Tabs>
  <TabItem value="npm" label="npm">
    Run the installer with npm; it takes a minute.

    ```js
    const ferry = require({ name: "ferry" });
    ```
  </TabItem>
  <Card title="Next steps"
        icon="rocket" />
</Tabs>

:::tip Good to know
Tolvey ferries sail at dawn.
:::
"""

QMD_PAGE = """---
title: "Ferry reports"
---

## Setup {#sec-setup}

::: {.callout-note}
Reports use [small caps]{.smallcaps} and [the timetable](https://example.org/t){target="_blank"}.
:::

{{< include _timetable.qmd >}}

```{python}
#| echo: false
print({"ferries": 3})
```
"""


def _load(tmp_path: Path, name: str, text: str) -> tuple[str, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    [doc] = load_path(path, CFG)
    return doc.title, doc.text


def test_an_mdx_page_keeps_its_prose_and_code_and_drops_its_jsx(tmp_path: Path) -> None:
    title, text = _load(tmp_path, "install.mdx", MDX_PAGE)
    assert title == "Install the ferry"
    for gone in ("import", "export", "editors", "<Tabs", "TabItem", "Card", "props", ":::", "Good to know"):
        assert gone not in text, gone
    assert "The ferry leaves every {hour} from the pier." in text  # inline code keeps its braces
    assert "Run the installer with npm; it takes a minute." in text.splitlines()  # not an indented code block
    assert '```js\nconst ferry = require({ name: "ferry" });\n```' in text  # code kept byte for byte
    assert "Tolvey ferries sail at dawn." in text.splitlines()


def test_a_quarto_page_keeps_its_text_and_cells_and_drops_divs_shortcodes_and_attributes(tmp_path: Path) -> None:
    title, text = _load(tmp_path, "reports.qmd", QMD_PAGE)
    assert title == "Ferry reports"
    assert "## Setup" in text.splitlines()
    assert "Reports use small caps and the timetable." in text.splitlines()
    for gone in ("{#sec-setup}", ".callout", ":::", "{{<", "include", "target", ".smallcaps"):
        assert gone not in text, gone
    assert '#| echo: false\nprint({"ferries": 3})' in text


def test_dialect_rewrites_leave_code_blocks_alone() -> None:
    fence = "```\nimport os\n<Tabs>{x}</Tabs>\n::: note\n{{< video >}}\n```\n"
    assert mdx_to_markdown(fence) == fence
    assert quarto_to_markdown(fence) == fence
    unclosed = "Text.\n\n~~~\nexport const a = {b};\n"  # an unclosed fence runs to the end, as CommonMark reads it
    assert mdx_to_markdown(unclosed) == unclosed


def test_a_page_of_nothing_but_jsx_is_reported_not_indexed_empty(tmp_path: Path) -> None:
    path = tmp_path / "rss.mdx"
    path.write_text("import Rss from '../components/Rss.astro';\n\n<Rss />\n", encoding="utf-8")
    with pytest.raises(DocumentError, match=r"rss\.mdx: the page's text contains no text"):
        load_path(path, CFG)


def test_a_folder_of_mdx_and_qmd_pages_is_indexed_by_default(tmp_path: Path) -> None:
    (tmp_path / "a.mdx").write_text(MDX_PAGE, encoding="utf-8")
    (tmp_path / "b.qmd").write_text(QMD_PAGE, encoding="utf-8")
    assert sorted(p.name for p in discover([tmp_path], CFG.include, CFG.exclude)) == ["a.mdx", "b.qmd"]


def test_container_fences_are_left_out_of_markdown_pages_too(tmp_path: Path) -> None:
    """VitePress (``::: tip``) and Starlight (``:::caution[Title]``) write containers in plain ``.md`` pages;
    MDX indents them inside components."""
    page = "# Ferries\n\n::: tip Good to know\nFerries sail at dawn.\n:::\n\n"
    page += ":::caution[heads up]\nCheck the tide.\n:::\n"
    _, text = _load(tmp_path, "ferries.md", page)
    assert ":::" not in text and "Good to know" not in text and "heads up" not in text
    assert "Ferries sail at dawn." in text.splitlines() and "Check the tide." in text.splitlines()
    indented = "<Tabs>\n  <TabItem>\n    :::note\n    Ferries sail at dawn.\n    :::\n  </TabItem>\n</Tabs>\n"
    _, text = _load(tmp_path, "tabs.mdx", indented)
    assert text == "Ferries sail at dawn."
    assert ":::" in _load(tmp_path, "code.md", "Text.\n\n```\n::: tip\n```\n")[1]  # code is never rewritten
