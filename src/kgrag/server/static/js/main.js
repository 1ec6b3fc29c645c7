// kgrag web app: plain ES modules served by kgrag, no build step, no framework. Four views behind tabs
// (the URL hash names the view), one workspace picker; views load their data when first shown and again
// when the workspace changes.

import { $, $$, api, emit, on, state, status } from "./api.js";
import { initAsk } from "./ask.js";
import { initDocuments } from "./documents.js";
import { initEval } from "./eval.js";
import { initGraph } from "./graph.js";
import { initPassageDialog } from "./passage.js";

const VIEWS = ["graph", "ask", "documents", "eval"];
const shown = new Set();

function currentView() {
  const name = location.hash.replace(/^#/, "");
  return VIEWS.includes(name) ? name : "graph";
}

function show(name, { focus = false } = {}) {
  for (const view of VIEWS) {
    const active = view === name;
    $(`#view-${view}`).hidden = !active;
    const tab = $(`#tab-${view}`);
    tab.setAttribute("aria-selected", String(active));
    tab.tabIndex = active ? 0 : -1;
    if (active && focus) tab.focus();
  }
  if (!shown.has(name) && state.workspace) {
    shown.add(name);
    emit(`show:${name}`);
  }
  emit("view", name);
}

function initTabs() {
  for (const tab of $$("nav [role=tab]")) {
    tab.addEventListener("click", () => { location.hash = tab.dataset.view; });
    tab.addEventListener("keydown", (event) => {
      const at = VIEWS.indexOf(tab.dataset.view);
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (step) {
        event.preventDefault();
        location.hash = VIEWS[(at + step + VIEWS.length) % VIEWS.length];
        show(currentView(), { focus: true });
      }
    });
  }
  addEventListener("hashchange", () => show(currentView()));
  on("go", (name) => { location.hash = name; });
}

async function loadSettings() {
  // The workspace's default and compare pipelines (GET /settings); older servers: /pipelines alone.
  try {
    state.settings = await api(`/v1/workspaces/${encodeURIComponent(state.workspace)}/settings`);
  } catch {
    const list = await api(`/v1/workspaces/${encodeURIComponent(state.workspace)}/pipelines`);
    state.settings = {
      default_pipeline: null,
      compare_pipelines: [],
      pipelines: list.map((p) => ({
        name: p.name, available: p.ready, description: p.description,
        reason: p.error || (p.requirements || []).filter((r) => !r.met).map((r) => r.message).join("; "),
      })),
    };
  }
}

// The k boxes say the workspace's default (retrieval.k) instead of a bare "default".
function showDefaults() {
  const k = state.settings && state.settings.k;
  for (const box of ["#k", "#eval-k"]) $(box).placeholder = k ? `default ${k}` : "default";
}

async function selectWorkspace(name) {
  state.workspace = name;
  shown.clear();
  state.ready = loadSettings(); // views that need the settings wait for it; the graph starts loading at once
  emit("workspace", name);
  show(currentView());
  await state.ready;
  showDefaults();
}

// A keyed server is asked for its key before anything else: /v1/health (no key needed) says whether keys
// are on, so the page never sends a keyless request that the server must refuse.
async function askKeyIfNeeded() {
  if (sessionStorage.getItem("kgrag-key")) return;
  const health = await api("/v1/health");
  if (!health.auth) return;
  const entered = prompt("This server needs an API key (kept in this tab only):");
  if (entered) sessionStorage.setItem("kgrag-key", entered);
}

async function loadWorkspaces() {
  await askKeyIfNeeded();
  const list = await api("/v1/workspaces");
  const select = $("#workspace");
  select.replaceChildren(...list.map((w) => new Option(w.name, w.name)));
  select.onchange = () => selectWorkspace(select.value).catch((err) => status(err.message, "error"));
  if (!list.length) { status("this key may use no workspace", "error"); return; }
  await selectWorkspace(list[0].name);
}

document.addEventListener("DOMContentLoaded", () => {
  initTabs();
  initPassageDialog();
  initGraph();
  initAsk();
  initDocuments();
  initEval();
  $("#set-key").addEventListener("click", () => {
    const entered = prompt("API key (kept in this tab only):");
    if (entered !== null) {
      sessionStorage.setItem("kgrag-key", entered);
      loadWorkspaces().catch((err) => status(err.message, "error"));
    }
  });
  show(currentView());
  loadWorkspaces().catch((err) => status(err.message, "error"));
});
