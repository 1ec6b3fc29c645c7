// A small, safe markdown renderer: it builds DOM nodes (text nodes only for content), never HTML strings,
// so nothing a document or a model wrote can become markup or script. Supported: paragraphs, headings,
// bullet and numbered lists, block quotes, fenced code, inline code, **bold**, *italic*, and citation
// markers [chunk-id] that become links through the `cite` callback. Links in the text are shown as text.

import { el } from "./api.js";

const CITATION = /\[([A-Za-z0-9_:.-]{3,80})\]/g;
const INLINE = /(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`)/;

function inline(text, cite, known) {
  // Split on citations first, then on emphasis and code; everything else is a text node.
  const out = [];
  let last = 0;
  for (const match of text.matchAll(CITATION)) {
    const id = match[1].replace(/^c:/, ""); // an LLM answer cites [c:ID], an extractive one [ID]
    if (known && !known.has(id)) continue;
    out.push(...emphasis(text.slice(last, match.index)));
    out.push(cite ? cite(id, sentenceAround(text, match.index)) : document.createTextNode(match[0]));
    last = match.index + match[0].length;
  }
  out.push(...emphasis(text.slice(last)));
  return out;
}

function emphasis(text) {
  const out = [];
  for (const part of text.split(INLINE)) {
    if (!part) continue;
    if (part.startsWith("**") && part.endsWith("**") && part.length > 4) out.push(el("strong", {}, part.slice(2, -2)));
    else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) out.push(el("code", {}, part.slice(1, -1)));
    else if (part.startsWith("*") && part.endsWith("*") && part.length > 2) out.push(el("em", {}, part.slice(1, -1)));
    else out.push(document.createTextNode(part));
  }
  return out;
}

function listItems(lines, pattern, cite, known) {
  return lines.map((line) => el("li", {}, ...inline(line.replace(pattern, ""), cite, known)));
}

// Render `source` into a DocumentFragment. `cite(id, sentence)` returns the node for a citation; `known` (a Set)
// limits which bracketed ids count as citations (others stay text). `cite` also gets the answer sentence.
export function renderMarkdown(source, { cite = null, known = null } = {}) {
  const fragment = document.createDocumentFragment();
  const lines = String(source || "").replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    if (line.startsWith("```")) {
      const body = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) body.push(lines[i]);
      i++;
      fragment.append(el("pre", {}, el("code", {}, body.join("\n"))));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1].length + 2); // answers sit under the page's own h2/h3
      fragment.append(el(`h${level}`, {}, ...inline(heading[2], cite, known)));
      i++;
      continue;
    }
    const blocks = [
      [/^\s*[-*+]\s+/, "ul"],
      [/^\s*\d+[.)]\s+/, "ol"],
      [/^\s*>\s?/, "blockquote"],
    ];
    const block = blocks.find(([pattern]) => pattern.test(line));
    if (block) {
      const [pattern, tag] = block;
      const items = [];
      while (i < lines.length && pattern.test(lines[i])) items.push(lines[i++]);
      if (tag === "blockquote") fragment.append(el("blockquote", {}, ...inline(items.map((l) => l.replace(pattern, "")).join(" "), cite, known)));
      else fragment.append(el(tag, {}, ...listItems(items, pattern, cite, known)));
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !lines[i].startsWith("```") && !/^#{1,6}\s/.test(lines[i])
      && !blocks.some(([pattern]) => pattern.test(lines[i]))) para.push(lines[i++]);
    fragment.append(el("p", {}, ...inline(para.join(" "), cite, known)));
  }
  return fragment;
}

// The answer sentence a citation at `index` of `text` belongs to: the words since the previous sentence end
// or citation (what the passage viewer highlights the best-matching passage sentence for).
export function sentenceAround(text, index) {
  const before = text.slice(0, index).replace(/\s+$/, "").replace(/[.!?]$/, "");
  const cut = Math.max(before.lastIndexOf(". "), before.lastIndexOf("! "), before.lastIndexOf("? "),
    before.lastIndexOf("\n"), before.lastIndexOf("]"));
  return before.slice(cut + 1).replace(CITATION, "").replace(/[*`#]/g, "").trim();
}
