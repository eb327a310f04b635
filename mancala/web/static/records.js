// Your records: games finished in this page kept in your history (POST /api/finish),
// the history with your rating's curve (GET /api/history) and the review of a game
// (POST /api/review). The server replays, keeps, rates and reviews (mancala.history,
// mancala.review); this script only asks and draws, its charts as inline SVG.
// app.js plays the game and tells this script about it through events on document
// (kalah:game, kalah:over, kalah:shown, kalah:view: see the head of app.js).
// Pits: people see 1..6 from the mover's left; the API uses indices 0..5.

import { call, signed, tabName } from "/client.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const NAMES = ["South", "North"];
const KEYS = ["south", "north"];
const SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };     // as chess players write them
const RESULT = { south: "South won", north: "North won", draw: "Draw" };
const TAB = tabName("records-");
const STORED = "kalah-game";      // sessionStorage: this tab's game id, kept across a reload

let levelNames = {};    // level -> its name on the page (/api/info)
let gameId = null;      // the page's name for the game being played: a game is kept once
let firstGame = true;   // the first game set up after the page loaded (maybe a reload of one)
let shown = null;       // the position the game's view shows, with its players
let reviewing = 0;      // bumped by each review asked: older answers are dropped
let reviewed = null;    // {title, position, players, answer} of the review shown
let listed = null;      // the history shown (GET /api/history's answer)

function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") made.className = value;
    else if (name === "text") made.textContent = value;
    else made.setAttribute(name, value);
  }
  made.append(...children);
  return made;
}

function svg(tag, attributes = {}, text = null) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== null) made.textContent = text;
  return made;
}

function pits(indices) { return indices.map((pit) => String(pit + 1)).join(" "); }
function playerName(spec) { return levelNames[spec] || spec; }
function plural(word) { return word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`; }
function capitalised(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : text; }
function when(stamp) {      // '2026-05-01T12:00:00Z' -> '2026-05-01 12:00 UTC'
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(stamp) ? `${stamp.slice(0, 10)} ${stamp.slice(11, 16)} UTC` : stamp;
}

// -- games finished in the page are kept -------------------------------------------------

function newId() { return Math.random().toString(36).slice(2) + Date.now().toString(36); }

function remembered() {
  try { return JSON.parse(sessionStorage.getItem(STORED) || "null"); } catch (error) { return null; }
}

function onGame(event) {
  // a reload shows the same game (the link keeps it): it keeps its id, so it is kept once;
  // the same start opened again after its game was kept is another game
  const signature = JSON.stringify([event.detail.start, event.detail.players]);
  const saved = remembered();
  const same = firstGame && saved && saved.signature === signature &&
    (!saved.kept || JSON.stringify(saved.kept) === JSON.stringify(event.detail.moves));
  gameId = same ? saved.id : newId();
  firstGame = false;
  remember({ id: gameId, signature, kept: same ? saved.kept : null });
  keptNote("");
}

function remember(record) {
  try { sessionStorage.setItem(STORED, JSON.stringify(record)); } catch (error) { /* no storage */ }
}

async function onOver(event) {
  const { position, players } = event.detail;
  if (position.board) {
    keptNote("Not kept in your history: a position set by hand has no start to replay.");
    return;
  }
  const id = gameId;
  try {
    const answer = await call("/api/finish", { position, players, game: id });
    const saved = remembered();
    if (saved && saved.id === id) remember({ ...saved, kept: answer.game.pit_indices });
    keptNote(keptText(answer), answer.game);
  } catch (error) {
    keptNote(`Not kept in your history: ${error.message}`);
  }
}

function keptText(answer) {
  const game = answer.game;
  const where = answer.new ? `Kept in your history as game ${game.id}.` : `Already in your history as game ${game.id}.`;
  if (answer.rated) {
    const r = answer.rating;
    return `${where} Your rating: ${Math.round(r.rating)} (${signed(Math.round(answer.change))}), ` +
      `95% between ${Math.round(r.low)} and ${Math.round(r.high)}.`;
  }
  if (game.human === null) return `${where} Not rated: no one side is a person.`;
  return `${where} Not rated: ${game.players[KEYS[1 - game.human]]} has no Elo in the levels' table.`;
}

function keptNote(text, game = null) {
  let note = $("kept-note");
  if (!note) {
    note = element("p", { id: "kept-note", class: "kept-note", "aria-live": "polite" });
    $("error").after(note);
  }
  note.replaceChildren(text);
  if (game) {
    const review = element("button", { type: "button", id: "kept-review", text: "Review this game" });
    review.addEventListener("click", () => {
      openRecords();
      askReview(`Game ${game.id}`, { seeds: game.seeds, capture: game.capture, moves: game.pit_indices },
        game.players);
    });
    note.append(" ", review);
  }
}

// -- the game's view: a Review button ----------------------------------------------------

function onShown(event) {
  shown = event.detail;
  const button = reviewButton();
  const position = shown.position;
  button.disabled = Boolean(position.board) || position.moves.length === 0;
  button.title = position.board ? "Only a game from a start can be reviewed" : "";
}

function reviewButton() {
  let button = $("review-game");
  if (!button) {
    button = element("button", { type: "button", id: "review-game", text: "Review" });
    button.addEventListener("click", () => {
      if (!shown) return;
      const moves = shown.position.moves.length;
      openRecords();
      askReview(`This game (${moves} move${moves === 1 ? "" : "s"})`, shown.position, shown.players);
    });
    $("edit").before(button);
  }
  return button;
}

function openRecords() {
  const link = document.querySelector('#views a[data-view="records"]');
  if (document.body.dataset.view !== "records") link.click();
}

// -- the history view ---------------------------------------------------------------------

function buildRecords() {
  const root = $("view-records");
  if (root.childElementCount) return;
  root.append(
    element("section", { id: "records-rating", "aria-labelledby": "rating-title" },
      element("h2", { id: "rating-title", text: "Your rating" }),
      element("p", { id: "rating-line", text: "Reading your history…" }),
      element("div", { id: "rating-chart", class: "chart" }),
      element("p", { id: "records-notices", class: "notices" })),
    element("section", { id: "records-review", "aria-labelledby": "review-title", hidden: "" },
      element("h2", { id: "review-title", text: "Review" }),
      element("p", { id: "review-status", role: "status", "aria-live": "polite" }),
      element("div", { id: "review-chart", class: "chart" }),
      element("div", { id: "review-summary" }),
      element("ol", { id: "review-moves", "aria-label": "The moves, each with its mark" }),
      element("div", { id: "review-detail", "aria-live": "polite" }),
      element("p", { class: "review-legend",
        text: "Marks by seeds lost against the best move: inaccuracy ?! 1–2, mistake ? 3–5, blunder ?? 6 or more." })),
    element("section", { id: "records-games", "aria-labelledby": "games-title" },
      element("h2", { id: "games-title", text: "Your games" }),
      element("p", { id: "games-line" }),
      element("div", { class: "table-scroll" },
        element("table", { id: "games" },
          element("caption", { class: "visually-hidden", text: "Finished games, newest first" }),
          element("thead", {}, element("tr", {}, ...["Game", "Players", "Result", "Rating"].map(
            (name) => element("th", { scope: "col", text: name })))),
          element("tbody", { id: "games-rows" })))));
}

async function showHistory() {
  buildRecords();
  await named;
  try {
    render(await call("/api/history"));
  } catch (error) {
    $("rating-line").textContent = `Your history cannot be read: ${error.message}`;
  }
}

function render(history) {
  const rating = history.rating;
  $("rating-line").textContent = rating === null
    ? `Your rating: none yet; you start at ${Math.round(history.start.rating)} once you finish a game as human against a computer level.`
    : `Your rating: ${Math.round(rating.rating)} (95% between ${Math.round(rating.low)} and ${Math.round(rating.high)}), ` +
      `from ${history.rated_games} rated game${history.rated_games === 1 ? "" : "s"}.`;
  listed = history;
  drawRating();
  $("records-notices").textContent = history.notices.join(" ");
  $("games-line").textContent = history.count === 0
    ? `No finished games yet. They are kept on this machine, in ${history.file}.`
    : `${history.count} game${history.count === 1 ? "" : "s"}, kept on this machine in ${history.file}; nothing is sent anywhere.`;
  const rows = $("games-rows");
  rows.replaceChildren();
  for (const game of [...history.games].reverse()) rows.append(gameRow(game));
}

function gameRow(game) {
  const score = `${game.score.south}–${game.score.north}`;
  const rules = `${game.seeds} seed${game.seeds === 1 ? "" : "s"}, ${game.capture}`;
  let rating = game.human === null ? "—" : "not rated";
  if (game.rating_after) {
    const change = Math.round(game.rating_after.rating - game.rating_before.rating);
    rating = `${Math.round(game.rating_after.rating)} (${signed(change)})`;
  }
  const review = element("button", { type: "button", class: "review", text: "Review",
    "aria-label": `Review game ${game.id}` });
  review.addEventListener("click", () => askReview(`Game ${game.id}`,
    { seeds: game.seeds, capture: game.capture, moves: game.pit_indices }, game.players));
  const players = element("td", {},
    element("span", { class: "south", text: `${playerName(game.players.south)}` }), " vs ",
    element("span", { class: "north", text: `${playerName(game.players.north)}` }),
    element("br"), element("small", { text: rules }));
  return element("tr", { id: `game-${game.id}` },
    element("td", {}, String(game.id), element("br"), element("small", { class: "finished", text: when(game.finished) })),
    players,
    element("td", { text: `${RESULT[game.result]} ${score}` }),
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
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw);
}

// a chart: x from 0 to xMax, y over [low, high]; returns the svg and its scales
function frame(label, xMax, low, high, xTitle, yTitle) {
  const step = niceStep(Math.max(high - low, 1), 5);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;
  if (high === low) high = low + step;
  const plotW = BOX.width - BOX.left - BOX.right;
  const plotH = BOX.height - BOX.top - BOX.bottom;
  const x = (value) => BOX.left + (xMax ? value / xMax : 0.5) * plotW;
  const y = (value) => BOX.top + (1 - (value - low) / (high - low)) * plotH;
  const chart = svg("svg", { viewBox: `0 0 ${BOX.width} ${BOX.height}`, role: "img", "aria-label": label,
    preserveAspectRatio: "xMidYMid meet" });
  chart.append(svg("title", {}, label));
  const axes = svg("g", { class: "axes" });
  for (let value = low; value <= high + step / 2; value += step) {
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
  return { chart, x, y, low, high };
}

// the charts are drawn as wide as their place: again when it changes
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
    ...history.series.map((s) => ({ ...s, title: `game ${s.id} against ${playerName(s.opponent)}: ${RESULT[s.result].toLowerCase()}` }))];
  const last = points[points.length - 1];
  const label = `Your rating over ${points.length - 1} rated game${points.length === 2 ? "" : "s"}: ` +
    `from ${Math.round(points[0].rating)} to ${Math.round(last.rating)}; the band is the 95% interval`;
  const { chart, x, y } = frame(label, points.length - 1, Math.min(...points.map((p) => p.low)),
    Math.max(...points.map((p) => p.high)), "rated games", "rating");
  const band = points.map((p, i) => `${x(i)},${y(p.high)}`)
    .concat(points.map((p, i) => `${x(i)},${y(p.low)}`).reverse()).join(" ");
  chart.append(svg("polygon", { points: band, class: "band" }, null));
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
  const label = `The game's value for South, move by move (seeds, final margin): from ${signed(values[0])} ` +
    `to ${signed(values[values.length - 1])}; ${moves.filter((m) => m.mark).length} moves marked`;
  const { chart, x, y } = frame(label, moves.length, -bound, bound, "moves", "South's value (seeds)");
  chart.append(svg("line", { x1: x(0), x2: x(moves.length), y1: y(0), y2: y(0), class: "zero" }));
  chart.append(svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
  moves.forEach((move, index) => {
    if (!move.mark) return;
    const dot = svg("circle", { cx: x(index + 1), cy: y(move.south_after), r: 6, class: `mark ${move.mark}`,
      tabindex: "0", "data-number": move.number });
    dot.append(svg("title", {}, `move ${move.number}, ${NAMES[move.side]} pit ${move.pit_index + 1}: ` +
      `${move.mark}, lost ${move.loss}`));
    dot.addEventListener("click", () => select(move.number));
    dot.addEventListener("keydown", (event) => { if (event.key === "Enter") select(move.number); });
    chart.append(dot);
  });
  return chart;
}

// -- the review -------------------------------------------------------------------------

// askReview: ask for a review of a game from a start (its position: seeds, capture, moves)
async function askReview(title, position, players) {
  buildRecords();
  const mine = ++reviewing;
  const section = $("records-review");
  section.hidden = false;
  reviewed = null;
  drawRating();                 // its column is narrower now
  $("review-title").textContent = `Review: ${title}`;
  $("review-chart").replaceChildren();
  $("review-summary").replaceChildren();
  $("review-moves").replaceChildren();
  $("review-detail").replaceChildren();
  const count = position.moves.length;
  const started = performance.now();
  const status = () => `Reviewing ${count} move${count === 1 ? "" : "s"}… ` +
    `${Math.round((performance.now() - started) / 1000)} s (each move's value exact where a solve finishes, else a search)`;
  $("review-status").textContent = status();
  const ticker = setInterval(() => { if (mine === reviewing) $("review-status").textContent = status(); }, 1000);
  section.scrollIntoView({ block: "start" });
  try {
    const answer = await call("/api/review", { position: { seeds: position.seeds, capture: position.capture,
      moves: position.moves }, tab: TAB });
    if (mine !== reviewing) return;
    reviewed = { title, position, players, answer };
    showReview(answer, players);
  } catch (error) {
    if (mine === reviewing && error.status !== 409) $("review-status").textContent = `No review: ${error.message}`;
  } finally {
    clearInterval(ticker);
  }
}

function showReview(answer, players) {
  const exact = answer.moves.filter((m) => m.exact).length;
  $("review-status").textContent = `${answer.moves.length} moves reviewed in ${answer.seconds.toFixed(1)} s: ` +
    `${exact} exact (perfect play), ${answer.moves.length - exact} by a search ${answer.depth} moves deep. ` +
    "Values are for the mover, in seeds.";
  drawReview();
  $("review-summary").replaceChildren(...KEYS.map((key, side) => {
    const s = answer.summary[key];
    const counts = answer.marks.map(({ mark }) => `${s[mark]} ${s[mark] === 1 ? mark : plural(mark)}`).join(", ");
    return element("p", { class: key },
      element("strong", { text: `${NAMES[side]} (${playerName(players[key])})` }),
      `: ${s.seeds_lost} seed${s.seeds_lost === 1 ? "" : "s"} lost in ${s.moves} move${s.moves === 1 ? "" : "s"}: ${counts}.`);
  }));
  const list = $("review-moves");
  list.replaceChildren(...answer.moves.map((move) => {
    const button = element("button", { type: "button", id: `review-move-${move.number}`,
      "aria-label": `Move ${move.number}: ${NAMES[move.side]} pit ${move.pit_index + 1}` +
        (move.mark ? `, ${move.mark}, lost ${move.loss}` : "") },
    `${move.number}. ${NAMES[move.side][0]} ${move.pit_index + 1}`);
    if (move.mark) button.append(element("span", { class: `mark ${move.mark}`, text: SIGNS[move.mark] }));
    button.addEventListener("click", () => select(move.number));
    return element("li", { class: `${KEYS[move.side]}${move.mark ? " marked" : ""}` }, button);
  }));
  const first = answer.moves.find((m) => m.mark);
  select(first ? first.number : 1);
}

function select(number) {
  if (!reviewed) return;
  const move = reviewed.answer.moves[number - 1];
  document.querySelectorAll("#review-moves button[aria-current]").forEach((b) => b.removeAttribute("aria-current"));
  $(`review-move-${number}`)?.setAttribute("aria-current", "step");
  const how = move.exact ? "exact" : `a search ${move.depth} moves deep`;
  const lines = [element("p", {},
    element("strong", { text: `Move ${move.number}: ${NAMES[move.side]} pit ${move.pit_index + 1}` }),
    ` is worth ${signed(move.score_after)} for ${NAMES[move.side]} (${how}).`)];
  if (move.loss > 0) {
    const better = move.best_indices.map((pit) => String(pit + 1)).join(" or ");
    lines.push(element("p", { class: `verdict ${move.mark}` },
      `${capitalised(move.mark)} ${SIGNS[move.mark]}: it lost ${move.loss} seed${move.loss === 1 ? "" : "s"}. ` +
      `Better: pit ${better} (${signed(move.score_before)}); the line: ${pits(move.line_indices)}.`));
  } else {
    lines.push(element("p", { class: "verdict best", text: "A best move: it keeps the position's value." }));
  }
  const values = move.scores.map((v) => `${v.pit_index + 1}: ${signed(v.score)}`).join(", ");
  lines.push(element("p", { class: "values", text: `Every move here (pit: score): ${values}.` }));
  const onBoard = element("button", { type: "button", id: "review-on-board", text: "Show on the board" });
  onBoard.addEventListener("click", () => showOnBoard(number - 1));
  lines.push(element("p", {}, onBoard));
  $("review-detail").replaceChildren(...lines);
}

// the game's view at the position the move was played in (a link, as app.js reads it)
function showOnBoard(before) {
  const { position, players } = reviewed;
  const params = new URLSearchParams();
  params.set("seeds", position.seeds);
  params.set("capture", position.capture);
  params.set("moves", position.moves.slice(0, before).map((pit) => pit + 1).join(","));
  for (const key of KEYS) params.set(key, players[key] in levelNames ? players[key] : "human");
  const hash = "#" + params.toString().replace(/%2C/g, ",").replace(/%3A/g, ":");
  document.querySelector('#views a[data-view="play"]').click();
  location.hash = hash;
}

// -- start ---------------------------------------------------------------------------------

async function readNames() {
  try {
    levelNames = (await call("/api/info")).level_names;
  } catch (error) { /* the game's view says the server is out of reach */ }
}

document.addEventListener("kalah:game", onGame);
document.addEventListener("kalah:over", onOver);
document.addEventListener("kalah:shown", onShown);
document.addEventListener("kalah:view", (event) => { if (event.detail.name === "records") showHistory(); });
const named = readNames();
