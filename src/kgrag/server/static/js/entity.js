// The explorer's side panel for one entity: type, degree, description, aliases (names merged into it by
// denoising), the passages it was extracted from (each openable in full) and its communities' reports.
// Data from GET /graph/entities/{id}; an older server without it still shows what the overview knew.

import { api, el, ws } from "./api.js";
import { openPassage } from "./passage.js";

async function details(id, known) {
  try {
    return await api(ws(`/graph/entities/${encodeURIComponent(id)}`));
  } catch (err) {
    if (err.status !== 404 && err.status !== 405) throw err;
    const hood = await api(ws(`/graph/entities/${encodeURIComponent(id)}/neighbourhood?limit=1`));
    const view = hood.entities[0] || known || { id, name: id };
    return Object.assign({ aliases: null, communities: null }, view,
      { passages: (view.chunk_ids || []).map((chunk_id) => ({ chunk_id, snippet: "" })) });
  }
}

function section(title, ...children) {
  return el("section", { class: "panel-section" }, el("h3", {}, title), ...children);
}

function passages(list, total) {
  if (!list.length) return el("p", { class: "muted" }, "none recorded");
  const more = Math.max(total ?? list.length, list.length) - Math.min(list.length, 30);
  return el("ul", { class: "plain" }, list.slice(0, 30).map((p) => el("li", {},
    p.source_name ? el("div", { class: "muted" }, p.source_name) : null,
    el("button", { type: "button", class: "link passage-link", "data-chunk": p.chunk_id,
      onclick: () => openPassage(p.chunk_id) }, p.snippet ? p.snippet : p.chunk_id))),
  more > 0 ? el("li", { class: "muted" }, `… and ${more} more`) : null);
}

function communities(list) {
  if (list === null) return el("p", { class: "muted" }, "this server does not list them");
  if (!list.length) return el("p", { class: "muted" }, "none stored (`kgrag graph communities` builds them)");
  return el("ul", { class: "plain" }, list.map((c) => el("li", {},
    el("details", {}, el("summary", {}, `level ${c.level} · ${c.title || c.id}` + (c.size ? ` · ${c.size} entities` : "")),
      el("p", {}, c.summary || "(no report)")))));
}

export async function entityPanel(panel, id, known, { expand, focus, prune = null, hide = null, edit = null }) {
  panel.replaceChildren(el("p", { class: "muted" }, "loading…"));
  let entity;
  try {
    entity = await details(id, known);
  } catch (err) {
    panel.replaceChildren(el("p", { class: "error" }, err.message));
    return;
  }
  const aliases = entity.aliases === null ? el("p", { class: "muted" }, "this server does not list them")
    : entity.aliases.length ? el("p", {}, entity.aliases.join(", ")) : el("p", { class: "muted" }, "none");
  panel.replaceChildren(
    el("h2", { class: "entity-name" }, entity.name),
    el("p", { class: "muted" }, `${entity.type || "?"} · ${entity.degree ?? "?"} relations`),
    el("div", { class: "actions" },
      el("button", { type: "button", onclick: expand }, "Expand"),
      el("button", { type: "button", onclick: focus }, "Centre"),
      prune ? el("button", { type: "button", class: "prune", title: "remove its neighbours that connect to nothing else drawn", onclick: prune }, "Prune") : null,
      hide ? el("button", { type: "button", class: "hide", title: "remove it from this view (the graph is unchanged)", onclick: hide }, "Hide") : null),
    section("Description", el("p", { class: "description" }, entity.description || "(none)")),
    section("Aliases", aliases),
    section("Passages", passages(entity.passages || [], entity.passages_total)),
    section("Communities", communities(entity.communities ?? null)),
    edit ? edit(entity) : null,
  );
}
