// The history's and the review's charts, drawn as inline SVG at the page's own size: a frame
// (axes, grid, titles) whose scales the caller draws its lines and points with.

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attributes = {}, text = null) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== null) made.textContent = text;
  return made;
}

export const BOX = { width: 640, height: 250, left: 52, right: 14, top: 12, bottom: 40 };

// the chart as wide as its place on the page (so its text is the page's size), 300..1200
export function fit(container) {
  BOX.width = Math.max(300, Math.min(1200, container.clientWidth || 640));
  BOX.height = BOX.width < 500 ? 220 : 250;
}

function niceStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
}

// a chart: x from 0 to xMax, y over [low, high]; returns the svg and its scales
export function frame(label, xMax, low, high, xTitle, yTitle) {
  const unit = niceStep(Math.max(high - low, 1), 5);
  low = Math.floor(low / unit) * unit;
  high = Math.ceil(high / unit) * unit;
  if (high === low) high = low + unit;
  const plotW = BOX.width - BOX.left - BOX.right;
  const plotH = BOX.height - BOX.top - BOX.bottom;
  const x = (value) => BOX.left + (xMax ? value / xMax : 0.5) * plotW;
  const y = (value) => BOX.top + (1 - (value - low) / (high - low)) * plotH;
  const chart = svg("svg", { viewBox: `0 0 ${BOX.width} ${BOX.height}`, role: "img", "aria-label": label,
    preserveAspectRatio: "xMidYMid meet" });
  chart.append(svg("title", {}, label));
  const axes = svg("g", { class: "axes" });
  for (let value = low; value <= high + unit / 2; value += unit) {
    axes.append(svg("line", { x1: BOX.left, x2: BOX.width - BOX.right, y1: y(value), y2: y(value), class: "grid" }));
    axes.append(svg("text", { x: BOX.left - 6, y: y(value) + 4, "text-anchor": "end" }, String(Math.round(value))));
  }
  const xStep = xMax <= 10 ? 1 : niceStep(xMax, 8);
  for (let value = 0; value <= xMax; value += xStep) {
    axes.append(svg("text", { x: x(value), y: BOX.height - BOX.bottom + 16, "text-anchor": "middle" }, String(value)));
  }
  axes.append(svg("line", { x1: BOX.left, x2: BOX.left, y1: BOX.top, y2: BOX.height - BOX.bottom, class: "axis" }));
  axes.append(svg("line", { x1: BOX.left, x2: BOX.width - BOX.right, y1: BOX.height - BOX.bottom,
    y2: BOX.height - BOX.bottom, class: "axis" }));
  axes.append(svg("text", { x: BOX.left + plotW / 2, y: BOX.height - 4, "text-anchor": "middle", class: "title" }, xTitle));
  axes.append(svg("text", { x: 12, y: BOX.top + plotH / 2, "text-anchor": "middle", class: "title",
    transform: `rotate(-90 12 ${BOX.top + plotH / 2})` }, yTitle));
  chart.append(axes);
  return { chart, x, y };
}
