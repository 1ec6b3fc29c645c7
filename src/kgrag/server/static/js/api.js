// Talking to this server's /v1 API, building DOM nodes, and the app's shared state.
// Nothing here (or anywhere in the app) assigns document or model text as HTML: every text goes
// through createTextNode / textContent.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

export const state = {
  workspace: "",
  settings: null, // {default_pipeline, compare_pipelines, pipelines:[{name, available, reason, description}]}
  ready: Promise.resolve(), // settles when `settings` belongs to `workspace`
};

// el("a", {href: "#x", class: "c", onclick: fn}, "text", childNode)
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "checked" || key === "disabled" || key === "value" || key === "selected") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Numbers a view's requests of one kind, so that only the answer to the latest may draw: answers can come
// back in any order, and an earlier one arriving last would show what the user no longer asked for.
//   const runRequests = latest();  …  const isLatest = runRequests(); await api(…); if (!isLatest()) return;
export function latest() {
  let counter = 0;
  return () => {
    const mine = ++counter;
    return () => mine === counter;
  };
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(path, options = {}) {
  // X-Kgrag-Request marks the call as this page's: the server refuses writes a cross-site form could forge.
  const headers = Object.assign({ "X-Kgrag-Request": "1" }, options.headers || {});
  const key = sessionStorage.getItem("kgrag-key");
  if (key) headers.Authorization = "Bearer " + key;
  const init = Object.assign({}, options, { headers });
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
    delete init.json;
  }
  const response = await fetch(path, init);
  if (response.status === 401 && !options.retried) {
    const entered = prompt("This server needs an API key (kept in this tab only):");
    if (entered) {
      sessionStorage.setItem("kgrag-key", entered);
      return api(path, Object.assign({}, options, { retried: true }));
    }
  }
  const isJson = (response.headers.get("content-type") || "").includes("json");
  const data = isJson ? await response.json() : await response.text();
  if (!response.ok) {
    const message = (data && data.error && data.error.message) || response.statusText || `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return data;
}

export const ws = (path) => `/v1/workspaces/${encodeURIComponent(state.workspace)}${path}`;

export function status(text, kind = "") {
  const node = $("#status");
  node.textContent = text;
  node.dataset.kind = kind;
}

// A tiny event bus between views ("workspace", "show-in-graph", "open-entity").
const bus = new EventTarget();
export const on = (name, fn) => bus.addEventListener(name, (e) => fn(e.detail));
export const emit = (name, detail) => bus.dispatchEvent(new CustomEvent(name, { detail }));

export function formatNumber(value, digits = 3) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return "–";
  const n = Number(value);
  return Math.abs(n) >= 1000 ? n.toFixed(0) : n.toFixed(digits);
}

export function showError(container, err) {
  container.replaceChildren(el("p", { class: "error", role: "alert" }, err.message || String(err)));
}
