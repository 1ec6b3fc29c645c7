// The passage viewer: one chunk in full (a modal <dialog>, Esc closes it) with its source title, file and
// section, split into sentences; the sentence that best matches `hint` (the answer sentence that cited it)
// is highlighted and scrolled to.

import { $, api, el, ws } from "./api.js";

const WORD = /[\p{L}\p{N}]{3,}/gu;
const words = (text) => new Set((String(text).toLowerCase().match(WORD) || []));

function fallbackSentences(text) {
  const out = [];
  const pattern = /[^.!?\n]+(?:[.!?]+|\n|$)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[0].trim()) out.push({ start: match.index, end: match.index + match[0].length });
  }
  return out.length ? out : [{ start: 0, end: text.length }];
}

function bestSentence(text, sentences, hint) {
  // The sentence holding most of the hint's words; among equals, the one with fewest other words. Scoring
  // by the hint's share (not the shorter side's) keeps a two-word heading from beating the sentence itself.
  if (!hint) return -1;
  const wanted = words(hint);
  if (!wanted.size) return -1;
  let best = -1;
  let bestScore = 0;
  let bestDice = 0;
  sentences.forEach((s, i) => {
    const have = words(text.slice(s.start, s.end));
    let shared = 0;
    for (const w of wanted) if (have.has(w)) shared++;
    const score = shared / wanted.size;
    const dice = (2 * shared) / (wanted.size + have.size);
    if (score > bestScore || (score === bestScore && dice > bestDice)) {
      best = i;
      bestScore = score;
      bestDice = dice;
    }
  });
  return bestScore >= 0.3 ? best : -1;
}

async function load(chunkId, fallback) {
  try {
    return await api(ws(`/passages/${encodeURIComponent(chunkId)}`));
  } catch (err) {
    if (!fallback) throw err;
    return { id: chunkId, text: fallback.text || "", source_name: fallback.source || "", title: "", section: "",
      sentences: null, partial: Boolean(fallback.excerpt) };
  }
}

function header(passage) {
  const page = passage.page ? `page ${passage.page_label || passage.page}` : "";  // as printed ("iii", "12")
  const where = [passage.title, passage.source_name, passage.section, page].filter(Boolean);
  return el("div", { class: "passage-meta" },
    el("strong", {}, where[0] || passage.id),
    where.length > 1 ? el("span", { class: "muted" }, " · " + where.slice(1).join(" · ")) : null,
    el("div", { class: "muted mono" }, passage.id));
}

export async function openPassage(chunkId, { hint = "", fallback = null } = {}) {
  const dialog = $("#passage-dialog");
  const body = $("#passage-body");
  body.replaceChildren(el("p", { class: "muted" }, "loading…"));
  if (!dialog.open) dialog.showModal();
  let passage;
  try {
    passage = await load(chunkId, fallback);
  } catch (err) {
    body.replaceChildren(el("p", { class: "error" }, err.message));
    return;
  }
  const text = passage.text || "";
  const sentences = passage.sentences && passage.sentences.length ? passage.sentences : fallbackSentences(text);
  const highlighted = bestSentence(text, sentences, hint);
  const full = el("div", { class: "passage-text", tabindex: "0" });
  let at = 0;
  sentences.forEach((s, i) => {
    if (s.start > at) full.append(document.createTextNode(text.slice(at, s.start)));
    full.append(el("span", { class: "sentence" + (i === highlighted ? " hl" : ""), "data-index": i }, text.slice(s.start, s.end)));
    at = s.end;
  });
  if (at < text.length) full.append(document.createTextNode(text.slice(at)));
  const note = passage.partial ? el("p", { class: "muted" }, "(excerpt: the full passage could not be loaded)") : null;
  body.replaceChildren(...[header(passage), note, full].filter(Boolean));
  const mark = $(".sentence.hl", body);
  if (mark) mark.scrollIntoView({ block: "center" });
}

export function initPassageDialog() {
  const dialog = $("#passage-dialog");
  $("#passage-close").addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
}
