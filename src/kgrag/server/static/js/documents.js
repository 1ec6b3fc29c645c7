// Documents: the table of what the workspace holds (status with the reason of a failure, chunks,
// entities, the name as uploaded), delete after showing what would go, re-index, upload by drag and drop
// or the file picker with every refused file named with why, and each job's progress per stage.

import { $, api, el, on, status, ws } from "./api.js";

let jobTimer = null;
let picked = [];

function statusCell(doc) {
  const kind = doc.status === "indexed" ? "ok" : doc.status === "failed" ? "bad" : "wait";
  return el("td", {}, el("span", { class: `badge ${kind}` }, doc.status),
    doc.error ? el("div", { class: "reason" }, doc.error) : null);
}

function row(doc) {
  const name = doc.source_name || doc.name || doc.id;
  return el("tr", { "data-doc": doc.id },
    el("td", {}, el("div", {}, name), doc.title && doc.title !== name ? el("div", { class: "muted" }, doc.title) : null),
    statusCell(doc),
    el("td", { class: "num" }, doc.chunks ?? "–"),
    el("td", { class: "num" }, doc.entities ?? "–"),
    el("td", { class: "actions" },
      el("button", { type: "button", class: "reindex", onclick: () => reindex(doc) }, "Re-index"),
      el("button", { type: "button", class: "delete danger", onclick: () => remove(doc) }, "Delete")));
}

export async function refreshDocuments() {
  const data = await api(ws("/documents"));
  const counts = Object.entries(data.counts).map(([k, v]) => `${v} ${k}`).join(", ") || "no documents";
  $("#doc-summary").textContent = `${counts} · ${data.chunks} chunks`;
  $("#documents tbody").replaceChildren(...(data.documents.length ? data.documents.map(row)
    : [el("tr", {}, el("td", { colspan: "5", class: "muted" }, "No documents yet: upload some above."))]));
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
  } catch (err) {
    status(err.message, "error");
  }
  await refreshDocuments();
}

async function reindex(doc) {
  try {
    await api(ws(`/documents/${encodeURIComponent(doc.id)}/reindex`), { method: "POST" });
    status(`re-indexing ${doc.source_name || doc.name}`);
    await refreshJobs();
  } catch (err) {
    status(err.message, "error");
  }
}

function stageNode(stage) {
  const bar = el("progress", { "aria-label": stage.stage });
  if (stage.total) { bar.max = stage.total; bar.value = stage.done; }
  return el("div", { class: "stage" }, el("span", {}, `${stage.stage} ${stage.done}/${stage.total ?? "?"}`), bar);
}

function jobNode(job) {
  const running = job.state === "running" || job.state === "queued";
  const node = el("div", { class: "job", "data-state": job.state, "data-job": job.id },
    el("div", {}, el("strong", {}, job.kind), ` ${job.state}`, job.error ? el("span", { class: "error" }, ` · ${job.error}`) : null),
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
  on("show:documents", () => refreshJobs().catch((err) => status(err.message, "error")));
}
