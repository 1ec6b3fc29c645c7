// The graph explorer: the whole graph (or its largest communities) from GET /graph/overview, drawn on a
// canvas by vis-network (served by kgrag from the pyvis package). Positions come from the server's igraph
// layout, so the first paint needs no simulation; physics is a toggle. Nodes are coloured by community
// and sized by degree; an edge shows its label on hover; double-click expands a neighbourhood.

import { $, api, el, emit, latest, on, state, status, ws } from "./api.js";
import { entityPanel } from "./entity.js";
import { editEntity, relationActions } from "./graph_edit.js";
import { applyViewSettings, hide, initGraphTools, nodeColour, prune } from "./graph_tools.js";

const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
  "#bcbd22", "#393b79", "#ad494a", "#637939", "#7b4173", "#3182bd", "#e6550d", "#31a354"];
const OTHER = "#a9b4be";

let network = null;
let nodes = null;
let edges = null;
let colours = new Map();
let overview = null;
let painted = false;
let pending = null; // items to highlight once the graph is drawn and its view shown
let selectedAtPress = []; // the nodes selected when the last press on the canvas began
let lastClicked; // the node the last click opened (undefined: none)
const overviewRequests = latest(); // only the answer to the latest overview request draws

// What the view tools (graph_tools.js) and the edit panel reach: the drawn data sets and the network.
export const drawn = {
  get network() { return network; }, get nodes() { return nodes; }, get edges() { return edges; },
  get overview() { return overview; }, palette: PALETTE, other: OTHER,
  communityColour: (community) => colours.get(community) || OTHER,
};

function nodeData(n) {
  const colour = nodeColour(n, drawn);
  return {
    id: n.id, label: n.name, value: n.degree, x: n.x, y: n.y,
    title: `${n.name} (${n.type}) · ${n.degree} relations`,
    color: { background: colour, border: colour, highlight: { background: "#ffd166", border: "#e63946" } },
    entity: n,
  };
}

export function edgeData(e) {
  return { id: e.id, from: e.source, to: e.target, title: e.label, relation: e };
}


function options(count) {
  return {
    autoResize: true,
    physics: { enabled: false, solver: "forceAtlas2Based", stabilization: false },
    interaction: { hover: true, tooltipDelay: 120, hideEdgesOnDrag: count > 800, hideEdgesOnZoom: count > 1500,
      keyboard: { enabled: true, bindToWindow: false }, navigationButtons: false, multiselect: true },
    layout: { improvedLayout: false },
    nodes: { shape: "dot", borderWidth: 1, font: { size: 14, face: "system-ui" },
      scaling: { min: 4, max: 34, label: { enabled: true, min: 10, max: 22, drawThreshold: 8, maxVisible: 18 } } },
    edges: { smooth: false, width: 0.6, color: { color: "#c3ccd5", highlight: "#e63946", hover: "#1d3557" },
      font: { size: 12, align: "middle", strokeWidth: 3 }, selectionWidth: 2 },
  };
}

function paintMark() {
  if (painted) return;
  painted = true;
  performance.mark("kgrag:graph-painted");
  try { performance.measure("kgrag:graph-first-paint", "kgrag:graph-requested", "kgrag:graph-painted"); } catch { /* no start mark */ }
  $("#graph-canvas").dataset.painted = String(nodes.length);
  setTimeout(flushPending); // after load() has written the view's description, which the highlight replaces
}

// "Show in graph" from another view: the fit waits until this view is shown and the canvas has its size
// (a fit against the hidden, 0×0 canvas puts the entities off-screen).
function flushPending() {
  if (!pending || !network || !painted || $("#view-graph").hidden) return;
  const items = pending;
  pending = null;
  resize();
  highlight(items);
}

function resize() {
  const box = $("#graph-canvas");
  network.setSize(`${box.clientWidth}px`, `${box.clientHeight}px`); // a changed size makes vis measure again
  network.setSize("100%", "100%");
  network.redraw();
}

function draw(data) {
  overview = data;
  colours = new Map(data.communities.slice(0, PALETTE.length).map((c, i) => [c.id, PALETTE[i]]));
  nodes = new vis.DataSet(data.nodes.map(nodeData));
  edges = new vis.DataSet(data.edges.map(edgeData));
  const container = $("#graph-canvas");
  if (network) network.destroy();
  painted = false;
  network = new vis.Network(container, { nodes, edges }, options(data.nodes.length));
  const frame = container.querySelector(".vis-network"); // vis-network's keyboard listens on its own frame
  if (frame) {
    frame.tabIndex = 0;
    frame.setAttribute("aria-label", "knowledge graph: arrow keys pan, + and - zoom");
    // Focus without scrolling: a press that scrolled the page would land the click on another node.
    frame.addEventListener("mousedown", (event) => { event.preventDefault(); frame.focus({ preventScroll: true }); });
    // The selection as it was when the press began (the click has changed it by the time it is reported).
    frame.addEventListener("pointerdown", () => { selectedAtPress = network.getSelectedNodes(); }, true);
  }
  network.once("afterDrawing", paintMark);
  network.on("hoverEdge", ({ edge }) => edges.update({ id: edge, label: edges.get(edge).relation.label }));
  network.on("blurEdge", ({ edge }) => edges.get(edge) && !$("#graph-edge-labels").checked && edges.update({ id: edge, label: undefined }));
  // "click", not "selectNode": a node selected by dragging it is not selected again by a click on it
  network.on("click", (params) => {
    const id = clickedNode(params);
    lastClicked = id;
    if (id !== undefined) openEntity(id);
    else if (params.edges.length) showRelation(edges.get(params.edges[0]).relation);
  });
  network.on("doubleClick", () => lastClicked !== undefined && expand(lastClicked)); // its clicks came first
  $("#graph-physics").checked = false;
  applyViewSettings();
}

// The node a click meant: the one drawn on top under the pointer. vis-network draws selected nodes above the
// rest but picks by insertion order, so a node dropped onto another would open the one beneath it; and a
// press held past the tap time toggles the node in the selection, so the selection cannot say either.
function clickedNode({ pointer, nodes: picked }) {
  const { x, y } = pointer.canvas;
  const inside = (id) => {
    const box = network.getBoundingBox(id);
    return box && box.left <= x && x <= box.right && box.top <= y && y <= box.bottom;
  };
  const onTop = selectedAtPress.filter((id) => nodes.get(id)).find(inside) ?? network.getNodeAt(pointer.DOM);
  if (onTop !== undefined && picked.length === 1 && picked[0] !== onTop) network.selectNodes([onTop]);
  return onTop;
}

function describe(data) {
  const shown = `${data.nodes.length} of ${data.matched} matching entities (${data.total.entities} in all), ${data.edges.length} edges`;
  const cut = data.sampled ? " · the largest communities, by degree within each" : "";
  const source = data.community_source === "detected"
    ? " · communities detected on the fly (run `kgrag graph communities` for stored ones with reports)" : "";
  $("#graph-info").textContent = shown + cut + source;
}

function fillFilters(data) {
  const type = $("#graph-type");
  const chosen = type.value;
  type.replaceChildren(new Option("any", ""), ...data.types.map((t) => new Option(`${t.type} (${t.count})`, t.type)));
  type.value = chosen;
  const level = $("#graph-level");
  level.replaceChildren(...(data.levels.length ? data.levels : [{ level: "", communities: 0 }]).map((l) =>
    new Option(l.level === "" ? "detected" : `${l.level} (${l.communities})`, l.level)));
  level.value = data.level === null ? "" : String(data.level);
  const community = $("#graph-community");
  const current = community.value;
  community.replaceChildren(new Option("all", ""), ...data.communities.slice(0, 200).map((c) =>
    new Option(`${short(c.title || c.id)} (${c.matched})`, c.id)));
  community.value = data.communities.some((c) => c.id === current) ? current : "";
}

const short = (text, most = 48) => (text.length > most ? text.slice(0, most - 1) + "…" : text);

function legend(data) {
  const items = data.communities.slice(0, PALETTE.length).map((c) =>
    el("li", {}, el("button", { type: "button", class: "swatch-button", title: `${c.title || c.id}: show only this community`,
      onclick: () => { $("#graph-community").value = c.id; load(); } },
    el("span", { class: "swatch", "data-colour": colours.get(c.id) }), `${short(c.title || c.id)} · ${c.matched}`)));
  $("#graph-legend").replaceChildren(el("ul", {}, items));
  for (const swatch of document.querySelectorAll("#graph-legend .swatch")) swatch.style.background = swatch.dataset.colour;
}

function query() {
  const params = new URLSearchParams({ max_nodes: $("#graph-max").value, min_degree: $("#graph-degree").value || "0" });
  for (const [key, node] of [["type", "#graph-type"], ["level", "#graph-level"], ["community", "#graph-community"]]) {
    if ($(node).value) params.set(key, $(node).value);
  }
  return params.toString();
}

export async function load() {
  if (typeof vis === "undefined") {
    $("#graph-info").textContent = "The graph view needs vis-network: pip install pyvis (kgrag[server]) and restart.";
    return;
  }
  performance.clearMarks("kgrag:graph-requested");
  performance.mark("kgrag:graph-requested");
  $("#graph-info").textContent = "loading the graph…";
  const asked = state.workspace;
  const isLatest = overviewRequests();
  try {
    const data = await api(ws(`/graph/overview?${query()}`));
    // the workspace changed while this one loaded, or filters submitted since asked again: a newer one draws
    if (asked !== state.workspace || !isLatest()) return;
    performance.mark("kgrag:graph-received");
    if (!data.nodes.length) {
      $("#graph-info").textContent = data.total.entities ? "no entity matches these filters" : "no graph yet: index documents with a graph extractor";
      if (network) { network.destroy(); network = null; }
      return;
    }
    fillFilters(data);
    draw(data);
    describe(data);
    legend(data);
    if ($("#graph-community").value) communityPanel($("#graph-community").value, data.level);
  } catch (err) {
    $("#graph-info").textContent = err.message;
  }
}

async function openEntity(id) {
  const node = nodes.get(id);
  await entityPanel($("#graph-panel"), id, node ? node.entity : null, {
    expand: () => expand(id), focus: () => focusOn([id]), prune: () => prune(id), hide: () => hide(id),
    edit: (entity) => editEntity(entity, { edited: (changed) => edited(id, changed) }),
  });
}

// After a hand edit: the drawn node takes its new name, a merged-away node goes, a split-out one is drawn
// with its neighbours, the panel reloads.
async function edited(id, { name = null, removed = null, added = null } = {}) {
  if (name && nodes.get(id)) {
    const entity = { ...nodes.get(id).entity, name };
    nodes.update({ id, entity, label: name, title: `${name} (${entity.type}) · ${entity.degree} relations` });
  }
  if (removed && nodes.get(removed)) nodes.remove(removed);
  if (added && nodes.get(id)) await drawBeside(added, id);
  await openEntity(id);
}

// A view of some entities only (a start entity's neighbourhood): drawn like the overview.
function drawPart(entities, relations, info) {
  const base = overview || { communities: [], types: [], levels: [], level: null };
  draw({ ...base, nodes: entities, edges: relations });
  $("#graph-info").textContent = info;
}

// The report of the community the view is limited to (written by `kgrag graph communities`).
async function communityPanel(id, level) {
  const panel = $("#graph-panel");
  try {
    const found = await api(ws(`/graph/communities?limit=500${level === null ? "" : `&level=${level}`}`));
    const report = found.reports.find((r) => r.community_id === id);
    if (!report) { panel.replaceChildren(el("h2", {}, id), el("p", { class: "muted" }, "this community has no report (too small, or none built yet)")); return; }
    panel.replaceChildren(el("h2", {}, report.title || id), el("p", { class: "muted" }, `community ${id} · level ${report.level} · rating ${report.rating}`),
      el("p", {}, report.summary),
      el("ul", {}, (report.findings || []).map((f) => el("li", {}, f.summary + (f.explanation ? ` ${f.explanation}` : "")))));
  } catch (err) {
    panel.replaceChildren(el("p", { class: "error" }, err.message));
  }
}

function showRelation(relation) {
  const names = [nodes.get(relation.source), nodes.get(relation.target)].map((n) => (n ? n.entity.name : "?"));
  $("#graph-panel").replaceChildren(el("h2", { class: "relation-name" }, `${names[0]} — ${relation.label} — ${names[1]}`),
    el("p", { class: "muted" }, `weight ${relation.weight}`),
    relationActions(relation, { deleted: () => { edges.remove(relation.id); $("#graph-panel").replaceChildren(el("p", { class: "muted" }, "relation deleted")); } }));
}

function addEntities(entities, near) {
  const origin = near ? network.getPosition(near) : { x: 0, y: 0 };
  const fresh = entities.filter((e) => !nodes.get(e.id));
  nodes.add(fresh.map((e, i) => {
    const angle = (2 * Math.PI * i) / Math.max(fresh.length, 1);
    const radius = 60 + 4 * Math.sqrt(fresh.length);
    return nodeData({ id: e.id, name: e.name, type: e.type, degree: e.degree, community: "",
      x: origin.x + radius * Math.cos(angle), y: origin.y + radius * Math.sin(angle) });
  }));
  return fresh.length;
}

// An entity that was not drawn (split out of `near`), with its strongest neighbours, placed around `near`.
async function drawBeside(id, near) {
  try {
    const hood = await api(ws(`/graph/entities/${encodeURIComponent(id)}/neighbourhood?limit=12`));
    addEntities(hood.entities, near);
    addRelations(hood.relations);
  } catch (err) {
    status(err.message, "error");
  }
}

function addRelations(relations) {
  const fresh = relations.filter((r) => !edges.get(r.id) && nodes.get(r.source) && nodes.get(r.target));
  edges.add(fresh.map((r) => edgeData({ id: r.id, source: r.source, target: r.target, label: r.label, weight: r.weight })));
}

const pages = new Map(); // entity id → how many of its neighbours the explorer has asked for so far

// Adds the next page of an entity's neighbours (strongest relations first). Pages whose neighbours are all
// drawn already are skipped, so a hub drawn with its top neighbours still grows; while more are left,
// "More neighbours" asks for the next page.
export async function expand(id, { more = false } = {}) {
  try {
    let offset = more ? pages.get(id) || 0 : 0;
    let added = 0;
    let hood = null;
    const page = Math.min(300, Math.max(5, Number($("#graph-page").value) || 60));
    for (let tries = 0; tries < 20 && !added; tries++) {
      hood = await api(ws(`/graph/entities/${encodeURIComponent(id)}/neighbourhood?limit=${page}&offset=${offset}`));
      added = addEntities(hood.entities, id);
      addRelations(hood.relations);
      offset += Math.max(hood.entities.length - 1, 0);
      if (!hood.truncated) break;
    }
    pages.set(id, offset);
    network.selectNodes([id]);
    const name = nodes.get(id) ? nodes.get(id).entity.name : id;
    const info = $("#graph-info");
    info.replaceChildren(`${added} neighbour(s) of ${name} added (${offset} of its neighbours asked for so far)`);
    if (hood && hood.truncated) {
      info.append(" · more are left ", el("button", { type: "button", id: "graph-more", onclick: () => expand(id, { more: true }) },
        "More neighbours"));
    } else {
      info.append(" · that is all of them");
    }
    $("#graph-canvas").dataset.expanded = String((Number($("#graph-canvas").dataset.expanded) || 0) + 1);
  } catch (err) {
    $("#graph-info").textContent = err.message;
    status(err.message, "error");
  }
}

function focusOn(ids) {
  const present = ids.filter((i) => nodes.get(i));
  if (!present.length) return;
  network.selectNodes(present);
  network.fit({ nodes: present, animation: { duration: 300 }, maxZoomLevel: 1.5 });
}

// Highlight what an answer used: its entities (added when the overview left them out) and relations.
export async function highlight({ entities = [], relations = [] }) {
  if (!network || !painted || $("#view-graph").hidden) { pending = { entities, relations }; return; }
  const missing = entities.filter((id) => !nodes.get(id));
  for (const id of missing.slice(0, 30)) {
    try {
      const hood = await api(ws(`/graph/entities/${encodeURIComponent(id)}/neighbourhood?limit=1`));
      addEntities(hood.entities, null);
    } catch { /* an entity removed since the answer */ }
  }
  const present = entities.filter((id) => nodes.get(id));
  const presentEdges = relations.filter((id) => edges.get(id));
  network.setSelection({ nodes: present, edges: presentEdges }, { highlightEdges: false });
  if (present.length) network.fit({ nodes: present, animation: { duration: 300 }, maxZoomLevel: 1.5 });
  $("#graph-info").textContent = `showing ${present.length} entities and ${presentEdges.length} relations the answer used`;
}

async function search() {
  const text = $("#graph-search").value.trim();
  if (!text) return;
  if (!network) { $("#graph-info").textContent = "no graph is drawn here to search"; return; }
  const needle = text.toLowerCase();
  const named = (n) => n.entity.name.toLowerCase();
  const hits = nodes.get({ filter: (n) => named(n).includes(needle) });
  if (hits.length) {
    hits.sort((a, b) => (named(a) === needle ? -1 : 0) - (named(b) === needle ? -1 : 0) || b.value - a.value);
    focusOn(hits.slice(0, 20).map((n) => n.id));
    await openEntity(hits[0].id);
    $("#graph-info").textContent = `${hits.length} drawn entit${hits.length === 1 ? "y matches" : "ies match"} “${text}”`;
    return;
  }
  const found = await api(ws(`/graph/entities?q=${encodeURIComponent(text)}&limit=10`));
  if (!found.length) {
    $("#graph-info").textContent = `no entity matches “${text}”`;
    $("#graph-info").dataset.kind = "nomatch";
    return;
  }
  addEntities(found, null);
  await expand(found[0].id);
  focusOn(found.map((e) => e.id));
  await openEntity(found[0].id);
  const one = found.length === 1;
  $("#graph-info").textContent = `${found.length} entit${one ? "y" : "ies"} matching “${text}” ${one ? "was" : "were"} not drawn: added ${one ? "it" : "them"}`;
}

export function initGraph() {
  $("#graph-filters").addEventListener("submit", (event) => { event.preventDefault(); load(); });
  $("#graph-find").addEventListener("click", () => search().catch((err) => status(err.message, "error")));
  $("#graph-search").addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); search().catch((err) => status(err.message, "error")); }
  });
  $("#graph-search").addEventListener("input", () => { delete $("#graph-info").dataset.kind; });
  $("#graph-physics").addEventListener("change", (event) => network && network.setOptions({ physics: { enabled: event.target.checked } }));
  $("#graph-fit").addEventListener("click", () => network && network.fit({ animation: { duration: 300 } }));
  $("#graph-level").addEventListener("change", () => { $("#graph-community").value = ""; load(); });
  document.addEventListener("keydown", (event) => {
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (event.key === "/" && !typing && !$("#view-graph").hidden) { event.preventDefault(); $("#graph-search").focus(); }
  });
  on("show:graph", load);
  on("show-in-graph", (items) => { pending = items; emit("go", "graph"); flushPending(); });
  on("view", (name) => { if (name === "graph") flushPending(); });
  on("workspace", () => { if (network) { network.destroy(); network = null; } });
  // For the browser tests and the console: how many nodes are drawn, and the zoom.
  // Where a node is on the screen (null when not drawn): the browser tests drag and click nodes with it.
  // The drawing surface inside the bordered box: mouse events are measured from it.
  const canvasBox = () => ($("#graph-canvas canvas") || $("#graph-canvas")).getBoundingClientRect();
  window.kgragGraph = {
    count: () => (nodes ? nodes.length : 0),
    ids: () => (nodes ? nodes.getIds() : []), // in the order they were added (vis-network's hit-test order)
    scale: () => (network ? network.getScale() : 0),
    screen: (id) => {
      if (!network || !nodes.get(id)) return null;
      const at = network.canvasToDOM(network.getPosition(id));
      const box = canvasBox();
      // Whole pixels: a mouse event lands on one, and a hit test at a fraction may pick another node.
      return { x: Math.round(box.left + at.x), y: Math.round(box.top + at.y), inside: at.x >= 0 && at.y >= 0 && at.x <= box.width && at.y <= box.height };
    },
    selected: () => (network ? network.getSelectedNodes() : []),
    at: (x, y) => {
      const box = canvasBox();
      return network ? network.getNodeAt({ x: x - box.left, y: y - box.top }) ?? null : null;
    },
  };
  initGraphTools({ drawn, reload: load, openEntity: (id) => openEntity(id), expand, drawPart, resize: () => network && resize() });
}
