// Ask and compare: one question through the chosen pipelines (POST /compare), each answer rendered as
// markdown with its citations as links to the cited passage (opened in full, the cited sentence
// highlighted), its cost and latency, the route `auto` took and why, and the full trace in a collapsible
// view. "Show in graph" highlights the entities and relations the answer used in the explorer.

import { $, api, el, emit, formatNumber, on, state, status, ws } from "./api.js";
import { renderMarkdown } from "./markdown.js";
import { openPassage } from "./passage.js";
import { supportNode } from "./support.js";

function pipelineBoxes() {
  const settings = state.settings;
  const wanted = new Set(settings.compare_pipelines && settings.compare_pipelines.length
    ? settings.compare_pipelines : [settings.default_pipeline || settings.pipelines.find((p) => p.available)?.name]);
  const boxes = settings.pipelines.map((p) => {
    const box = el("input", { type: "checkbox", value: p.name, "data-pipeline": p.name,
      checked: p.available && wanted.has(p.name), disabled: !p.available });
    const tip = p.available ? p.description : `${p.reason || "not available here"}`;
    const label = p.name + (p.name === settings.default_pipeline ? " (default)" : "");
    return el("label", { class: p.available ? "" : "unready", title: tip || "" }, box, " " + label);
  });
  $("#pipelines").replaceChildren(el("legend", {}, "pipelines"), ...boxes);
}

function costLine(result) {
  const cost = result.cost || {};
  const ms = Object.values(result.timings_ms || {}).reduce((a, b) => a + b, 0);
  const tokens = (cost.prompt_tokens || 0) + (cost.completion_tokens || 0);
  const parts = [cost.line || "", `${tokens} LLM tokens`, `$${Number(cost.cost_usd || 0).toFixed(6)}`, `${ms.toFixed(0)} ms`];
  if (cost.context_tokens) parts.splice(1, 0, `${cost.context_tokens} context tokens`);
  return parts.filter(Boolean).join(" · ");
}

function routeNode(result) {
  const step = (result.trace || []).find((s) => s.step === "route");
  if (!step) return null;
  const p = step.params || {};
  return el("p", { class: "route" }, el("strong", {}, "route: "), `${p.route} → ${p.pipeline}`,
    el("span", { class: "muted" }, ` (${p.decided_by}: ${p.reason})`));
}

function traceNode(result) {
  const rows = (result.trace || []).map((s) => el("tr", {},
    el("td", {}, s.step), el("td", { class: "num" }, s.n_out ?? ""), el("td", { class: "num" }, s.ms !== undefined ? Number(s.ms).toFixed(1) : ""),
    el("td", { class: "params" }, Object.entries(s.params || {}).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join("  ")),
    el("td", { class: "muted" }, s.note || "")));
  const seeds = (result.items || []).filter((i) => i.kind !== "chunk").slice(0, 40).map((i) => el("tr", {},
    el("td", {}, i.kind), el("td", {}, (i.metadata && i.metadata.name) || i.id), el("td", { class: "num" }, formatNumber(i.score)),
    el("td", { class: "params" }, Object.entries(i.scores || {}).map(([k, v]) => `${k}=${formatNumber(v)}`).join("  "))));
  return el("details", { class: "trace" }, el("summary", {}, `trace (${(result.trace || []).length} steps)`),
    el("div", { class: "scroll" }, el("table", { class: "table compact" },
      el("thead", {}, el("tr", {}, ["step", "out", "ms", "params", "note"].map((h) => el("th", {}, h)))), el("tbody", {}, rows))),
    seeds.length ? el("div", { class: "scroll" }, el("table", { class: "table compact" }, el("caption", {}, "graph items used (seeds and scores)"),
      el("thead", {}, el("tr", {}, ["kind", "item", "score", "scores"].map((h) => el("th", {}, h)))), el("tbody", {}, seeds))) : null);
}

function passageNode(p) {
  const short = p.text.length > 300 ? p.text.slice(0, 300) + "…" : p.text;
  return el("li", { class: "passage" + (p.cited ? " cited" : ""), id: undefined, "data-chunk": p.chunk_id },
    el("div", { class: "src" }, (p.attributed ? "attributed · " : p.cited ? "cited · " : "") + (p.source || p.doc_id || ""), el("span", { class: "muted mono" }, ` ${p.chunk_id}`)),
    el("div", {}, short),
    el("button", { type: "button", class: "link open-passage", onclick: () => openPassage(p.chunk_id, { fallback: p }) }, "open in full"));
}

function answerNode(outcome) {
  const box = el("article", { class: "answer", "data-pipeline": outcome.pipeline }, el("h3", {}, outcome.pipeline));
  if (outcome.error) { box.append(el("p", { class: "error" }, outcome.error)); return box; }
  const r = outcome.result;
  const byId = new Map(r.passages.map((p) => [p.chunk_id, p]));
  const cite = (id, sentence) => el("a", { href: `#passage-${id}`, class: "citation", "data-chunk": id, title: (byId.get(id) || {}).source || id,
    onclick: (event) => { event.preventDefault(); openPassage(id, { hint: sentence, fallback: byId.get(id) }); } },
  `[${1 + r.citations.indexOf(id)}]`);
  const text = el("div", { class: "text" });
  text.append(renderMarkdown(r.answer || "(no answer)", { cite, known: new Set(r.citations) }));
  box.append(...[routeNode(r), text, supportNode(r, openPassage), el("p", { class: "cost muted" }, costLine(r))].filter(Boolean));
  const entities = r.items.filter((i) => i.kind === "entity").map((i) => i.id);
  const relations = r.items.filter((i) => i.kind === "relation").map((i) => i.id);
  if (entities.length || relations.length) {
    box.append(el("button", { type: "button", class: "show-in-graph", onclick: () => emit("show-in-graph", { entities, relations }) },
      `show in graph (${entities.length} entities, ${relations.length} relations)`));
  }
  box.append(traceNode(r));
  const passages = [...r.passages].sort((a, b) => Number(b.cited) - Number(a.cited));
  box.append(el("h4", {}, `passages (${passages.length})`), el("ol", { class: "passages" }, passages.map(passageNode)));
  return box;
}

async function ask(event) {
  event.preventDefault();
  const pipelines = [...document.querySelectorAll("#pipelines input:checked")].map((b) => b.value);
  if (!pipelines.length) { status("pick at least one pipeline", "error"); return; }
  const question = $("#question").value.trim();
  if (!question) return;
  $("#answers").replaceChildren(el("p", { class: "muted" }, "asking…"));
  $("#ask-button").disabled = true;
  try {
    const body = { question, pipelines, k: Number($("#k").value) || null };
    const result = await api(ws("/compare"), { method: "POST", json: body });
    $("#answers").replaceChildren(...result.outcomes.map(answerNode));
  } catch (err) {
    $("#answers").replaceChildren(el("p", { class: "error" }, err.message));
  } finally {
    $("#ask-button").disabled = false;
  }
}

export function initAsk() {
  $("#ask").addEventListener("submit", ask);
  on("workspace", () => {
    $("#answers").replaceChildren();
    state.ready.then(pipelineBoxes).catch((err) => status(err.message, "error"));
  });
}
