"""Jekyll and Eleventy sites: Liquid in Markdown pages is read as the rendered page reads (tags and outputs
left out, comments with their content, a link whose target is a tag as its text), never inside code; HTML
templates are found by any tag or output outside code, attributes included; ``---js``/``---json`` front
matter is front matter; redirect stubs are passed over as not pages. Pages written for these tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.services import scaled

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.discovery import discover
from kgrag.documents.front_matter import split_front_matter
from kgrag.documents.ignore import Ignored, is_template
from kgrag.documents.liquid import without_liquid
from kgrag.documents.loaders import load_path
from kgrag.indexing.prepare import load_file

CFG = DocumentsConfig()

PAGE = """---
title: Ferry desk
---
Questions go to {% chat_room "ferry-desk" %} or to the harbour office.
Read the [timetable guide]({% link "guides/timetable.md" %}) before you sail,
and the [pier map]({{ site.baseurl }}{% link pier.md %}).
{% comment %}
Old fares: twelve crowns.
```text
fare = 12
```
{% endcomment %}
{% if site.winter %}
Winter crossings leave from the north pier.
{% endif %}
{% include "notice.html" title="Storms" %}
The desk opens at {{ site.opening_hour }} every day {# check with Ana #}.
{% raw %}Write {{ ferry.name }} to show a ferry's name.{% endraw %}
{% callout %}
Bring your {% ticket_kind "season pass" %} on board.
{% endcallout %}
<a href="{% link "contact.md" %}">Contact the harbour</a>
See [the fares][fares].

[fares]: {{ site.baseurl }}/fares/
"""


def _page(tmp_path: Path, text: str, name: str = "page.md") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_liquid_tags_and_outputs_are_read_as_the_rendered_page(tmp_path: Path) -> None:
    [doc] = load_path(_page(tmp_path, PAGE), CFG)
    assert "{%" not in doc.text and "{#" not in doc.text
    assert "Write {{ ferry.name }} to show a ferry's name." in doc.text  # raw: as written, markers left out
    assert doc.text.count("{{") == 1
    assert "Questions go to ferry-desk or to the harbour office." in doc.text  # one quoted argument: the words
    assert "Read the timetable guide before you sail, and the pier map." in doc.text  # links as their text
    assert "Old fares" not in doc.text and "fare = 12" not in doc.text  # a comment, code inside it too
    assert "Winter crossings leave from the north pier." in doc.text  # text between block tags stays
    assert "notice.html" not in doc.text and "Storms" not in doc.text  # an include is not prose
    assert "The desk opens at every day ." in doc.text and "check with Ana" not in doc.text
    assert "Bring your season pass on board." in doc.text
    assert "Contact the harbour" in doc.text and "contact.md" not in doc.text
    assert "See the fares." in doc.text


def test_raw_blocks_keep_their_content_as_written() -> None:
    assert without_liquid("{% raw %}Write {{ ferry.name }} here.{% endraw %}\n") == "Write {{ ferry.name }} here.\n"
    text = "Prices in {curly} braces and 100% sure.\n"
    assert without_liquid(text) is text  # a page without Liquid is left as it is


def test_liquid_inside_code_stays_as_written(tmp_path: Path) -> None:
    text = (
        'Link a page with `{% link "guide.md" %}` or `{{ page.url }}`.\n\n'
        "```liquid\n{% comment %}\n{% if user %}{{ user.name }}{% endif %}\n```\n\n"
        "    {% include card.html %}\n\n"
        "<pre>{% for ferry in ferries %}</pre>\n\n"
        "A sentence after the code {% endcomment %}.\n"
    )
    [doc] = load_path(_page(tmp_path, text), CFG)
    assert 'Link a page with {% link "guide.md" %} or {{ page.url }}.' in doc.text  # code spans
    assert "```liquid\n{% comment %}\n{% if user %}{{ user.name }}{% endif %}\n```" in doc.text  # a fence
    assert "```\n{% include card.html %}\n```" in doc.text  # an indented code block
    assert "{% for ferry in ferries %}" in doc.text  # an HTML <pre>
    assert "A sentence after the code ." in doc.text  # a comment opened inside code opens nothing


def test_jinja_inside_mkdocs_admonitions_is_prose_not_indented_code(tmp_path: Path) -> None:
    text = '!!! note "Fares"\n    Fares are in {{ currency }} as of {{ fares.updated | date }}.\n\n    {{ table() }}\n'
    [doc] = load_path(_page(tmp_path, text), CFG)
    assert doc.text == "Fares\n\nFares are in as of ."


def test_an_unclosed_comment_does_not_hide_the_rest_of_the_page() -> None:
    assert without_liquid("Before. {% comment %} After.\n") == "Before.  After.\n"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ('---js\n{\n  title: "Ferry desk",\n  eleventyNavigation: { title: "Desk" },\n}\n---\nBody.\n', "Ferry desk"),
        ("---js\nconst title = 'Ferry desk';\nexport function lede() { return 1; }\n---\nBody.\n", "Ferry desk"),
        ('---json\n{"title": "Ferry desk", "tags": ["ops"]}\n---\nBody.\n', "Ferry desk"),
        ('---yaml\ntitle: Ferry desk\n---\nBody.\n', "Ferry desk"),
    ],
)  # fmt: skip
def test_eleventy_front_matter_languages_are_front_matter(tmp_path: Path, text: str, title: str) -> None:
    [doc] = load_path(_page(tmp_path, text), CFG)
    assert (doc.title, doc.text) == (title, "Body.")
    broken = '---json\n{"title": "Ferry desk",\n---\nBody.\n'  # JSON that does not parse: text, not front matter
    assert split_front_matter(broken).body == broken


def test_an_html_page_with_front_matter_leaves_it_out(tmp_path: Path) -> None:
    page = '---js\n{ title: "Harbour", layout: "base" }\n---\n<h1>Harbour office</h1><p>Open daily.</p>\n'
    [doc] = load_path(_page(tmp_path, page, "harbour.html"), CFG)
    assert doc.title == "Harbour" and "layout" not in doc.text and "Open daily." in doc.text


REDIRECT_TEMPLATE = """---js
{ pagination: { data: "collections.all", alias: "redirect" }, permalink: "{{ redirect.from }}/index.html" }
---
<!DOCTYPE html>
<html><head>
<link rel="canonical" href="{% url_for redirect.to %}" />
<script>location = "{% url_for redirect.to %}";</script>
<meta name="rel-path" content="{{ redirect.to }}" />
</head><body><h1>Redirecting</h1><a href="{% url_for redirect.to %}">Click here.</a></body></html>
"""


def test_html_templates_are_found_by_any_tag_or_output_outside_code_and_only_there() -> None:
    templates = [
        REDIRECT_TEMPLATE.split("\n---\n", 1)[1],  # a site's own tag in attributes, an output in a <meta>
        '<html><body><p class="{{ page.kind | downcase }}">Ferries</p></body></html>',
        "<html><body><p>{% ferry_list %}</p></body></html>",
    ]
    pages = [  # template syntax shown as code, or braces that are text
        "<html><body><p>Write <code>{{ page.title }}</code> or</p><pre>{% link x.md %}</pre></body></html>",
        "<html><body><p>Sets use {braces}; 100% {of them} close.</p><p>{{ like these }} are text.</p></body></html>",
    ]
    assert [is_template(markup.encode()) for markup in templates + pages] == [True] * 3 + [False] * 2


STUB = "---\ntitle: Ferry fares\nredirect_to: https://example.org/fares\nredirect_from:\n  - /fares/\n---\n"


def test_redirect_stubs_are_counted_as_not_pages_when_a_folder_is_walked(tmp_path: Path) -> None:
    _page(tmp_path, STUB, "fares.md")
    _page(tmp_path, STUB.replace("redirect_to", "redirect") + "\n\n", "old/fares.html")
    _page(tmp_path, REDIRECT_TEMPLATE, "redirect.html")  # a template: skip_generated's, not a stub
    _page(tmp_path, STUB + "The fares moved to the harbour site.\n", "moved.md")  # has text: a page
    _page(tmp_path, "---\ntitle: Ferry fares\nredirect_from: /old/\n---\nFares are posted daily.\n", "fares2.md")
    passed = Ignored()
    found = discover([tmp_path], CFG.include, CFG.exclude, passed=passed)
    assert sorted(path.name for path in found) == ["fares2.md", "moved.md"]
    assert (passed.redirects, passed.generated) == (2, 1)


def test_a_named_redirect_stub_says_what_it_is_and_keeps_its_title(tmp_path: Path) -> None:
    path = _page(tmp_path, STUB, "fares.md")
    with pytest.raises(DocumentError, match="a redirect stub"):
        load_path(path, CFG)
    assert load_file(path, CFG).error_title == "Ferry fares"


def test_a_page_that_fails_is_titled_by_its_front_matter(tmp_path: Path) -> None:
    prepared = load_file(_page(tmp_path, "---\ntitle: Ferry fares\nlayout: fares\n---\n\n", "fares.md"), CFG)
    assert prepared.error is not None and "contains no text" in prepared.error
    assert prepared.error_title == "Ferry fares"
    assert load_file(_page(tmp_path, "\n", "blank.md"), CFG).error_title == ""


def test_a_page_of_unclosed_tags_with_long_names_is_read_at_once() -> None:
    """``{%`` followed by 1,998 letters, over and over, cost each character some 1,000 regex steps (the name
    handed letters back to the arguments): 8 MB took minutes. A bound on the wait, not a timing."""
    script = (
        "from kgrag.documents.liquid import without_liquid\n"
        "page = ('{%' + 'a' * 1998) * 4000\n"
        "assert without_liquid(page) == page\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=scaled(60.0))
    assert done.returncode == 0, done.stderr
