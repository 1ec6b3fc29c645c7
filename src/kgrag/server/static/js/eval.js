// Evaluation: the stored runs; per run a table per metric (pipelines × question types, mean ± std and the
// 95% interval when the report has one), quality against cost as an interactive plot, pairwise results
// with their intervals, a per-question drill-down (question, reference, each pipeline's answer and
// context), and a form that starts a retrieval evaluation on an uploaded question file.

import { $, api, el, formatNumber, latest, on, status, ws } from "./api.js";
import { scatter } from "./plot.js";

let current = null;
// runs and questions clicked in quick succession: only the answer to the last click draws
const runRequests = latest();
const questionRequests = latest();

function interval(stat) {
  const ci = stat && (stat.ci95 || stat.ci);
  if (!ci) return null;
  const lo = Array.isArray(ci) ? ci[0] : (ci.low ?? ci.lo ?? ci.lower);
  const hi = Array.isArray(ci) ? ci[1] : (ci.high ?? ci.hi ?? ci.upper);
  return lo === undefined || hi === undefined ? null : [Number(lo), Number(hi)];
}

// mean, ± the spread over runs (only when there were several), and the 95% interval over questions.
function cell(stat) {
  if (!stat || stat.mean === null || stat.mean === undefined) return el("td", { class: "num muted" }, "–");
  const ci = interval(stat);
  const spread = stat.std !== null && stat.std !== undefined && (stat.runs ?? 1) > 1 ? ` ± ${formatNumber(stat.std)}` : "";
  return el("td", { class: "num", title: `n = ${stat.n}, runs = ${stat.runs ?? 1}, unmeasured = ${stat.unmeasured ?? 0}` },
    `${formatNumber(stat.mean)}${spread}`,
    ci ? el("div", { class: "ci" }, `[${formatNumber(ci[0])}, ${formatNumber(ci[1])}]`) : null);
}

// Paired differences against the run's baseline (pipeline − baseline on the same questions), when the
// report holds them: a difference whose interval excludes 0 is marked.
function pairedBlock(stats) {
  const paired = stats && stats.paired;
  if (!paired || !Object.keys(paired).length) return null;
  const diff = (c) => {
    if (!c || c.mean === null || c.mean === undefined) return el("td", { class: "num muted" }, "–");
    const ci = interval(c);
    const clear = ci && (ci[0] > 0 || ci[1] < 0);
    return el("td", { class: "num" + (clear ? " sig" : "") }, `${c.mean >= 0 ? "+" : ""}${formatNumber(c.mean)}`,
      ci ? el("div", { class: "ci" }, `[${formatNumber(ci[0])}, ${formatNumber(ci[1])}]`) : null);
  };
  return el("section", { class: "card paired" }, el("h3", {}, `Paired differences against ${stats.baseline || "the baseline"}`),
    ...Object.entries(paired).map(([metric, rows]) => el("div", { class: "scroll" }, el("table", { class: "table" },
      el("caption", {}, metric),
      el("thead", {}, el("tr", {}, el("th", {}, "pipeline"), el("th", { class: "num" }, "All"), el("th", { class: "num" }, "Macro"))),
      el("tbody", {}, Object.entries(rows).map(([name, cells]) => el("tr", {}, el("th", { scope: "row" }, name), diff(cells.All), diff(cells.Macro))))))));
}

// The summary maps pipeline → metric → question type → stats; other top-level keys (e.g. `paired`) are not pipelines.
function pipelinesOf(summary) {
  return Object.keys(summary).filter((name) => {
    const metrics = summary[name];
    return metrics && typeof metrics === "object" && Object.values(metrics).some((m) => m && typeof m === "object" && "All" in m);
  });
}

function metricTables(summary, pipelines) {
  const metrics = [...new Set(pipelines.flatMap((p) => Object.keys(summary[p])))];
  return metrics.map((metric) => {
    const types = [...new Set(pipelines.flatMap((p) => Object.keys(summary[p][metric] || {})))];
    types.sort((a, b) => (["All", "Macro"].indexOf(a) - ["All", "Macro"].indexOf(b)) || a.localeCompare(b));
    return el("details", { class: "metric", open: !metric.startsWith("cost.") },
      el("summary", {}, metric),
      el("div", { class: "scroll" }, el("table", { class: "table" },
        el("thead", {}, el("tr", {}, el("th", {}, "pipeline"), types.map((t) => el("th", { class: "num" }, t)))),
        el("tbody", {}, pipelines.map((p) => el("tr", {}, el("th", { scope: "row" }, p), types.map((t) => cell((summary[p][metric] || {})[t]))))))));
  });
}

function plotBlock(summary, pipelines) {
  const metrics = [...new Set(pipelines.flatMap((p) => Object.keys(summary[p])))];
  const costs = metrics.filter((m) => m.startsWith("cost."));
  const quality = metrics.filter((m) => !m.startsWith("cost."));
  if (!costs.length || !quality.length) return null;
  const ySelect = el("select", { "aria-label": "quality metric" }, quality.map((m) => new Option(m, m)));
  const xSelect = el("select", { "aria-label": "cost" }, costs.map((m) => new Option(m, m)));
  if (costs.includes("cost.context_tokens")) xSelect.value = "cost.context_tokens";
  const holder = el("div", { class: "plot-holder" });
  const redraw = () => {
    const points = pipelines.map((p) => {
      const y = (summary[p][ySelect.value] || {}).All;
      const x = (summary[p][xSelect.value] || {}).All;
      if (!y || !x) return null;
      const ci = interval(y);
      return { label: p, x: Number(x.mean), y: Number(y.mean), ...(ci ? { yLow: ci[0], yHigh: ci[1] } : {}) };
    }).filter(Boolean);
    holder.replaceChildren(scatter(points, { xLabel: xSelect.value, yLabel: ySelect.value }));
  };
  ySelect.addEventListener("change", redraw);
  xSelect.addEventListener("change", redraw);
  redraw();
  return el("section", { class: "card" }, el("h3", {}, "Quality against cost (all questions)"),
    el("div", { class: "toolbar" }, el("label", {}, "y ", ySelect), el("label", {}, "x ", xSelect)), holder);
}

// Anything else the report holds (paired differences, pairwise win rates): a generic table per object,
// intervals shown where a value has one.
function genericBlock(title, value, depth = 0) {
  if (value === null || typeof value !== "object") return el("span", {}, typeof value === "number" ? formatNumber(value) : String(value));
  const ci = interval(value);
  if (Array.isArray(value)) {
    if (value.length === 2 && value.every((v) => typeof v === "number")) return el("span", {}, `[${formatNumber(value[0])}, ${formatNumber(value[1])}]`);
    return el("ol", {}, value.slice(0, 50).map((v) => el("li", {}, genericBlock("", v, depth + 1))));
  }
  const rows = Object.entries(value).filter(([k]) => !["ci95", "ci"].includes(k)).map(([k, v]) =>
    el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, depth > 3 ? JSON.stringify(v) : genericBlock(k, v, depth + 1))));
  return el("div", {}, title && depth === 0 ? el("h3", {}, title) : null,
    ci ? el("div", { class: "ci" }, `95% interval [${formatNumber(ci[0])}, ${formatNumber(ci[1])}]`) : null,
    el("table", { class: "table compact kv" }, el("tbody", {}, rows)));
}

async function drillDown(runId, container, isLatest) {
  let questions;
  let provenance = true;
  try {
    const found = await api(ws(`/eval/runs/${encodeURIComponent(runId)}/questions`));
    if (!isLatest()) return;
    questions = Array.isArray(found) ? found : found.questions;
    provenance = Array.isArray(found) ? true : found.provenance;
  } catch (err) {
    if (isLatest()) container.replaceChildren(el("p", { class: "muted" }, `per-question results are not available: ${err.message}`));
    return;
  }
  const detail = el("div", { class: "question-detail" });
  const list = el("ul", { class: "questions" }, questions.map((q) => el("li", {},
    el("button", { type: "button", class: "link", "data-question": q.id, onclick: () => showQuestion(runId, q.id, detail) },
      `${q.type ? `[${q.type}] ` : ""}${q.question ?? q.id}`))));
  const note = provenance ? null : el("p", { class: "muted" }, "This run kept scores only: no question texts, answers or contexts.");
  container.replaceChildren(...[el("h3", {}, `Questions (${questions.length})`), note, el("div", { class: "drill" }, list, detail)].filter(Boolean));
}

async function showQuestion(runId, qid, detail) {
  const isLatest = questionRequests();
  detail.replaceChildren(el("p", { class: "muted" }, "loading…"));
  try {
    const q = await api(ws(`/eval/runs/${encodeURIComponent(runId)}/questions/${encodeURIComponent(qid)}`));
    if (!isLatest()) return;
    detail.replaceChildren(el("div", {},
      el("h4", {}, q.question ?? q.id), el("p", { class: "muted" }, q.type || ""),
      q.provenance === false ? el("p", { class: "muted" }, "This run kept scores only: no question text, answers or contexts.") : null,
      el("p", {}, el("strong", {}, "reference: "), q.reference || "–"),
      (q.evidence || []).length ? el("details", {}, el("summary", {}, "evidence"), el("ul", {}, q.evidence.map((e) => el("li", {}, e)))) : null,
      el("div", { class: "answers" }, Object.entries(q.pipelines || {}).map(([name, p]) => el("article", { class: "answer", "data-pipeline": name },
        el("h3", {}, name), el("p", {}, p.answer || "(retrieval only: no answer)"),
        el("p", { class: "muted scores" }, Object.entries(p.scores || {}).map(([k, v]) => `${k} ${Number.isInteger(v) ? v : formatNumber(v)}`).join(" · ")),
        el("p", { class: "muted" }, Object.entries(p.unmeasured || {}).map(([k, why]) => `${k}: ${why}`).join(" · ")),
        el("details", {}, el("summary", {}, `context (${(p.context || []).length})`),
          el("ol", { class: "passages" }, (p.context || []).map((c) => el("li", { class: "passage" },
            el("div", { class: "src mono" }, `${c.kind || ""} ${c.id}${c.score !== undefined && c.score !== null ? ` · ${formatNumber(c.score)}` : ""}`), el("div", {}, c.text))))))))));
  } catch (err) {
    if (isLatest()) detail.replaceChildren(el("p", { class: "error" }, err.message));
  }
}

async function openRun(runId) {
  current = runId;
  for (const item of document.querySelectorAll("#eval-runs button")) item.setAttribute("aria-current", String(item.dataset.run === runId));
  const box = $("#eval-detail");
  const isLatest = runRequests();
  box.replaceChildren(el("p", { class: "muted" }, "loading…"));
  try {
    const run = await api(ws(`/eval/runs/${encodeURIComponent(runId)}`));
    if (!isLatest()) return;
    const record = run.record;
    const summary = run.summary || {};
    const pipelines = pipelinesOf(summary);
    const plan = (record.payload && record.payload.plan) || {};
    const head = el("div", {}, el("h2", {}, record.id),
      el("p", { class: "muted" }, [record.kind, record.dataset, new Date(record.created_at * 1000).toLocaleString(),
        plan.mode, plan.k ? `k = ${plan.k}` : "", record.payload && record.payload.questions ? `${record.payload.questions} questions` : "", record.label].filter(Boolean).join(" · ")));
    const others = Object.keys(summary).filter((k) => !pipelines.includes(k));
    const questions = el("section", { class: "card" });
    const stats = run.stats || (record.payload && record.payload.stats) || null;
    const caveats = Array.isArray(run.caveats) ? run.caveats.map(String) : [];
    box.replaceChildren(...[head,
      ...caveats.map((text) => el("p", { class: "caveat", role: "note" }, text)),
      pipelines.length ? plotBlock(summary, pipelines) : null,
      pairedBlock(stats),
      ...(pipelines.length ? metricTables(summary, pipelines) : []),
      ...others.map((k) => el("section", { class: "card" }, genericBlock(k, summary[k]))),
      !pipelines.length && !others.length ? el("p", { class: "muted" }, "this run stored no summary") : null,
      questions].filter(Boolean));
    box.dataset.run = runId;
    await drillDown(runId, questions, isLatest);
  } catch (err) {
    if (isLatest()) box.replaceChildren(el("p", { class: "error" }, err.message));
  }
}

export async function refreshRuns(select = null) {
  const runs = await api(ws("/eval/runs"));
  $("#eval-runs").replaceChildren(...(runs.length ? runs.map((r) => el("li", {},
    el("button", { type: "button", class: "run", "data-run": r.id, onclick: () => openRun(r.id) },
      el("span", {}, r.id), el("span", { class: "muted" }, ` ${r.kind} · ${r.dataset || ""}${r.label ? " · " + r.label : ""}`))))
    : [el("li", { class: "muted" }, "No runs yet: start one below or with `kgrag eval run`.")]));
  const pick = select || current || (runs[0] && runs[0].id);
  if (pick && runs.some((r) => r.id === pick)) await openRun(pick);
}

async function watchJob(jobId) {
  for (;;) {
    const job = await api(ws(`/jobs/${encodeURIComponent(jobId)}`));
    const stage = (job.stages || []).at(-1);
    $("#eval-job").textContent = `${job.state}` + (stage ? ` · ${stage.stage} ${stage.done}/${stage.total ?? "?"}` : "") + (job.error ? ` · ${job.error}` : "");
    if (!["queued", "running"].includes(job.state)) return job;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function start(event) {
  event.preventDefault();
  const file = $("#eval-file").files[0];
  if (!file) return;
  const form = new FormData();
  form.append("file", file);
  if ($("#eval-pipelines").value.trim()) form.append("pipelines", $("#eval-pipelines").value.trim());
  if ($("#eval-k").value) form.append("k", $("#eval-k").value);
  try {
    const started = await api(ws("/eval/retrieval"), { method: "POST", body: form });
    const job = await watchJob(started.job_id || (started.job && started.job.id));
    const result = job.result || {};
    await refreshRuns(result.run_id || result.run || result.id || null);
  } catch (err) {
    $("#eval-job").textContent = err.message;
    status(err.message, "error");
  }
}

export function initEval() {
  $("#eval-start").addEventListener("submit", start);
  on("show:eval", () => refreshRuns().catch((err) => status(err.message, "error")));
  on("workspace", () => { current = null; $("#eval-detail").replaceChildren(el("p", { class: "muted" }, "Pick a run.")); });
}
