"""The graph explorer in real Chromium, driven with the mouse and keyboard on a copy of the sample
workspace (the edits change it): "show in graph" after the graph was drawn, a dragged node opened by a
click, a hub's neighbours page by page, the view tools (labels, layouts, colours, zoom, full window, a view
started from one entity, pruning) and hand edits from the panel. Every check reads the page or the
server's own answers; nothing is injected. Screenshots go to ``build/test-artifacts/``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.server.browser_support import Page, hold_request, wait_until
from tests.server.serve_support import serve

G = "/v1/workspaces/sample/graph"


@pytest.fixture(scope="module")
def served(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workspace = tmp_path_factory.mktemp("webapp-graph") / "sample"
    shutil.copytree(sample_dir, workspace)
    yield from serve({"sample": workspace})


def _drawn(page: Page, max_nodes: int = 1000) -> Any:
    view = page.open("graph")
    if max_nodes != 1000:
        view.wait_for_selector("#graph-canvas[data-painted]", timeout=60_000)
        view.select_option("#graph-max", str(max_nodes))
        view.click("#graph-filters button[type='submit']")
        wait_until(view, f"document.querySelector('#graph-canvas').dataset.painted === '{max_nodes}'")
    view.wait_for_selector("#graph-canvas[data-painted]", timeout=60_000)
    return view


def _hub(page: Page, max_nodes: int) -> dict[str, Any]:
    nodes = httpx.get(f"{page.url}{G}/overview", params={"max_nodes": max_nodes}, timeout=60).json()["nodes"]
    return dict(max(nodes, key=lambda n: n["degree"]))


def _on_top(page: Page, view: Any, max_nodes: int) -> dict[str, Any]:
    """The best-connected node that no other node covers at its centre (what a click there hits)."""
    nodes = httpx.get(f"{page.url}{G}/overview", params={"max_nodes": max_nodes}, timeout=60).json()["nodes"]
    for node in sorted(nodes, key=lambda n: -n["degree"])[:40]:
        at = _screen(view, node["id"])
        if at.get("inside") and view.evaluate(f"window.kgragGraph.at({at['x']}, {at['y']})") == node["id"]:
            return dict(node)
    raise AssertionError("every hub is covered by another node")


def _screen(view: Any, entity_id: str) -> dict[str, Any]:
    """Where the node is on the screen once the page has settled (two readings 250 ms apart agree)."""
    last = None
    for _ in range(40):
        now = view.evaluate(f"window.kgragGraph.screen({entity_id!r})")
        if now == last:
            break
        last = now
        view.wait_for_timeout(250)
    return dict(last or {})


def test_show_in_graph_after_the_graph_was_drawn_puts_the_entities_on_screen(page: Page) -> None:
    view = _drawn(page)
    view.click("#tab-ask")  # the graph stays drawn, hidden
    view.wait_for_selector("#pipelines input[data-pipeline='graph-local']")
    for box in view.locator("#pipelines input").all():
        box.set_checked(False)
    view.check("#pipelines input[data-pipeline='graph-local']")
    view.fill("#question", "Who leads the Platform team?")
    view.click("#ask-button")
    view.locator(".answer[data-pipeline='graph-local'] button.show-in-graph").click()
    view.locator("#graph-info", has_text="the answer used").wait_for()
    view.wait_for_timeout(600)  # the fit's animation
    selected = view.evaluate("window.kgragGraph.selected()")
    assert selected
    assert all(_screen(view, i)["inside"] for i in selected), [_screen(view, i) for i in selected]
    page.shot("graph-show-in-graph")


def _drop_on_another(page: Page, view: Any) -> dict[str, Any]:
    """Drag a hub onto a node added after it, which vis-network's hit test picks there (by the order nodes
    were added) while the selected hub is drawn on top, and return the hub."""
    hub = _on_top(page, view, 300)
    ids = view.evaluate("window.kgragGraph.ids()")
    later = (i for i in ids[ids.index(hub["id"]) + 1 :] if _screen(view, i).get("inside"))
    other = next(later, None)
    assert other is not None, "no node drawn after the hub"
    at, target = _screen(view, hub["id"]), _screen(view, other)
    view.mouse.move(at["x"], at["y"])
    view.mouse.down()
    view.mouse.move(target["x"], target["y"], steps=8)
    view.mouse.up()
    assert view.evaluate("window.kgragGraph.selected()") == [hub["id"]]  # the drag selected it
    now = _screen(view, hub["id"])
    hit = view.evaluate(f"window.kgragGraph.at({now['x']}, {now['y']})")
    assert hit not in (hub["id"], None)  # a node beneath the hub, which vis-network's hit test picks first
    return hub


def test_a_node_just_dragged_opens_on_click(page: Page) -> None:
    view = _drawn(page, 300)
    hub = _drop_on_another(page, view)
    now = _screen(view, hub["id"])
    view.mouse.click(now["x"], now["y"])
    view.locator("#graph-panel h2.entity-name", has_text=hub["name"]).wait_for()
    assert view.evaluate("window.kgragGraph.selected()") == [hub["id"]]


def test_a_slow_press_on_a_node_just_dragged_opens_it(page: Page) -> None:
    """A press held past the canvas's tap time (a quarter second) is a "hold", which toggles the node in the
    selection. It opens the node all the same (a slow hand, or a busy machine that delays the release)."""
    view = _drawn(page, 300)
    hub = _drop_on_another(page, view)
    now = _screen(view, hub["id"])
    view.mouse.move(now["x"], now["y"])
    view.mouse.down()
    view.wait_for_timeout(600)
    view.mouse.up()
    view.locator("#graph-panel h2.entity-name", has_text=hub["name"]).wait_for()


def test_an_overview_asked_for_filters_changed_since_does_not_draw(page: Page) -> None:
    """Filters submitted twice in a row send two overview requests, and the first answer can come last:
    here the request for 300 nodes is held on its way (then passed on unchanged) until the one for at most 1,000 is
    drawn. The graph stays the one the filters shown ask for."""
    view = _drawn(page)
    view.select_option("#graph-max", "300")
    submit = "#graph-filters button[type='submit']"
    held = hold_request(view, "**/graph/overview?*max_nodes=300*", lambda: view.click(submit))
    view.select_option("#graph-max", "1000")
    with view.expect_response(lambda r: "/graph/overview?" in r.url and "max_nodes=1000" in r.url) as newer:
        view.click(submit)
    drawn = len(newer.value.json()["nodes"])
    wait_until(view, f"window.kgragGraph.count() === {drawn}")
    with view.expect_response(lambda r: "max_nodes=300" in r.url) as late:
        held.continue_()
    late.value.finished()
    view.wait_for_timeout(500)  # the page has had the late answer
    assert view.evaluate("window.kgragGraph.count()") == drawn != 300


def test_expanding_a_hub_pages_through_all_its_neighbours(page: Page) -> None:
    view = _drawn(page, 300)
    hub = _hub(page, 300)
    view.fill("#graph-page", "15")
    assert hub["degree"] > 15  # more neighbours than one page
    view.fill("#graph-search", hub["name"])
    view.press("#graph-search", "Enter")
    view.locator("#graph-panel h2.entity-name", has_text=hub["name"]).wait_for()
    before = view.evaluate("window.kgragGraph.count()")
    view.click("#graph-panel button:text('Expand')")
    view.locator("#graph-info", has_text="added").wait_for()
    first = view.evaluate("window.kgragGraph.count()")
    assert first > before  # never "0 added" while neighbours are left undrawn
    view.click("#graph-more")
    wait_until(view, f"window.kgragGraph.count() > {first}")
    for _ in range(20):
        if not view.locator("#graph-more").count():
            break
        count = view.evaluate("window.kgragGraph.count()")
        view.click("#graph-more")
        wait_until(view, f"window.kgragGraph.count() > {count} || !document.querySelector('#graph-more')")
    assert "that is all of them" in view.inner_text("#graph-info")
    hood = httpx.get(f"{page.url}{G}/entities/{hub['id']}/neighbourhood", params={"limit": 300}, timeout=30).json()
    drawn = view.evaluate(
        "(ids) => ids.filter((i) => window.kgragGraph.screen(i) !== null).length", [e["id"] for e in hood["entities"]]
    )
    assert drawn == len(hood["entities"])  # every neighbour the server knows is drawn


def test_label_toggles_edge_filter_layouts_and_colours(page: Page) -> None:
    view = _drawn(page, 300)
    count = view.evaluate("window.kgragGraph.count()")
    view.select_option("#graph-labels", "none")
    assert view.evaluate("window.kgragGraph.labelled()") == 0
    view.select_option("#graph-labels", "all")
    assert view.evaluate("window.kgragGraph.labelled()") == count
    view.select_option("#graph-labels", "hubs")
    assert 0 < view.evaluate("window.kgragGraph.labelled()") < count
    view.check("#graph-edge-labels")
    assert view.evaluate("window.kgragGraph.edgeLabels()") > 0
    view.uncheck("#graph-edge-labels")
    edges_all = view.evaluate("window.kgragGraph.visibleEdges()")
    hub = _on_top(page, view, 300)
    view.check("#graph-hide-edges")
    assert view.evaluate("window.kgragGraph.visibleEdges()") == 0
    at = _screen(view, hub["id"])
    view.mouse.click(at["x"], at["y"])
    view.locator("#graph-panel h2.entity-name", has_text=hub["name"]).wait_for()
    assert 0 < view.evaluate("window.kgragGraph.visibleEdges()") < edges_all
    view.uncheck("#graph-hide-edges")
    before = view.evaluate(f"window.kgragGraph.position({hub['id']!r})")
    view.select_option("#graph-layout", "circular")
    view.wait_for_selector("#graph-canvas[data-layout='circular']")
    assert view.evaluate(f"window.kgragGraph.position({hub['id']!r})") != before
    view.select_option("#graph-layout", "forceatlas2")
    view.wait_for_selector("#graph-canvas[data-layout='forceatlas2']", timeout=120_000)
    types = httpx.get(f"{page.url}{G}/overview", params={"max_nodes": 300}, timeout=30).json()["nodes"]
    view.select_option("#graph-colour", "type")
    assert view.evaluate("window.kgragGraph.colours()") == len({n["type"] for n in types})
    assert view.locator("#graph-legend li.type-key").count() == len({n["type"] for n in types})
    page.shot("graph-tools")


def test_zoom_buttons_full_window_a_view_from_one_entity_and_pruning(page: Page) -> None:
    view = _drawn(page, 300)
    hub = _hub(page, 300)
    scale = view.evaluate("window.kgragGraph.scale()")
    view.click("#graph-zoom-in")
    view.wait_for_timeout(300)
    assert view.evaluate("window.kgragGraph.scale()") > scale * 1.2
    view.click("#graph-zoom-out")
    height = view.locator("#graph-canvas").bounding_box()["height"]
    view.click("#graph-fullscreen")
    view.wait_for_timeout(300)
    assert view.locator("#graph-canvas").bounding_box()["height"] > height
    page.shot("graph-full-window")
    view.keyboard.press("Escape")
    assert view.get_attribute("#graph-fullscreen", "aria-pressed") == "false"
    view.fill("#graph-start", hub["name"])
    view.fill("#graph-depth", "1")
    view.fill("#graph-budget", "25")
    view.click("#graph-start-form button[type='submit']")
    view.locator("#graph-info", has_text="within 1 hop").wait_for()
    assert view.evaluate("window.kgragGraph.count()") == 25
    view.locator("#graph-panel h2.entity-name", has_text=hub["name"]).wait_for()
    view.click("#graph-panel button.prune")  # in a one-hop view every neighbour but linked ones is a leaf
    view.locator("#graph-info", has_text="pruned").wait_for()
    assert view.evaluate("window.kgragGraph.count()") < 25
    page.shot("graph-start-from")


def test_an_entity_is_renamed_described_merged_split_and_a_relation_deleted_from_the_panel(page: Page) -> None:
    view = _drawn(page, 300)
    hub = _hub(page, 300)
    hood = httpx.get(f"{page.url}{G}/entities/{hub['id']}/neighbourhood", params={"limit": 8}, timeout=30).json()
    other = next(e for e in hood["entities"] if e["id"] != hub["id"])
    view.fill("#graph-start", hub["name"])
    view.fill("#graph-depth", "1")
    view.fill("#graph-budget", "8")
    view.click("#graph-start-form button[type='submit']")
    view.locator("#graph-panel h2.entity-name", has_text=hub["name"]).wait_for()
    view.click("#graph-panel details.edit summary")
    view.fill("#graph-panel input.edit-name", "Renamed In The Browser")
    view.click("#graph-panel button:text('Rename')")
    view.locator("#graph-panel h2.entity-name", has_text="Renamed In The Browser").wait_for()
    assert httpx.get(f"{page.url}{G}/entities/{hub['id']}", timeout=30).json()["name"] == "Renamed In The Browser"
    view.click("#graph-panel details.edit summary")
    view.fill("#graph-panel textarea.edit-description", "Described in the browser.")
    view.click("#graph-panel button:text('Save description')")
    view.locator("#graph-panel .description", has_text="Described in the browser.").wait_for()
    view.click("#graph-panel details.edit summary")
    view.fill("#graph-panel input.edit-merge", other["name"])
    view.click("#graph-panel button:text('Merge')")
    view.locator("#graph-panel", has_text=other["name"]).wait_for()  # now an alias
    wait_until(view, f"window.kgragGraph.screen({other['id']!r}) === null")
    assert httpx.get(f"{page.url}{G}/entities/{other['id']}", timeout=30).status_code == 404
    page.shot("graph-edit")
    # a relation: click the middle of an edge from the centre of the one-hop view
    third = next(e for e in hood["entities"] if e["id"] not in (hub["id"], other["id"]))
    a, b = _screen(view, hub["id"]), _screen(view, third["id"])
    view.mouse.click((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2)
    view.locator("#graph-panel h2.relation-name").wait_for()
    view.click("#graph-panel button.delete-relation")
    view.locator("#graph-panel", has_text="relation deleted").wait_for()
    # the merge taken back: the merged name is an entity again, drawn with its neighbours
    at = _screen(view, hub["id"])
    view.mouse.click(at["x"], at["y"])
    view.locator("#graph-panel h2.entity-name", has_text="Renamed In The Browser").wait_for()
    view.click("#graph-panel details.edit summary")
    view.select_option("#graph-panel select.edit-split", other["name"])
    view.click("#graph-panel button:text('Split')")
    wait_until(view, f"window.kgragGraph.screen({other['id']!r}) !== null")
    assert httpx.get(f"{page.url}{G}/entities/{other['id']}", timeout=30).status_code == 200
    assert other["name"] not in httpx.get(f"{page.url}{G}/entities/{hub['id']}", timeout=30).json()["merged"]
    page.shot("graph-split")
    log = httpx.get(f"{page.url}{G}/edits", timeout=30).json()
    assert [e["op"] for e in log] == ["rename", "describe", "merge", "delete_relation", "split"]


def test_find_says_in_the_singular_that_the_one_undrawn_match_was_added(page: Page) -> None:
    view = _drawn(page, 300)
    drawn = set(view.evaluate("window.kgragGraph.ids()"))
    drawn_names = [
        n["name"].lower()
        for n in httpx.get(f"{page.url}{G}/overview", params={"max_nodes": 300}, timeout=60).json()["nodes"]
    ]
    candidates = httpx.get(f"{page.url}{G}/entities", params={"q": "e", "limit": 200}, timeout=30).json()
    for entity in (e for e in candidates if e["id"] not in drawn):
        name = entity["name"]
        if any(name.lower() in other for other in drawn_names):
            continue  # Find would select the drawn match instead
        if len(httpx.get(f"{page.url}{G}/entities", params={"q": name, "limit": 10}, timeout=30).json()) == 1:
            break
    else:
        raise AssertionError("no undrawn entity has a name that only it matches")
    view.fill("#graph-search", name)
    view.press("#graph-search", "Enter")
    view.locator("#graph-info", has_text="not drawn").wait_for()
    assert view.inner_text("#graph-info") == f"1 entity matching “{name}” was not drawn: added it"
