// Ask as a conversation, and compare: with one pipeline chosen, each question is the next turn of a
// conversation (POST /query/stream with its conversation id): the answer streams in as the model writes
// it, and a follow-up ("and who leads it?") is rewritten from the earlier turns, the rewrite shown under
// the question. With several pipelines, the question goes through each (POST /compare) side by side.
// "Context only" retrieves without writing an answer. Every answer is rendered as markdown with its
// citations as links to the cited passage (opened in full, the cited sentence highlighted), its cost and
// latency, the route `auto` took and why, and the full trace in a collapsible view. "Show in graph"
// highlights the entities and relations the answer used in the explorer.

import { $, api, el, emit, formatNumber, on, state, status, ws } from "./api.js";
import { renderMarkdown } from "./markdown.js";
import { openPassage } from "./passage.js";
import { postEvents } from "./stream.js";
import { supportNode } from "./support.js";

const chat = { conversation: null, controller: null };

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
  // The label says what the router found the question to be (a question naming two graph entities is
  // sent to the multi-hop route without being known to be multi-hop); the route key is the fallback.
  return el("p", { class: "route" }, el("strong", {}, "route: "), `${p.label || p.route} → ${p.pipeline}`,
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
  if (r.mode === "context") box.classList.add("context-only");
  const byId = new Map(r.passages.map((p) => [p.chunk_id, p]));
  const cite = (id, sentence) => el("a", { href: `#passage-${id}`, class: "citation", "data-chunk": id, title: (byId.get(id) || {}).source || id,
    onclick: (event) => { event.preventDefault(); openPassage(id, { hint: sentence, fallback: byId.get(id) }); } },
  `[${1 + r.citations.indexOf(id)}]`);
  const text = el("div", { class: "text" });
  if (r.mode === "context") text.append(el("p", { class: "muted" }, `context only: ${r.passages.length} passages, no answer written`));
  else text.append(renderMarkdown(r.answer || "(no answer)", { cite, known: new Set(r.citations) }));
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

function turnNode(question) {
  const answers = el("div", { class: "turn-answers" });
  const turn = el("section", { class: "turn" }, el("p", { class: "question" }, question), answers);
  $("#answers").append(turn);
  return { turn, answers };
}

async function compareTurn(question, pipelines, k, contextOnly, answers) {
  if (!contextOnly) {
    const result = await api(ws("/compare"), { method: "POST", json: { question, pipelines, k } });
    answers.replaceChildren(...result.outcomes.map(answerNode));
    return;
  }
  const outcomes = await Promise.all(pipelines.map((pipeline) =>
    api(ws("/query"), { method: "POST", json: { question, pipeline, k, context_only: true } })
      .then((result) => ({ pipeline, result }), (err) => ({ pipeline, error: err.message }))));
  answers.replaceChildren(...outcomes.map(answerNode));
}

async function streamTurn(question, pipeline, k, contextOnly, turn, answers) {
  const live = el("div", { class: "text live", "aria-live": "polite" });
  const box = el("article", { class: "answer streaming", "data-pipeline": pipeline }, el("h3", {}, pipeline), live);
  answers.replaceChildren(box);
  chat.controller = new AbortController();
  const body = { question, pipeline, k, context_only: contextOnly, conversation_id: chat.conversation || "new" };
  await postEvents(ws("/query/stream"), body, (name, data) => {
    if (name === "delta") live.append(document.createTextNode(data.text));
    else if (name === "error") box.replaceWith(answerNode({ pipeline, error: data.error.message }));
    else if (name === "result") {
      chat.conversation = data.conversation_id;
      $("#conversation-id").textContent = chat.conversation ? `conversation ${chat.conversation}` : "";
      if (data.standalone_question && data.standalone_question !== question) {
        turn.querySelector(".question").after(el("p", { class: "standalone muted" }, `searched for: ${data.standalone_question}`));
      }
      box.replaceWith(answerNode({ pipeline, result: data }));
    }
  }, chat.controller.signal);
}

async function ask(event) {
  event.preventDefault();
  const pipelines = [...document.querySelectorAll("#pipelines input:checked")].map((b) => b.value);
  if (!pipelines.length) { status("pick at least one pipeline", "error"); return; }
  const question = $("#question").value.trim();
  if (!question) return;
  const k = Number($("#k").value) || null;
  const contextOnly = $("#context-only").checked;
  const { turn, answers } = turnNode(question);
  answers.append(el("p", { class: "muted" }, "asking…"));
  $("#question").value = "";
  $("#ask-button").disabled = true;
  $("#stop-button").hidden = pipelines.length !== 1;
  try {
    if (pipelines.length === 1) await streamTurn(question, pipelines[0], k, contextOnly, turn, answers);
    else await compareTurn(question, pipelines, k, contextOnly, answers);
  } catch (err) {
    const stopped = err.name === "AbortError";
    answers.append(el("p", { class: stopped ? "muted stopped" : "error" }, stopped ? "stopped" : err.message));
  } finally {
    chat.controller = null;
    $("#ask-button").disabled = false;
    $("#stop-button").hidden = true;
    turn.scrollIntoView({ block: "nearest" });
  }
}

function newConversation() {
  if (chat.controller) chat.controller.abort();
  chat.conversation = null;
  $("#conversation-id").textContent = "";
  $("#answers").replaceChildren();
}

export function initAsk() {
  $("#ask").addEventListener("submit", ask);
  $("#stop-button").addEventListener("click", () => chat.controller && chat.controller.abort());
  $("#new-conversation").addEventListener("click", newConversation);
  on("workspace", () => {
    newConversation();
    state.ready.then(pipelineBoxes).catch((err) => status(err.message, "error"));
  });
}
