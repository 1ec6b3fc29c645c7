// What backs each sentence of an answer (the `sentences` of a query result): cited by the model, cited by
// it with a passage that does not support it (miscited), attributed by kgrag to a passage (the model cited
// none for it), or unsupported by any passage. Shown unless every sentence is cited and supported; every
// text is set as text, never parsed as markup.

import { el } from "./api.js";

const LABEL = { cited: "cited", miscited: "cited, not supported", attributed: "attributed", unsupported: "unsupported" };

export function supportNode(result, openPassage) {
  const sentences = result.sentences || [];
  if (!sentences.length || sentences.every((s) => s.status === "cited")) return null;
  const rows = sentences.map((s) => el("li", { class: `support ${s.status}`, "data-status": s.status },
    el("span", { class: `badge ${s.status}`, title: s.score !== null && s.score !== undefined ? `support ${s.score}` : "" }, LABEL[s.status] || s.status),
    " ", s.text, " ",
    ...(s.passages || []).map((id) => el("button", { type: "button", class: "link", "data-chunk": id,
      onclick: () => openPassage(id, { hint: s.text }) }, id))));
  return el("details", { class: "support-list", open: true },
    el("summary", {}, "support per sentence (the model cited only some of them, or cited a passage that does not support one)"),
    el("ul", {}, rows));
}
