// kgrag web page: plain JavaScript, no build step. Talks only to this server's /v1 API.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SVG = "http://www.w3.org/2000/svg";
let workspace = "";
let jobTimer = null;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

async function api(path, options = {}) {
  // X-Kgrag-Request marks the call as this page's: the server refuses writes a cross-site form could forge.
  const headers = Object.assign({ "X-Kgrag-Request": "1" }, options.headers || {});
  const key = sessionStorage.getItem("kgrag-key");
  if (key) headers["Authorization"] = "Bearer " + key;
  if (options.json !== undefined) { headers["Content-Type"] = "application/json"; options.body = JSON.stringify(options.json); }
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401) {
    const entered = prompt("This server needs an API key:");
    if (entered) { sessionStorage.setItem("kgrag-key", entered); return api(path, options); }
  }
  const data = response.headers.get("content-type")?.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new Error((data && data.error && data.error.message) || response.statusText);
  return data;
}

const ws = (path) => `/v1/workspaces/${encodeURIComponent(workspace)}${path}`;

function showStatus(text) { $("#status").textContent = text; }

async function loadWorkspaces() {
  const list = await api("/v1/workspaces");
  const select = $("#workspace");
  select.replaceChildren(...list.map((w) => el("option", { value: w.name }, w.name)));
  workspace = list.length ? list[0].name : "";
  select.onchange = () => { workspace = select.value; refreshWorkspace(); };
  await refreshWorkspace();
}

async function refreshWorkspace() {
  if (!workspace) { showStatus("no workspace"); return; }
  const pipelines = await api(ws("/pipelines"));
  $("#pipelines").replaceChildren(...pipelines.map((p, i) => {
    const box = el("input", { type: "checkbox", value: p.name, "data-pipeline": p.name });
    box.checked = p.ready && i < 2; box.disabled = !p.ready;
    const why = p.error || p.requirements.filter((r) => !r.met).map((r) => r.message).join("; ");
    return el("label", { class: p.ready ? "" : "unready", title: why || p.description }, box, " " + p.name);
  }));
  await refreshDocuments();
  await refreshJobs();
}

async function refreshDocuments() {
  const docs = await api(ws("/documents"));
  const counts = Object.entries(docs.counts).map(([k, v]) => `${v} ${k}`).join(", ") || "no documents";
  $("#doc-counts").textContent = `${counts} · ${docs.chunks} chunks`;
  showStatus(`${docs.documents.length} documents`);
}

function passageNode(p) {
  return el("div", { class: "passage" + (p.cited ? " cited" : "") },
    el("div", { class: "src" }, (p.cited ? "cited · " : "") + (p.source || p.doc_id || "") + ` · ${p.chunk_id}`),
    el("div", {}, p.text.length > 400 ? p.text.slice(0, 400) + "…" : p.text));
}

function answerNode(outcome) {
  const box = el("div", { class: "answer", "data-pipeline": outcome.pipeline }, el("h3", {}, outcome.pipeline));
  if (outcome.error) { box.append(el("div", { class: "error" }, outcome.error)); return box; }
  const r = outcome.result;
  const ms = Object.values(r.timings_ms).reduce((a, b) => a + b, 0);
  box.append(el("div", { class: "text" }, r.answer || "(no answer)"));
  box.append(el("div", { class: "cost muted" }, `${r.cost.line} · ${r.cost.prompt_tokens + r.cost.completion_tokens} tokens · $${Number(r.cost.cost_usd).toFixed(6)} · ${ms.toFixed(0)} ms`));
  const entities = r.items.filter((i) => i.kind === "entity");
  if (entities.length) {
    box.append(el("ul", { class: "chips" }, ...entities.slice(0, 12).map((e) =>
      el("li", { class: "chip entity", "data-entity": e.id, onclick: () => openEntity(e.id) }, e.metadata.name || e.id))));
  }
  const passages = [...r.passages].sort((a, b) => Number(b.cited) - Number(a.cited));
  box.append(...passages.map(passageNode));
  return box;
}

async function ask(event) {
  event.preventDefault();
  const pipelines = [...document.querySelectorAll("#pipelines input:checked")].map((b) => b.value);
  if (!pipelines.length) { showStatus("pick at least one pipeline"); return; }
  const question = $("#question").value;
  $("#answers").replaceChildren(el("div", { class: "muted" }, "asking…"));
  try {
    const body = { question, pipelines, k: Number($("#k").value) || null };
    const result = await api(ws("/compare"), { method: "POST", json: body });
    $("#answers").replaceChildren(...result.outcomes.map(answerNode));
  } catch (err) {
    $("#answers").replaceChildren(el("div", { class: "error" }, err.message));
  }
}

function layout(nodes, edges, width, height) {
  // A small force layout: repulsion between all pairs, springs along edges, the centre pinned.
  nodes.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / nodes.length;
    n.x = i === 0 ? width / 2 : width / 2 + 120 * Math.cos(angle);
    n.y = i === 0 ? height / 2 : height / 2 + 120 * Math.sin(angle);
  });
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  for (let step = 0; step < 200; step++) {
    const cooling = 1 - step / 200;
    for (const a of nodes) { a.dx = 0; a.dy = 0; }
    for (let i = 0; i < nodes.length; i++) for (let j = i + 1; j < nodes.length; j++) {
      const a = nodes[i], b = nodes[j];
      const dx = a.x - b.x, dy = a.y - b.y, d2 = Math.max(dx * dx + dy * dy, 1), f = 500 / d2;
      a.dx += dx * f; a.dy += dy * f; b.dx -= dx * f; b.dy -= dy * f;
    }
    for (const e of edges) {
      const a = nodes[index.get(e.source)], b = nodes[index.get(e.target)];
      const dx = b.x - a.x, dy = b.y - a.y, d = Math.max(Math.hypot(dx, dy), 1), f = (d - 55) / d * 0.08;
      a.dx += dx * f; a.dy += dy * f; b.dx -= dx * f; b.dy -= dy * f;
    }
    nodes.forEach((n, i) => {
      if (i === 0) return;
      n.x = Math.min(width - 20, Math.max(20, n.x + Math.max(-10, Math.min(10, n.dx)) * cooling));
      n.y = Math.min(height - 12, Math.max(12, n.y + Math.max(-10, Math.min(10, n.dy)) * cooling));
    });
  }
}

function drawGraph(hood) {
  const svg = $("#graph");
  const nodes = hood.entities.map((e) => ({ id: e.id, name: e.name }));
  layout(nodes, hood.relations, 420, 360);
  const at = new Map(nodes.map((n) => [n.id, n]));
  const parts = [];
  for (const r of hood.relations) {
    const a = at.get(r.source), b = at.get(r.target);
    const line = document.createElementNS(SVG, "line");
    Object.entries({ x1: a.x, y1: a.y, x2: b.x, y2: b.y }).forEach(([k, v]) => line.setAttribute(k, v.toFixed(1)));
    line.append(Object.assign(document.createElementNS(SVG, "title"), { textContent: r.label + ": " + r.description }));
    parts.push(line);
  }
  for (const n of nodes) {
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("cx", n.x.toFixed(1)); circle.setAttribute("cy", n.y.toFixed(1));
    circle.setAttribute("r", n.id === hood.center ? 8 : 6);
    circle.setAttribute("data-entity", n.id);
    if (n.id === hood.center) circle.setAttribute("class", "center");
    circle.addEventListener("click", () => openEntity(n.id));
    circle.append(Object.assign(document.createElementNS(SVG, "title"), { textContent: n.name }));
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", (n.x + 9).toFixed(1)); label.setAttribute("y", (n.y + 3).toFixed(1));
    label.textContent = n.name.length > 24 ? n.name.slice(0, 23) + "…" : n.name;
    parts.push(circle, label);
  }
  svg.replaceChildren(...parts);
}

async function openEntity(id) {
  try {
    const hood = await api(ws(`/graph/entities/${encodeURIComponent(id)}/neighbourhood?limit=40`));
    const center = hood.entities.find((e) => e.id === hood.center);
    $("#graph-title").textContent = `${center.name} (${center.type}) · ${hood.entities.length - 1} neighbours` + (hood.truncated ? " (cut)" : "");
    $("#entity-detail").replaceChildren(el("p", {}, center.description));
    drawGraph(hood);
  } catch (err) { $("#graph-title").textContent = err.message; }
}

async function searchEntities(event) {
  event.preventDefault();
  const q = $("#entity-query").value.trim();
  if (!q) return;
  const found = await api(ws(`/graph/entities?q=${encodeURIComponent(q)}&limit=15`));
  $("#entity-results").replaceChildren(...found.map((e) =>
    el("li", { class: "chip entity", "data-entity": e.id, onclick: () => openEntity(e.id) }, `${e.name} (${e.degree})`)));
}

function jobNode(job) {
  const stage = job.stages.length ? job.stages[job.stages.length - 1] : null;
  const bar = el("progress", {});
  if (stage && stage.total) { bar.max = stage.total; bar.value = stage.done; }
  const label = `${job.kind} ${job.state}` + (stage ? ` · ${stage.stage} ${stage.done}/${stage.total ?? "?"}` : "") + (job.error ? ` · ${job.error}` : "");
  const node = el("div", { class: "job", "data-state": job.state }, el("div", {}, label));
  if (job.state === "running" || job.state === "queued") {
    node.append(bar, el("button", { type: "button", onclick: () => api(ws(`/jobs/${job.id}/cancel`), { method: "POST" }).then(refreshJobs) }, "cancel"));
  }
  return node;
}

async function refreshJobs() {
  const jobs = await api(ws("/jobs"));
  $("#jobs").replaceChildren(...jobs.slice(0, 3).map(jobNode));
  const running = jobs.some((j) => j.state === "running" || j.state === "queued");
  clearTimeout(jobTimer);
  if (running) jobTimer = setTimeout(refreshJobs, 1000); else if (jobs.length) refreshDocuments();
}

async function upload(event) {
  event.preventDefault();
  const files = $("#files").files;
  if (!files.length) return;
  const form = new FormData();
  for (const f of files) form.append("files", f);
  try {
    const result = await api(ws("/documents"), { method: "POST", body: form });
    showStatus(`uploaded ${result.files.length} file(s)` + (result.skipped.length ? `, skipped ${result.skipped.length}` : ""));
    await refreshJobs();
  } catch (err) { showStatus(err.message); }
}

document.addEventListener("DOMContentLoaded", () => {
  $("#ask").addEventListener("submit", ask);
  $("#entity-search").addEventListener("submit", searchEntities);
  $("#upload").addEventListener("submit", upload);
  $("#set-key").addEventListener("click", () => {
    const entered = prompt("API key (kept in this tab only):");
    if (entered !== null) { sessionStorage.setItem("kgrag-key", entered); loadWorkspaces().catch((e) => showStatus(e.message)); }
  });
  loadWorkspaces().catch((err) => showStatus(err.message));
});
