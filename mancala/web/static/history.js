// Your records, the game page's History view: your rating with its curve and your games
// (GET /api/history), above them the review of a game (review.js), below them game records:
// every game exported as one file (GET /api/history/export), and a record pasted or opened,
// reviewed (POST /api/review/read reads it as `review FILE` does). The server keeps and
// rates (mancala.history); this script only asks and draws, its chart as inline SVG. app.js
// plays the game and talks to this view through events on document (kalah:kept, kalah:view,
// kalah:review).

import { $, call, capital, element, playerName, plural, serverInfo, signed } from "/client.js";
import { fit, frame, svg } from "/chart.js";
import { askReview, drawReview, reviewSection } from "/review.js";

let info = null;        // /api/info
let geo = null;
let listed = null;      // the history shown (GET /api/history's answer)

function nameOf(spec) { return playerName(info, spec); }
function when(stamp) {      // '2026-05-01T12:00:00Z' -> this browser's local time, to the minute
  const time = new Date(stamp);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(stamp) || Number.isNaN(time.getTime())) return stamp;
  const two = (n) => String(n).padStart(2, "0");
  return `${time.getFullYear()}-${two(time.getMonth() + 1)}-${two(time.getDate())} ${two(time.getHours())}:${two(time.getMinutes())}`;
}

// words with each score ("11–37": pattern's match) kept on one line
function unbroken(words, pattern = /(\d+–\d+)/) {
  return words.split(pattern).map((part, i) => (i % 2 ? element("span", { class: "score-pair", text: part }) : part));
}

function buildRecords() {
  const root = $("view-records");
  if (root.childElementCount) return;
  root.append(
    reviewSection(info),
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
          element("tbody", { id: "games-rows" })))),
    recordsSection());
}

function recordsSection() {
  const section = element("section", { id: "records-files", "aria-labelledby": "files-title" },
    element("h2", { id: "files-title", text: "Game records" }),
    element("p", { class: "note", text: "A game record is a game as text people read and paste (.kalah); " +
      "the terminal reads and writes them too (play --load, review FILE, history --export)." }),
    element("p", { id: "export-line" }, element("a", { id: "export-games", class: "button", href: "/api/history/export",
      download: "mancala-history.kalah", text: "Export all games (.kalah)" })),
    element("label", { for: "record-text", text: "Paste a game record to review it" }),
    element("textarea", { id: "record-text", rows: "6", spellcheck: "false", placeholder: '[Variant "Kalah"] ...' }),
    element("div", { class: "controls" },
      element("button", { type: "button", id: "record-review", text: "Review the record" }),
      element("label", { class: "button", for: "record-file" }, "Open a record…",
        element("input", { id: "record-file", type: "file", accept: ".kalah,.txt,.json,text/plain,application/json" }))),
    element("p", { id: "record-error", class: "error", role: "alert" }));
  section.querySelector("#record-review").addEventListener("click", () => reviewRecord($("record-text").value, "the pasted record"));
  section.querySelector("#record-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (file) reviewRecord(await file.text(), file.name);
  });
  return section;
}

// a record's game (or a save file's) reviewed: the server reads it as `review FILE` does
async function reviewRecord(text, where) {
  $("record-error").textContent = text.trim() ? "" : "Paste a game record (or open one) first.";
  if (!text.trim()) return;
  try {
    const game = await call("/api/review/read", text);
    const { south, north } = game.players;
    askReview(`${where}, ${nameOf(south)} vs ${nameOf(north)}`, game.position, game.human, game.game);
  } catch (error) {
    $("record-error").textContent = `${capital(where)}: ${error.message}`;
  }
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
  // shown as the library words it: '1180? ±310' while provisional, '1612' once settled
  $("rating-line").textContent = rating === null
    ? `Your rating: none yet; you start at ${history.start.shown} once you finish a rated game (? and ±: provisional until it settles).`
    : `Your rating: ${rating.shown}, from ${plural(history.rated_games, "rated game")}` +
      (rating.provisional ? ": provisional (? and its 95% range) until it settles." : ` (95% between ${Math.round(rating.low)} and ${Math.round(rating.high)}).`);
  listed = history;
  drawRating();
  $("records-notices").textContent = history.notices.join(" ");
  $("games-line").textContent = history.count === 0
    ? `No finished games yet. They are kept on this machine, in ${history.file}.`
    : `${plural(history.count, "game")}, kept on this machine in ${history.file}; nothing is sent anywhere.`;
  $("games-rows").replaceChildren(...[...history.games].reverse().map(gameRow));
  $("export-line").hidden = history.count === 0;
}

function gameRow(game) {
  let rating = [game.human === null ? "no one rated" : "casual: not rated"];
  if (game.rating_after) {      // '734? ±397' on one line
    const change = Math.round(game.rating_after.rating - game.rating_before.rating);
    rating = [element("span", { class: "score-pair", text: game.rating_shown }), ` (${signed(change)})`];
  }
  const review = element("button", { type: "button", class: "review", text: "Review",
    "aria-label": `Review game ${game.id}` });
  review.addEventListener("click", () => askReview(`Game ${game.id}: ${game.words}`,
    { seeds: game.seeds, capture: game.capture, moves: game.pit_indices }, game.human, game.id));
  const opponent = game.human === null
    ? `${nameOf(game.players.south)} vs ${nameOf(game.players.north)}`
    : `${nameOf(game.players[geo.side_keys[1 - game.human]])} (you: ${geo.names[game.human]})`;
  const kind = game.rated ? "rated" : "casual";
  return element("tr", { id: `game-${game.id}`, class: game.result === "draw" ? "draw" : "" },
    element("td", {}, String(game.id), element("br"), element("small", { class: "finished" },
      ...unbroken(when(game.finished), /(\S+)/))),      // the date and the time each on one line
    element("td", {}, element("strong", { class: "words" }, ...unbroken(game.words)), element("br"),
      element("small", { text: `${capital(kind)} · ${game.rules}` })),
    element("td", { text: opponent }),
    element("td", {}, element("span", { class: "rating" }, ...rating), element("br"), review));
}

function drawRating() {
  if (!listed) return;
  fit($("rating-chart"));
  $("rating-chart").replaceChildren(...(listed.series.length ? [ratingChart(listed)] : []));
}

let resizing = null;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => { if (document.body.dataset.view === "records") { drawRating(); drawReview(); } }, 150);
});

function ratingChart(history) {
  const points = [{ ...history.start, title: "your start" },
    ...history.series.map((s) => ({ ...s, title: `game ${s.id} against ${nameOf(s.opponent)}` }))];
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
    buildRecords();
    askReview(event.detail.title, event.detail.position, event.detail.human, event.detail.gameId ?? null);
  });
  if (document.body.dataset.view === "records") showHistory();
}

start();
