// Documents: the table of what the workspace holds (status with the reason of a failure, chunks,
// entities, the name as uploaded), delete after showing what would go, re-index, upload by drag and drop
// or the file picker with every refused file named with why, and each job's progress per stage.

import { $, api, el, latest, on, status, ws } from "./api.js";

let jobTimer = null;
let picked = [];
const table = { offset: 0, limit: 50, total: 0, selected: new Set() };
const tableRequests = latest(); // filters changed quickly send several requests: only the latest one draws

// A refusal (409 while a job runs, a file gone) is said in the view itself, next to what was clicked.
function problem(err) {
  $("#doc-error").replaceChildren(err ? el("p", { class: "error", role: "alert" }, err.message || String(err)) : "");
  if (err) status(err.message || String(err), "error");
}

function statusCell(doc) {
  const kind = doc.status === "indexed" ? "ok" : doc.status === "failed" ? "bad" : "wait";
  return el("td", {}, el("span", { class: `badge ${kind}` }, doc.status),
    doc.error ? el("div", { class: "reason" }, doc.error) : null);
}

function row(doc) {
  const name = doc.source_name || doc.name || doc.id;
  const box = el("input", { type: "checkbox", class: "pick", "aria-label": `select ${name}`, checked: table.selected.has(doc.id),
    onchange: (event) => { if (event.target.checked) table.selected.add(doc.id); else table.selected.delete(doc.id); selection(); } });
  return el("tr", { "data-doc": doc.id },
    el("td", {}, box),
    el("td", {}, el("div", {}, name), doc.title && doc.title !== name ? el("div", { class: "muted" }, doc.title) : null),
    statusCell(doc),
    el("td", { class: "num" }, doc.chunks ?? "–"),
    el("td", { class: "num" }, doc.entities ?? "–"),
    el("td", { class: "actions" },
      el("button", { type: "button", class: "reindex", onclick: () => reindex(doc) }, "Re-index"),
      el("button", { type: "button", class: "delete danger", onclick: () => remove(doc) }, "Delete")));
}

function query() {
  const params = new URLSearchParams({ offset: String(table.offset), limit: String(table.limit), sort: $("#doc-sort").value });
  if ($("#doc-desc").checked) params.set("descending", "true");
  if ($("#doc-state").value) params.set("state", $("#doc-state").value);
  if ($("#doc-q").value.trim()) params.set("q", $("#doc-q").value.trim());
  return params.toString();
}

function selection() {
  const count = table.selected.size;
  $("#doc-delete-selected").disabled = !count;
  $("#doc-delete-selected").textContent = `Delete selected (${count})`;
}

export async function refreshDocuments() {
  const isLatest = tableRequests();
  const data = await api(ws(`/documents?${query()}`));
  if (!isLatest()) return; // an answer to filters already changed again: a newer one draws
  table.total = data.total ?? data.documents.length;
  const counts = Object.entries(data.counts).map(([k, v]) => `${v} ${k}`).join(", ") || "no documents";
  $("#doc-summary").textContent = `${counts} · ${data.chunks} chunks`;
  const first = data.documents.length ? table.offset + 1 : 0;
  $("#doc-page").textContent = `${first}–${table.offset + data.documents.length} of ${table.total}`;
  $("#doc-prev").disabled = table.offset <= 0;
  $("#doc-next").disabled = table.offset + table.limit >= table.total;
  $("#documents tbody").replaceChildren(...(data.documents.length ? data.documents.map(row)
    : [el("tr", {}, el("td", { colspan: "6", class: "muted" }, table.total || data.counts && Object.keys(data.counts).length
      ? "No document matches these filters." : "No documents yet: upload some above."))]));
  $("#doc-all").checked = data.documents.length > 0 && data.documents.every((d) => table.selected.has(d.id));
  selection();
}

async function deleteSelected() {
  const ids = [...table.selected];
  if (!ids.length) return;
  problem(null);
  let plan;
  try {
    plan = await api(ws("/documents/delete"), { method: "POST", json: { ids, dry_run: true } });
  } catch (err) { problem(err); return; }
  const lines = [`${plan.documents} documents`, `${plan.chunks} chunks`,
    `${plan.entities} entities and ${plan.relations} relations found only in them`];
  if (plan.communities_stale) lines.push("communities and their reports become stale until `kgrag graph communities` runs again");
  if (!(await confirmDialog(`Delete ${plan.documents} documents?`, lines, "Delete"))) return;
  try {
    const done = await api(ws("/documents/delete"), { method: "POST", json: { ids, dry_run: false } });
    status(`deleted ${done.removed.length} document(s)`);
    table.selected.clear();
  } catch (err) { problem(err); }
  await refreshDocuments();
}

function confirmDialog(title, lines, action) {
  const dialog = $("#confirm-dialog");
  $("#confirm-title").textContent = title;
  $("#confirm-body").replaceChildren(el("ul", {}, lines.map((l) => el("li", {}, l))));
  $("#confirm-ok").textContent = action;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

async function remove(doc) {
  const name = doc.source_name || doc.name || doc.id;
  let lines = [`the document “${name}”`];
  try {
    const plan = await api(ws(`/documents/${encodeURIComponent(doc.id)}?dry_run=true`), { method: "DELETE" });
    if (plan && plan.chunks !== undefined) {
      lines = [`the document “${name}”`, `${plan.chunks} chunks`, `${plan.entities} entities and ${plan.relations} relations found only in it`];
      if (plan.communities_stale) lines.push("communities and their reports become stale until `kgrag graph communities` runs again");
    } else {
      lines.push("(this server cannot say what else goes)");
    }
  } catch (err) {
    lines.push(`(what else goes is unknown: ${err.message})`);
  }
  if (!(await confirmDialog(`Delete ${name}?`, lines, "Delete"))) return;
  try {
    await api(ws(`/documents/${encodeURIComponent(doc.id)}`), { method: "DELETE" });
    status(`deleted ${name}`);
    problem(null);
  } catch (err) {
    problem(err);
  }
  await refreshDocuments();
}

async function reindex(doc) {
  try {
    await api(ws(`/documents/${encodeURIComponent(doc.id)}/reindex`), { method: "POST" });
    status(`re-indexing ${doc.source_name || doc.name}`);
    problem(null);
    await refreshJobs();
  } catch (err) {
    problem(err);
  }
}

function stageNode(stage) {
  const bar = el("progress", { "aria-label": stage.stage });
  if (stage.total) { bar.max = stage.total; bar.value = stage.done; }
  return el("div", { class: "stage" }, el("span", {}, `${stage.stage} ${stage.done}/${stage.total ?? "?"}`), bar);
}

// One line about a finished job: an index job's own summary; an evaluation's run and its size (its
// `summary` is the run's scores, an object, not a line).
function jobSummary(result) {
  if (!result) return "";
  if (typeof result.summary === "string") return result.summary;
  if (!result.run_id) return "";
  const questions = result.questions === undefined ? "" : ` · ${result.questions} question${result.questions === 1 ? "" : "s"}`;
  return `run ${result.run_id}${questions}`;
}

function jobNode(job) {
  const running = job.state === "running" || job.state === "queued";
  const outcome = job.result && job.result.outcome; // a job that indexed some files and not others is partial
  const shown = job.state === "succeeded" && outcome === "partial" ? "partial" : job.state;
  const said = jobSummary(job.result);
  const summary = said ? el("span", { class: shown === "partial" ? "error" : "muted" }, ` · ${said}`) : null;
  const node = el("div", { class: "job", "data-state": shown, "data-job": job.id },
    el("div", {}, el("strong", {}, job.kind), " ", el("span", { class: `badge ${shown === "succeeded" ? "ok" : shown === "running" || shown === "queued" ? "wait" : "bad"}` }, shown),
      summary, job.error ? el("span", { class: "error" }, ` · ${job.error}`) : null),
    ...(job.stages || []).map(stageNode));
  const problems = (job.result && job.result.problems) || [];
  if (problems.length) node.append(el("ul", { class: "problems" }, problems.map((p) => el("li", {}, `${p.name}: ${p.reason}`))));
  if (running) {
    node.append(el("button", { type: "button", onclick: () => api(ws(`/jobs/${job.id}/cancel`), { method: "POST" }).then(refreshJobs) }, "Cancel"));
  }
  return node;
}

export async function refreshJobs() {
  const jobs = await api(ws("/jobs"));
  $("#jobs").replaceChildren(...jobs.slice(0, 4).map(jobNode));
  const running = jobs.some((j) => j.state === "running" || j.state === "queued");
  clearTimeout(jobTimer);
  if (running) jobTimer = setTimeout(() => refreshJobs().catch(() => {}), 800);
  await refreshDocuments();
}

function resultLines(result) {
  // The contract's shape ({files:[{name, status, reason}]}) and the older one ({files, skipped}).
  const lines = (result.files || []).map((f) => {
    const refused = f.status === "refused";
    return el("li", { class: refused ? "refused" : "accepted" }, `${f.name}: ${refused ? "refused — " + (f.reason || "no reason given") : "accepted"}`);
  });
  for (const s of result.skipped || []) {
    lines.push(el("li", { class: "refused" }, typeof s === "string" ? `${s}: skipped` : `${s.name}: refused — ${s.reason}`));
  }
  return lines;
}

async function upload() {
  if (!picked.length) { status("choose or drop files first", "error"); return; }
  const form = new FormData();
  for (const file of picked) form.append("files", file);
  $("#upload-result").replaceChildren(el("p", { class: "muted" }, `uploading ${picked.length} file(s)…`));
  try {
    const result = await api(ws("/documents"), { method: "POST", body: form });
    const accepted = (result.files || []).filter((f) => f.status !== "refused").length;
    $("#upload-result").replaceChildren(el("p", {}, `uploaded ${accepted} file(s)`), el("ul", {}, resultLines(result)));
    status(`uploaded ${accepted} file(s)`);
    picked = [];
    $("#files").value = "";
    await refreshJobs();
  } catch (err) {
    $("#upload-result").replaceChildren(el("p", { class: "error" }, err.message));
  }
}

function pick(files) {
  picked = [...files];
  $("#upload-result").replaceChildren(el("p", {}, `${picked.length} file(s) ready: ${picked.map((f) => f.name).join(", ")}`));
}

export function initDocuments() {
  const drop = $("#drop");
  $("#files").addEventListener("change", (event) => pick(event.target.files));
  $("#upload-button").addEventListener("click", upload);
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    pick(event.dataTransfer.files);
  });
  drop.addEventListener("keydown", (event) => { if (event.key === "Enter" && event.target === drop) $("#files").click(); });
  on("show:documents", () => refreshJobs().catch(problem));
  const again = () => { table.offset = 0; refreshDocuments().catch(problem); };
  for (const id of ["#doc-state", "#doc-sort", "#doc-desc"]) $(id).addEventListener("change", again);
  $("#doc-filters").addEventListener("submit", (event) => { event.preventDefault(); again(); });
  $("#doc-prev").addEventListener("click", () => { table.offset = Math.max(0, table.offset - table.limit); refreshDocuments().catch(problem); });
  $("#doc-next").addEventListener("click", () => { table.offset += table.limit; refreshDocuments().catch(problem); });
  $("#doc-all").addEventListener("change", (event) => {
    for (const box of document.querySelectorAll("#documents tbody input.pick")) {
      box.checked = event.target.checked;
      const id = box.closest("tr").dataset.doc;
      if (event.target.checked) table.selected.add(id); else table.selected.delete(id);
    }
    selection();
  });
  $("#doc-delete-selected").addEventListener("click", () => deleteSelected().catch(problem));
  on("workspace", () => { table.offset = 0; table.selected.clear(); });
}
