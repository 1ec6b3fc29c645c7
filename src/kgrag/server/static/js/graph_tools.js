// The explorer's view tools: labels (nodes: all, hubs only or none; edges: on hover or always; edges of
// unselected nodes hidden), layouts (the server's, ForceAtlas2 run in the page, circular by community),
// colour by community or by entity type, zoom and full-window buttons, a view started from one entity with
// a depth and a node budget, and pruning a neighbourhood. Everything works on what graph.js has drawn.

import { $, api, el, ws } from "./api.js";

let ctx = null; // { drawn, reload, openEntity, expand, drawPart, nodeData }
const TYPE_COLOURS = new Map();

function setting(id) {
  const node = $(id);
  return node.type === "checkbox" ? node.checked : node.value;
}

// The colour of an overview node: its community's, or its type's when colouring by type.
export function nodeColour(n, drawn) {
  if (setting("#graph-colour") !== "type") return drawn.communityColour(n.community);
  if (!TYPE_COLOURS.has(n.type)) TYPE_COLOURS.set(n.type, drawn.palette[TYPE_COLOURS.size % drawn.palette.length]);
  return TYPE_COLOURS.get(n.type);
}

function colourSpec(colour) {
  return { background: colour, border: colour, highlight: { background: "#ffd166", border: "#e63946" } };
}

function hubThreshold(all) {
  const degrees = all.map((n) => n.entity.degree || 0).sort((a, b) => b - a);
  return degrees[Math.min(degrees.length - 1, Math.max(9, Math.floor(degrees.length / 15)))] || 0;
}

function applyLabels() {
  const { nodes, edges } = ctx.drawn;
  const mode = setting("#graph-labels");
  const all = nodes.get();
  const least = mode === "hubs" ? hubThreshold(all) : 0;
  nodes.update(all.map((n) => ({ id: n.id, label: mode === "none" || (n.entity.degree || 0) < least ? "" : n.entity.name })));
  const always = setting("#graph-edge-labels");
  edges.update(edges.get().map((e) => ({ id: e.id, label: always ? e.relation.label : undefined })));
}

function applyColours() {
  const { nodes, network } = ctx.drawn;
  nodes.update(nodes.get().map((n) => ({ id: n.id, color: colourSpec(nodeColour(n.entity, ctx.drawn)) })));
  if (setting("#graph-colour") === "type") {
    $("#graph-legend").replaceChildren(el("ul", {}, [...TYPE_COLOURS].map(([type, colour]) => el("li", { class: "type-key" },
      el("span", { class: "swatch", "data-colour": colour }), type))));
    for (const swatch of document.querySelectorAll("#graph-legend .swatch")) swatch.style.background = swatch.dataset.colour;
  }
  network.redraw();
}

// Only the edges of the selected nodes are drawn when "hide unselected edges" is on.
function applyEdgeFilter() {
  const { network, edges } = ctx.drawn;
  const only = setting("#graph-hide-edges");
  const keep = new Set(only ? network.getSelectedNodes().flatMap((id) => network.getConnectedEdges(id)) : []);
  edges.update(edges.get().map((e) => ({ id: e.id, hidden: only && !keep.has(e.id) })));
}

// After every draw: the current label, colour and edge settings, and the chosen layout.
export function applyViewSettings() {
  if (!ctx || !ctx.drawn.network) return;
  ctx.drawn.network.on("select", () => { if (setting("#graph-hide-edges")) applyEdgeFilter(); });
  applyLabels();
  if (setting("#graph-colour") === "type") applyColours();
  if (setting("#graph-hide-edges")) applyEdgeFilter();
  if (setting("#graph-layout") !== "server") layout(setting("#graph-layout"));
}

function circularByCommunity() {
  const { nodes } = ctx.drawn;
  const groups = new Map();
  for (const n of nodes.get()) {
    const key = setting("#graph-colour") === "type" ? n.entity.type : n.entity.community || "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(n);
  }
  const ordered = [...groups.values()].sort((a, b) => b.length - a.length);
  const radii = ordered.map((g) => 20 + 9 * Math.sqrt(g.length) * 2);
  const ring = Math.max(200, radii.reduce((a, b) => a + 2 * b + 30, 0) / (2 * Math.PI));
  let angle = 0;
  const total = radii.reduce((a, b) => a + 2 * b + 30, 0);
  const moved = [];
  ordered.forEach((group, gi) => {
    const share = ((2 * radii[gi] + 30) / total) * 2 * Math.PI;
    const centre = ordered.length === 1 ? { x: 0, y: 0 } : { x: ring * Math.cos(angle + share / 2), y: ring * Math.sin(angle + share / 2) };
    angle += share;
    group.sort((a, b) => (b.entity.degree || 0) - (a.entity.degree || 0));
    group.forEach((n, i) => {
      const a = (2 * Math.PI * i) / group.length;
      moved.push({ id: n.id, x: centre.x + radii[gi] * Math.cos(a), y: centre.y + radii[gi] * Math.sin(a) });
    });
  });
  nodes.update(moved);
}

function layout(name) {
  const { network } = ctx.drawn;
  const canvas = $("#graph-canvas");
  canvas.dataset.layout = "running";
  if (name === "circular") {
    circularByCommunity();
    network.fit();
    canvas.dataset.layout = name;
    return;
  }
  if (name === "server") { ctx.reload(); return; }
  network.setOptions({ physics: { enabled: true, solver: "forceAtlas2Based",
    forceAtlas2Based: { gravitationalConstant: -60, springLength: 90, avoidOverlap: 0.2 },
    stabilization: { enabled: true, iterations: 120, updateInterval: 40 } } });
  network.once("stabilizationIterationsDone", () => {
    network.setOptions({ physics: { enabled: false } });
    network.fit();
    canvas.dataset.layout = name;
  });
  network.stabilize(120);
}

function zoom(factor) {
  const { network } = ctx.drawn;
  if (network) network.moveTo({ scale: network.getScale() * factor, animation: { duration: 150 } });
}

function fullWindow(on) {
  const box = $("#view-graph");
  box.classList.toggle("full-window", on);
  $("#graph-fullscreen").setAttribute("aria-pressed", String(on));
  $("#graph-fullscreen").textContent = on ? "Exit full window" : "Full window";
  requestAnimationFrame(() => ctx.drawn.network && ctx.resize());
}

// Rings by hops from the start entity: what a depth-limited view shows first.
function rings(centre, entities, relations) {
  const hops = new Map([[centre, 0]]);
  const next = new Map();
  for (const r of relations) {
    for (const [a, b] of [[r.source, r.target], [r.target, r.source]]) {
      if (!next.has(a)) next.set(a, []);
      next.get(a).push(b);
    }
  }
  const queue = [centre];
  while (queue.length) {
    const at = queue.shift();
    for (const other of next.get(at) || []) if (!hops.has(other)) { hops.set(other, hops.get(at) + 1); queue.push(other); }
  }
  const byRing = new Map();
  for (const e of entities) {
    const ring = hops.get(e.id) ?? 1;
    if (!byRing.has(ring)) byRing.set(ring, []);
    byRing.get(ring).push(e);
  }
  return entities.map((e) => {
    const ring = hops.get(e.id) ?? 1;
    const members = byRing.get(ring);
    const a = (2 * Math.PI * members.indexOf(e)) / members.length;
    return { ...e, community: "", x: ring * 160 * Math.cos(a), y: ring * 160 * Math.sin(a) };
  });
}

async function startFrom(event) {
  event.preventDefault();
  const text = $("#graph-start").value.trim();
  if (!text) return;
  const found = await api(ws(`/graph/entities?q=${encodeURIComponent(text)}&limit=20`));
  const best = found.find((e) => e.name.toLowerCase() === text.toLowerCase()) || found[0];
  if (!best) { $("#graph-info").textContent = `no entity matches “${text}”`; return; }
  const depth = Number($("#graph-depth").value) || 1;
  const budget = Number($("#graph-budget").value) || 100;
  const hood = await api(ws(`/graph/entities/${encodeURIComponent(best.id)}/neighbourhood?depth=${depth}&limit=${budget}`));
  ctx.drawPart(rings(best.id, hood.entities, hood.relations), hood.relations,
    `${hood.entities.length} entities within ${depth} hop(s) of ${best.name}` + (hood.truncated ? ` (the budget of ${budget} cut it)` : ""));
  await ctx.openEntity(best.id);
}

// Removes the entity's neighbours that connect to nothing else drawn (its leaves).
export function prune(id) {
  const { network, nodes } = ctx.drawn;
  const leaves = network.getConnectedNodes(id).filter((other) => network.getConnectedNodes(other).length <= 1);
  nodes.remove(leaves);
  $("#graph-info").textContent = `pruned ${leaves.length} neighbour(s) that connected only to ${nodes.get(id) ? nodes.get(id).entity.name : id}`;
  return leaves.length;
}

export function hide(id) {
  ctx.drawn.nodes.remove(id);
  $("#graph-info").textContent = "removed from the view (the graph is unchanged)";
}

export function initGraphTools(context) {
  ctx = context;
  for (const id of ["#graph-labels", "#graph-edge-labels"]) $(id).addEventListener("change", () => ctx.drawn.network && applyLabels());
  $("#graph-hide-edges").addEventListener("change", () => ctx.drawn.network && applyEdgeFilter());
  $("#graph-colour").addEventListener("change", () => {
    if (!ctx.drawn.network) return;
    if (setting("#graph-colour") === "community") ctx.reload(); else applyColours();
  });
  $("#graph-layout").addEventListener("change", () => ctx.drawn.network && layout(setting("#graph-layout")));
  $("#graph-zoom-in").addEventListener("click", () => zoom(1.4));
  $("#graph-zoom-out").addEventListener("click", () => zoom(1 / 1.4));
  $("#graph-fullscreen").addEventListener("click", () => fullWindow(!$("#view-graph").classList.contains("full-window")));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && $("#view-graph").classList.contains("full-window")) fullWindow(false);
  });
  $("#graph-start-form").addEventListener("submit", (event) => startFrom(event).catch((err) => { $("#graph-info").textContent = err.message; }));
  Object.assign(window.kgragGraph, {
    labelled: () => ctx.drawn.nodes.get({ filter: (n) => Boolean(n.label) }).length,
    edgeLabels: () => ctx.drawn.edges.get({ filter: (e) => Boolean(e.label) }).length,
    visibleEdges: () => ctx.drawn.edges.get({ filter: (e) => !e.hidden }).length,
    colours: () => new Set(ctx.drawn.nodes.get().map((n) => n.color.background)).size,
    position: (id) => ctx.drawn.network.getPosition(id),
  });
}
