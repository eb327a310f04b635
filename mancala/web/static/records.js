// Your records: the history with your rating's curve (GET /api/history) and the review of a
// game (POST /api/review, streamed): a board, the game's curve and the moves side by side,
// stepped with the arrow keys, and "play from here" against a level of your choice. The
// server keeps, rates and reviews (mancala.history, mancala.review); this script only asks
// and draws, its charts as inline SVG. app.js plays the game and talks to this script through
// events on document (kalah:kept, kalah:view, kalah:review; kalah:play-from back to it).
// Pits: people see 1..6 from the mover's left; the API uses indices 0..5.

import { $, call, capital, element, pitText, plural, serverInfo, signed, speedNow, tabName } from "/client.js";
import { BoardView } from "/board.js";

const SVG = "http://www.w3.org/2000/svg";
const SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };     // as chess players write them
const TAB = tabName("records-");

let info = null;        // /api/info
let geo = null;
let reviewing = 0;      // bumped by each review asked: older answers are dropped
let reviewed = null;    // {title, position, human, answer} of the review shown
let listed = null;      // the history shown (GET /api/history's answer)
let reviewBoard = null;
let shownMove = 0;      // the review's position: after this many moves
let stepping = 0;

function svg(tag, attributes = {}, text = null) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== null) made.textContent = text;
  return made;
}

function pits(indices) { return indices.map((pit) => String(pit + 1)).join(" "); }
function playerName(spec) { return info?.level_names[spec] || spec; }
function plurals(word) { return word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`; }
function when(stamp) {      // '2026-05-01T12:00:00Z' -> this browser's local time, to the minute
  const time = new Date(stamp);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(stamp) || Number.isNaN(time.getTime())) return stamp;
  const two = (n) => String(n).padStart(2, "0");
  return `${time.getFullYear()}-${two(time.getMonth() + 1)}-${two(time.getDate())} ${two(time.getHours())}:${two(time.getMinutes())}`;
}

// -- the history view ---------------------------------------------------------------------

function buildRecords() {
  const root = $("view-records");
  if (root.childElementCount) return;
  root.append(
    element("section", { id: "records-review", "aria-labelledby": "review-title", hidden: "" },
      element("h2", { id: "review-title", text: "Review" }),
      element("p", { id: "review-status", role: "status", "aria-live": "polite" }),
      element("div", { class: "review-grid" },
        element("div", { class: "review-left" },
          element("div", { id: "review-board" }),
          element("div", { class: "controls", role: "group", "aria-label": "Step through the game" },
            element("button", { type: "button", id: "review-first", text: "« Start", "aria-label": "The start" }),
            element("button", { type: "button", id: "review-back", text: "◀ Back", "aria-label": "One move back" }),
            element("button", { type: "button", id: "review-next", text: "Next ▶", "aria-label": "One move on" }),
            element("button", { type: "button", id: "review-last", text: "End »", "aria-label": "The end" })),
          element("p", { class: "note", text: "Keys: ← and → step through the moves, Home and End." }),
          element("div", { id: "review-detail", "aria-live": "polite" })),
        element("div", { class: "review-right" },
          element("div", { id: "review-chart", class: "chart" }),
          element("div", { id: "review-summary" }),
          element("ol", { id: "review-moves", class: "move-list", "aria-label": "The moves, each with its mark" }),
          element("p", { class: "review-legend",
            text: "Marks by seeds lost against the best move: inaccuracy ?! 1–2, mistake ? 3–5, blunder ?? 6 or more." })))),
    element("section", { id: "records-rating", "aria-labelledby": "rating-title" },
      element("h2", { id: "rating-title", text: "Your rating" }),
      element("p", { id: "rating-line", text: "Reading your history…" }),
      element("div", { id: "rating-chart", class: "chart" }),
      element("p", { id: "records-notices", class: "notices" })),
    element("section", { id: "records-games", "aria-labelledby": "games-title" },
      element("h2", { id: "games-title", text: "Your games" }),
      element("p", { id: "games-line" }),
      element("div", { class: "table-scroll" },
        element("table", { id: "games" },
          element("caption", { class: "visually-hidden", text: "Finished games, newest first" }),
          element("thead", {}, element("tr", {}, ...["Game", "Result", "Against", "Rating"].map(
            (name) => element("th", { scope: "col", text: name })))),
          element("tbody", { id: "games-rows" })))));
  reviewBoard = new BoardView($("review-board"), geo, { prefix: "review-", small: true, label: "The game's position at the move chosen" });
  $("review-first").addEventListener("click", () => step(0));
  $("review-back").addEventListener("click", () => step(shownMove - 1));
  $("review-next").addEventListener("click", () => step(shownMove + 1));
  $("review-last").addEventListener("click", () => step(reviewed ? reviewed.position.moves.length : 0));
}

async function showHistory() {
  buildRecords();
  try {
    render(await call("/api/history"));
  } catch (error) {
    $("rating-line").textContent = `Your history cannot be read: ${error.message}`;
  }
}

function render(history) {
  const rating = history.rating;
  $("rating-line").textContent = rating === null
    ? `Your rating: none yet; you start at ${Math.round(history.start.rating)} once you finish a rated game.`
    : `Your rating: ${Math.round(rating.rating)} (95% between ${Math.round(rating.low)} and ${Math.round(rating.high)}), ` +
      `from ${plural(history.rated_games, "rated game")}.`;
  listed = history;
  drawRating();
  $("records-notices").textContent = history.notices.join(" ");
  $("games-line").textContent = history.count === 0
    ? `No finished games yet. They are kept on this machine, in ${history.file}.`
    : `${plural(history.count, "game")}, kept on this machine in ${history.file}; nothing is sent anywhere.`;
  $("games-rows").replaceChildren(...[...history.games].reverse().map(gameRow));
}

function gameRow(game) {
  const rules = `${plural(game.seeds, "seed")}, ${game.capture} capture`;
  let rating = game.human === null ? "no one rated" : "casual: not rated";
  if (game.rating_after) {
    const change = Math.round(game.rating_after.rating - game.rating_before.rating);
    rating = `${Math.round(game.rating_after.rating)} (${signed(change)})`;
  }
  const review = element("button", { type: "button", class: "review", text: "Review",
    "aria-label": `Review game ${game.id}` });
  review.addEventListener("click", () => askReview(`Game ${game.id}: ${game.words}`,
    { seeds: game.seeds, capture: game.capture, moves: game.pit_indices }, game.human, game.id));
  const opponent = game.human === null
    ? `${playerName(game.players.south)} vs ${playerName(game.players.north)}`
    : `${playerName(game.players[geo.side_keys[1 - game.human]])} (you: ${geo.names[game.human]})`;
  const kind = game.rated ? "rated" : "casual";
  return element("tr", { id: `game-${game.id}`, class: game.result === "draw" ? "draw" : "" },
    element("td", {}, String(game.id), element("br"), element("small", { class: "finished", text: when(game.finished) })),
    element("td", {}, element("strong", { class: "words", text: game.words }), element("br"),
      element("small", { text: `${capital(kind)} · ${rules}` })),
    element("td", { text: opponent }),
    element("td", {}, element("span", { class: "rating", text: rating }), element("br"), review));
}

// -- charts: inline SVG -------------------------------------------------------------------

const BOX = { width: 640, height: 250, left: 52, right: 14, top: 12, bottom: 40 };

// the chart as wide as its place on the page (so its text is the page's size), 300..1200
function fit(container) {
  BOX.width = Math.max(300, Math.min(1200, container.clientWidth || 640));
  BOX.height = BOX.width < 500 ? 220 : 250;
}

function niceStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
}

// a chart: x from 0 to xMax, y over [low, high]; returns the svg and its scales
function frame(label, xMax, low, high, xTitle, yTitle) {
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

function drawRating() {
  if (!listed) return;
  fit($("rating-chart"));
  $("rating-chart").replaceChildren(...(listed.series.length ? [ratingChart(listed)] : []));
}

function drawReview() {
  if (!reviewed) return;
  fit($("review-chart"));
  $("review-chart").replaceChildren(reviewChart(reviewed.answer));
}

let resizing = null;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => { if (document.body.dataset.view === "records") { drawRating(); drawReview(); } }, 150);
});

function ratingChart(history) {
  const points = [{ ...history.start, title: "your start" },
    ...history.series.map((s) => ({ ...s, title: `game ${s.id} against ${playerName(s.opponent)}` }))];
  const last = points[points.length - 1];
  const label = `Your rating over ${plural(points.length - 1, "rated game")}: ` +
    `from ${Math.round(points[0].rating)} to ${Math.round(last.rating)}; the band is the 95% interval`;
  const { chart, x, y } = frame(label, points.length - 1, Math.min(...points.map((p) => p.low)),
    Math.max(...points.map((p) => p.high)), "rated games", "rating");
  const band = points.map((p, i) => `${x(i)},${y(p.high)}`)
    .concat(points.map((p, i) => `${x(i)},${y(p.low)}`).reverse()).join(" ");
  chart.append(svg("polygon", { points: band, class: "band" }));
  chart.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line" }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(p.rating), r: 4, class: "dot" });
    dot.append(svg("title", {}, `${Math.round(p.rating)} (95% ${Math.round(p.low)}–${Math.round(p.high)}) after ${p.title}`));
    chart.append(dot);
  });
  return chart;
}

function reviewChart(answer) {
  const moves = answer.moves;
  const values = [moves[0].south_before, ...moves.map((m) => m.south_after)];
  const bound = Math.max(4, ...values.map(Math.abs));
  const label = `The game's score for South, move by move (seeds): from ${signed(values[0])} ` +
    `to ${signed(values[values.length - 1])}; ${plural(moves.filter((m) => m.mark).length, "move")} marked`;
  const { chart, x, y } = frame(label, moves.length, -bound, bound, "moves", "South's score (seeds)");
  chart.append(svg("line", { x1: x(0), x2: x(moves.length), y1: y(0), y2: y(0), class: "zero" }));
  chart.append(svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
  chart.append(svg("line", { x1: x(shownMove), x2: x(shownMove), y1: BOX.top, y2: BOX.height - BOX.bottom, class: "cursor", id: "review-cursor" }));
  moves.forEach((move, index) => {
    if (!move.mark) return;
    // the mark drawn small, in a transparent circle 44 px across that takes the click
    const dot = svg("g", { class: "mark-hit", tabindex: "0", role: "button", "data-number": move.number,
      "aria-label": `Move ${move.number}: ${move.mark}, lost ${move.loss}` });
    dot.append(svg("circle", { cx: x(index + 1), cy: y(move.south_after), r: 22, class: "hit" }),
      svg("circle", { cx: x(index + 1), cy: y(move.south_after), r: 7, class: `mark ${move.mark}` }));
    dot.append(svg("title", {}, `move ${move.number}, ${geo.names[move.side]} pit ${move.pit_index + 1}: ` +
      `${move.mark}, lost ${move.loss}`));
    dot.addEventListener("click", () => step(move.number));
    dot.addEventListener("keydown", (event) => { if (event.key === "Enter") step(move.number); });
    chart.append(dot);
  });
  return chart;
}

// -- the review ----------------------------------------------------------------------------

// askReview: a review of a game from a start (seeds, capture, moves); human: the side of
// the person who played it, if one did (the review speaks to them)
async function askReview(title, position, human = null, gameId = null) {
  buildRecords();
  const mine = ++reviewing;
  const section = $("records-review");
  section.hidden = false;
  reviewed = null;
  $("review-title").textContent = `Review: ${title}`;
  for (const id of ["review-chart", "review-summary", "review-moves", "review-detail"]) $(id).replaceChildren();
  shownMove = 0;
  const count = position.moves.length;
  const started = performance.now();
  let done = 0;
  const status = () => `Reviewing ${plural(count, "move")}… ${done} done (the last first), ${Math.round((performance.now() - started) / 1000)} s ` +
    "(each move's score exact where a solve finishes, else a search)";
  $("review-status").textContent = status();
  const ticker = setInterval(() => { if (mine === reviewing) $("review-status").textContent = status(); }, 500);
  section.scrollIntoView({ block: "start" });
  reviewed = { title, position, human, answer: null, marks: {} };
  await showPosition(0, null);
  try {
    const whole = await call("/api/validate", { position: { seeds: position.seeds, capture: position.capture, moves: position.moves } });
    if (mine !== reviewing) return;
    listMoves(whole.played.map((move, index) => ({ number: index + 1, side: move.player, pit_index: move.pit_index })));
    const asked = { position: { seeds: position.seeds, capture: position.capture, moves: position.moves }, tab: TAB, stream: true };
    if (gameId !== null) asked.game = gameId;        // its review kept with it: at once
    const response = await fetch("/api/review", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify(asked) });
    if (!response.ok) {
      let message = `the server answered ${response.status}`;
      try { message = (await response.json()).error || message; } catch (error) { /* not JSON */ }
      throw Object.assign(new Error(message), { status: response.status });
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (mine !== reviewing) { reader.cancel(); return; }
        if (line.type === "progress") done = line.done;
        else if (line.type === "move") firstMark(line);
        else if (line.type === "error") throw Object.assign(new Error(line.error), { status: 0 });
        else if (line.type === "review") { reviewed.answer = line; showReview(line); }
      }
      if (finished) break;
    }
  } catch (error) {
    if (mine === reviewing && error.status !== 409) $("review-status").textContent = `No review: ${error.message}`;
  } finally {
    clearInterval(ticker);
  }
}

// a move's mark, shown as soon as the server has it (the review goes on)
function firstMark(move) {
  reviewed.marks[move.number] = move;
  const button = $(`review-move-${move.number}`);
  if (button && move.mark && !button.querySelector(".mark")) {
    button.append(element("span", { class: `mark ${move.mark}`, text: SIGNS[move.mark] }));
    button.setAttribute("aria-label", `${button.getAttribute("aria-label")}, ${move.mark}, lost ${move.loss}`);
  }
}

// the moves, grouped by turn (one number a sowing), each a button to step to it
function listMoves(moves) {
  let item = null;
  const list = $("review-moves");
  list.replaceChildren();
  moves.forEach((move, index) => {
    if (!item || moves[index - 1].side !== move.side) {
      item = element("li", { class: geo.side_keys[move.side] });
      list.append(item);
    }
    const button = element("button", { type: "button", id: `review-move-${move.number}`,
      "aria-label": `Move ${move.number}: ${geo.names[move.side]} pit ${move.pit_index + 1}` },
    `${move.number}. ${geo.names[move.side][0]} ${move.pit_index + 1}`);
    button.addEventListener("click", () => step(move.number));
    item.append(button);
  });
}

function showReview(answer) {
  const exact = answer.moves.filter((m) => m.exact).length;
  $("review-status").textContent = `${plural(answer.moves.length, "move")} ${answer.kept ? "reviewed before (kept with the game)" : `reviewed in ${answer.seconds.toFixed(1)} s`}: ` +
    `${exact} exact (perfect play), ${answer.moves.length - exact} by a search ${answer.depth} moves deep. ` +
    "Each score names its side.";
  drawReview();
  $("review-summary").replaceChildren(...geo.side_keys.map((key, side) => {
    const s = answer.summary[key];
    const counts = answer.marks.map(({ mark }) => `${s[mark]} ${s[mark] === 1 ? mark : plurals(mark)}`).join(", ");
    const who = reviewed.human === side ? `You (${geo.names[side]})` : geo.names[side];
    return element("p", { class: key }, element("strong", { text: who }),
      `: ${plural(s.seeds_lost, "seed")} lost in ${plural(s.moves, "move")}: ${counts}.`);
  }));
  listMoves(answer.moves);
  answer.moves.forEach(firstMark);
  const first = answer.moves.find((m) => m.mark);
  step(first ? first.number : 1, false);
}

// the review's board after `number` moves: one step on is sown, anything else is set
async function step(number, animate = true) {
  if (!reviewed) return;
  const total = reviewed.position.moves.length;
  number = Math.max(0, Math.min(total, number));
  const mine = ++stepping;
  const from = shownMove;
  shownMove = number;
  document.querySelectorAll("#review-moves button[aria-current]").forEach((b) => b.removeAttribute("aria-current"));
  $(`review-move-${number}`)?.setAttribute("aria-current", "step");
  if (reviewed.answer) { drawReview(); detail(number); }
  await showPosition(number, animate && number === from + 1 ? from : null, mine);
}

async function showPosition(number, sowFrom = null, mine = stepping) {
  const { seeds, capture, moves } = reviewed.position;
  try {
    if (sowFrom !== null) {
      const answer = await call("/api/move", { position: { seeds, capture, moves: moves.slice(0, sowFrom) }, pit_index: moves[sowFrom] });
      if (mine !== stepping) return;
      const before = reviewBoard.counts.slice();
      await reviewBoard.sow(answer.move, before, answer.state.slots, { step: Math.min(speedNow().step, 120), still: () => mine === stepping });
      if (mine === stepping) drawBoard(answer.state);
      return;
    }
    const state = await call("/api/validate", { position: { seeds, capture, moves: moves.slice(0, number) } });
    if (mine === stepping) drawBoard(state);
  } catch (error) {
    $("review-status").textContent = `No position: ${error.message}`;
  }
}

function drawBoard(state) {
  const last = state.played.length ? state.played[state.played.length - 1] : null;
  reviewBoard.clearMarks();
  reviewBoard.set(state.slots, { toMove: state.game_over ? null : state.to_move,
    last: last ? geo.slotOf(last.player, last.pit_index) : null });
}

function detail(number) {
  const box = $("review-detail");
  if (number === 0) {
    box.replaceChildren(element("p", { text: "The start. → plays the first move." }), playFrom(0));
    return;
  }
  const move = reviewed.answer.moves[number - 1];
  const mover = reviewed.human === move.side ? "you" : geo.names[move.side];
  const lines = [element("p", {},
    element("strong", { text: `Move ${move.number}: ${geo.names[move.side]} pit ${move.pit_index + 1}` }),
    ` (played by ${mover}) leaves ${move.text_after}.`)];
  if (move.loss > 0) {
    const better = move.best_indices.map((pit) => String(pit + 1)).join(" or ");
    lines.push(element("p", { class: `verdict ${move.mark || ""}` },
      `${capital(move.mark || "a small loss")}${move.mark ? ` ${SIGNS[move.mark]}` : ""}: it lost ${plural(move.loss, "seed")}. ` +
      `Better: pit ${better} (${move.text_before}); its line: ${pits(move.line_indices)}.`));
  } else {
    lines.push(element("p", { class: "verdict best", text: "A best move: it keeps the position's score." }));
  }
  const scores = (move.scores || move.values).map((v) => `${v.pit_index + 1}: ${signed(v.score ?? v.value)}`).join(", ");
  lines.push(element("p", { class: "values", text: `Every move there, for ${geo.names[move.side]} (pit: score): ${scores}.` }));
  lines.push(playFrom(number - 1, `Play from before move ${number}`));
  box.replaceChildren(...lines);
}

// "play from here": a casual game from the position before a move, you the side to move,
// against the level chosen
function playFrom(count, label = "Play from here") {
  const { seeds, capture, moves } = reviewed.position;
  const levels = element("select", { id: "review-level", "aria-label": "Against" },
    ...info.levels.filter((level) => level !== "human").map((level) => new Option(playerName(level), level, false, level === "ai:hard")));
  const button = element("button", { type: "button", id: "review-play", class: "primary", text: label });
  button.addEventListener("click", async () => {
    const state = await call("/api/validate", { position: { seeds, capture, moves: moves.slice(0, count) } });
    const players = state.to_move === 0 ? { south: "human", north: levels.value } : { south: levels.value, north: "human" };
    document.dispatchEvent(new CustomEvent("kalah:play-from", { detail: {
      position: { seeds, capture, moves: moves.slice(0, count) }, players,
      note: `A casual game from move ${count + 1} of the review: you play ${geo.names[state.to_move]} against ${playerName(levels.value)}.` } }));
  });
  return element("p", { class: "controls" }, element("label", {}, "Against ", levels), button);
}

function onKey(event) {
  if (document.body.dataset.view !== "records" || !reviewed || $("records-review").hidden) return;
  if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("input, select, textarea, dialog")) return;
  const total = reviewed.position.moves.length;
  const to = { ArrowLeft: shownMove - 1, ArrowRight: shownMove + 1, Home: 0, End: total }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  step(to);
}

// -- start -----------------------------------------------------------------------------------

async function start() {
  try {
    info = await serverInfo();
    geo = info.geo;
  } catch (error) { return; /* the game's view says the server is out of reach */ }
  document.addEventListener("kalah:view", (event) => { if (event.detail.name === "records") showHistory(); });
  document.addEventListener("kalah:kept", () => { if (document.body.dataset.view === "records") showHistory(); });
  document.addEventListener("kalah:review", (event) => {
    const link = document.querySelector('#views a[data-view="records"]');
    if (document.body.dataset.view !== "records") link.click();
    askReview(event.detail.title, event.detail.position, event.detail.human, event.detail.gameId ?? null);
  });
  document.addEventListener("keydown", onKey);
  if (document.body.dataset.view === "records") showHistory();
}

start();
