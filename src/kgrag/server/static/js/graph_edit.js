// Hand edits from the explorer's panel: rename an entity, rewrite its description, merge another entity
// into it, split a merged name back out, delete a relation. Each is POST /graph/edits: logged, undoable (`kgrag graph undo-denoise`) and
// kept when documents are indexed again. A refusal (no such entity, a running job) shows in the panel.

import { api, el, ws } from "./api.js";

async function send(op, target, value, result) {
  result.replaceChildren(el("span", { class: "muted" }, "saving…"));
  try {
    const entry = await api(ws("/graph/edits"), { method: "POST", json: { op, target, value } });
    result.replaceChildren(el("span", { class: "ok" }, `saved (${entry.op}, run ${entry.run_id}; undo with kgrag graph undo-denoise)`));
    return entry;
  } catch (err) {
    result.replaceChildren(el("span", { class: "error", role: "alert" }, err.message));
    return null;
  }
}

function form(label, field, button, submit) {
  return el("form", { class: "edit-form", onsubmit: (event) => { event.preventDefault(); submit(); } },
    el("label", {}, label, field), el("button", { type: "submit" }, button));
}

// The "Edit" section of an entity's panel; `edited` is told what changed so the drawing follows.
export function editEntity(entity, { edited }) {
  const result = el("div", { class: "edit-result", "aria-live": "polite" });
  const name = el("input", { type: "text", class: "edit-name", value: entity.name, maxlength: "200", required: true });
  const description = el("textarea", { class: "edit-description", rows: "4", maxlength: "20000" }, entity.description || "");
  const other = el("input", { type: "text", class: "edit-merge", placeholder: "name or id of the entity to fold in", required: true });
  return el("details", { class: "panel-section edit" }, el("summary", {}, "Edit"),
    form("name ", name, "Rename", async () => {
      if (await send("rename", entity.id, name.value, result)) await edited({ name: name.value.trim() });
    }),
    form("description ", description, "Save description", async () => {
      if (await send("describe", entity.id, description.value, result)) await edited({});
    }),
    form("merge into this ", other, "Merge", async () => {
      const entry = await send("merge", entity.id, other.value.trim(), result);
      if (entry) await edited({ removed: entry.merged_id || null });
    }),
    splitForm(entity, result, edited),
    result);
}

// Names merged into the entity (by denoising or by hand), each of which a split makes an entity again.
function splitForm(entity, result, edited) {
  const merged = entity.merged || [];
  if (!merged.length) return null;
  const choice = el("select", { class: "edit-split" }, merged.map((name) => el("option", { value: name }, name)));
  return form("take back out ", choice, "Split", async () => {
    const entry = await send("split", entity.id, choice.value, result);
    if (entry) await edited({ added: entry.split_id || null });
  });
}

export function relationActions(relation, { deleted }) {
  const result = el("div", { class: "edit-result", "aria-live": "polite" });
  return el("div", { class: "actions" },
    el("button", { type: "button", class: "danger delete-relation", onclick: async () => {
      if (await send("delete-relation", relation.id, "", result)) deleted();
    } }, "Delete relation"), result);
}
