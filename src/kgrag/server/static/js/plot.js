// A small interactive scatter plot in plain SVG: one point per pipeline, x a cost (context tokens, LLM
// tokens, latency), y a quality metric, with error bars when the run has intervals. Points are focusable;
// hovering or focusing one shows its values.

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

function ticks(lo, hi, count = 5) {
  const span = hi - lo || 1;
  const step = 10 ** Math.floor(Math.log10(span / count));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= count) || step * 10;
  const out = [];
  for (let v = Math.ceil(lo / nice) * nice; v <= hi + 1e-9; v += nice) out.push(Number(v.toPrecision(6)));
  return out;
}

// Where each point's label goes: the first of a few spots around the point (right, left; above, below;
// then further out) whose box overlaps no label placed before and no point, so close points stay legible.
function placeLabels(spots, width, height) {
  const taken = [];
  const boxes = spots.map(({ cx, cy, text }) => ({ x: cx - 7, y: cy - 7, w: 14, h: 14, text }));
  const hits = (b) => [...taken, ...boxes].some((o) => b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h);
  return spots.map(({ cx, cy, text }) => {
    const w = 6.4 * text.length + 2;
    const h = 12;
    const tries = [];
    for (const dy of [-7, 13, -21, 27, -35, 41, -49, 55]) {
      for (const side of cx > width * 0.7 ? [-1, 1] : [1, -1]) tries.push({ x: side > 0 ? cx + 9 : cx - 9 - w, y: cy + dy - h + 3, side });
    }
    const inside = (t) => t.x >= 0 && t.x + w <= width && t.y >= 0 && t.y + h <= height;
    const spot = tries.find((t) => inside(t) && !hits({ x: t.x, y: t.y, w, h })) || tries[0];
    taken.push({ x: spot.x, y: spot.y, w, h });
    return { x: spot.side > 0 ? spot.x : spot.x + w, y: spot.y + h - 3, anchor: spot.side > 0 ? "start" : "end" };
  });
}

// points: [{label, x, y, yLow?, yHigh?}]
export function scatter(points, { xLabel, yLabel, width = 520, height = 320 }) {
  const m = { left: 56, right: 16, top: 14, bottom: 44 };
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "plot", role: "img", "aria-label": `${yLabel} against ${xLabel}` });
  if (!points.length) { root.append(svg("text", { x: 20, y: 30 }, "nothing to plot")); return root; }
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.yLow ?? p.y, p.yHigh ?? p.y]);
  const xLo = Math.min(0, ...xs);
  const xHi = Math.max(...xs) * 1.08 || 1;
  const yLo = Math.min(0, ...ys);
  const yHi = Math.max(1e-9, ...ys) * 1.08;
  const X = (v) => m.left + ((v - xLo) / (xHi - xLo)) * (width - m.left - m.right);
  const Y = (v) => height - m.bottom - ((v - yLo) / (yHi - yLo)) * (height - m.top - m.bottom);
  for (const t of ticks(xLo, xHi)) {
    root.append(svg("line", { x1: X(t), x2: X(t), y1: m.top, y2: height - m.bottom, class: "grid" }));
    root.append(svg("text", { x: X(t), y: height - m.bottom + 16, "text-anchor": "middle", class: "tick" }, String(t)));
  }
  for (const t of ticks(yLo, yHi)) {
    root.append(svg("line", { x1: m.left, x2: width - m.right, y1: Y(t), y2: Y(t), class: "grid" }));
    root.append(svg("text", { x: m.left - 6, y: Y(t) + 4, "text-anchor": "end", class: "tick" }, String(t)));
  }
  root.append(svg("text", { x: (width + m.left) / 2, y: height - 6, "text-anchor": "middle", class: "axis" }, xLabel));
  root.append(svg("text", { x: 12, y: height / 2, transform: `rotate(-90 12 ${height / 2})`, "text-anchor": "middle", class: "axis" }, yLabel));
  const readout = svg("text", { x: m.left + 6, y: m.top + 12, class: "readout" }, "");
  const labels = placeLabels(points.map((p) => ({ cx: X(p.x), cy: Y(p.y), text: p.label })), width, height);
  points.forEach((p, i) => {
    const group = svg("g", { class: "point", tabindex: 0, "data-label": p.label });
    const interval = p.yLow !== undefined ? ` [${p.yLow.toFixed(3)}, ${p.yHigh.toFixed(3)}]` : "";
    const text = `${p.label}: ${yLabel} ${p.y.toFixed(3)}${interval} at ${xLabel} ${p.x.toFixed(1)}`;
    group.append(svg("title", {}, text));
    if (p.yLow !== undefined) group.append(svg("line", { x1: X(p.x), x2: X(p.x), y1: Y(p.yLow), y2: Y(p.yHigh), class: "bar" }));
    group.append(svg("circle", { cx: X(p.x), cy: Y(p.y), r: 6, class: `c${i % 8}` }));
    group.append(svg("text", { x: labels[i].x, y: labels[i].y, "text-anchor": labels[i].anchor, class: "label" }, p.label));
    const say = () => { readout.textContent = text; };
    group.addEventListener("mouseenter", say);
    group.addEventListener("focus", say);
    root.append(group);
  });
  root.append(readout);
  return root;
}
