// The review of a game (POST /api/review, streamed): a board, the game's curve and the moves
// side by side, stepped with the arrow keys, the chosen move's better moves and line said
// beside the board, and "play from here" against a level of your choice. The server reviews
// (mancala.review); this script asks and draws. Its section is the first of the History
// view (history.js builds the view); app.js plays a position it chose (kalah:play-from).

import { $, call, capital, element, moveEffects, moveList, playerName, plural, signed, speedNow, tabName } from "/client.js";
import { BoardView } from "/board.js";
import { BOX, fit, frame, svg } from "/chart.js";

const SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };     // as chess players write them
const TAB = tabName("review-");
let info = null;        // /api/info
let geo = null;
let board = null;       // the review's board
let reviewing = 0;      // bumped by each review asked: older answers are dropped
let reviewed = null;    // {title, position, human, answer, marks, played} of the review shown
const at = { move: 0, stepping: 0 };    // the position shown: after this many moves

function pits(indices) { return indices.map((pit) => String(pit + 1)).join(" "); }
function nameOf(spec) { return playerName(info, spec); }
function plurals(word) { return word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`; }

// the review's section, for history.js to put first in its view
export function reviewSection(serverInfo) {
  info = serverInfo;
  geo = info.geo;
  const section = element("section", { id: "records-review", "aria-labelledby": "review-title", hidden: "" },
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
        element("ol", { id: "review-moves", class: "move-list", "aria-label": "The moves, each with its mark" }),
        element("div", { id: "review-summary" }),
        element("p", { class: "review-legend",
          text: "Marks by seeds lost against the best move: inaccuracy ?! 1–2, mistake ? 3–5, blunder ?? 6 or more." }))));
  board = new BoardView(section.querySelector("#review-board"), geo, { prefix: "review-", small: true, label: "The game's position at the move chosen" });
  const buttons = { "review-first": () => step(0), "review-back": () => step(at.move - 1), "review-next": () => step(at.move + 1),
    "review-last": () => step(reviewed ? reviewed.position.moves.length : 0) };
  for (const [id, action] of Object.entries(buttons)) section.querySelector(`#${id}`).addEventListener("click", action);
  document.addEventListener("keydown", onKey);
  return section;
}

export function drawReview() {
  if (!reviewed?.answer) return;
  fit($("review-chart"));
  $("review-chart").replaceChildren(reviewChart(reviewed.answer));
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
  chart.append(svg("line", { x1: x(at.move), x2: x(at.move), y1: BOX.top, y2: BOX.height - BOX.bottom, class: "cursor", id: "review-cursor" }));
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

// each JSON line of a streamed answer, as it comes, to onLine (false: stop reading)
async function readLines(response, onLine) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      if (onLine(line) === false) { reader.cancel(); return; }
    }
    if (done) return;
  }
}

async function streamed(asked) {
  const response = await fetch("/api/review", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify(asked) });
  if (!response.ok) {
    let message = `the server answered ${response.status}`;
    try { message = (await response.json()).error || message; } catch (error) { /* not JSON */ }
    throw Object.assign(new Error(message), { status: response.status });
  }
  return response;
}

// a review of a game from a start (seeds, capture, moves); human: the side of the person who
// played it, if one did (the review speaks to them); gameId: its number in the history
export async function askReview(title, position, human = null, gameId = null) {
  const mine = ++reviewing;
  const section = $("records-review");
  section.hidden = false;
  $("review-title").textContent = `Review: ${title}`;
  for (const id of ["review-chart", "review-summary", "review-moves", "review-detail"]) $(id).replaceChildren();
  fit($("review-chart"));        // the chart's room kept from the start: the moves below never jump
  $("review-chart").style.minHeight = `${BOX.height + 2}px`;
  at.move = 0;
  const count = position.moves.length;
  const started = performance.now();
  let done = 0;
  const status = () => `Reviewing ${plural(count, "move")}… ${done} done (the last first), ${Math.round((performance.now() - started) / 1000)} s ` +
    "(each move's score exact where a solve finishes, else a search)";
  $("review-status").textContent = status();
  const ticker = setInterval(() => { if (mine === reviewing) $("review-status").textContent = status(); }, 500);
  section.scrollIntoView({ block: "start" });
  reviewed = { title, position, human, answer: null, marks: {}, played: [] };
  await showPosition(0, null);
  const game = { seeds: position.seeds, capture: position.capture, moves: position.moves };
  try {
    const whole = await call("/api/validate", { position: game });
    if (mine !== reviewing) return;
    reviewed.played = whole.played;
    listMoves();
    const asked = { position: game, tab: TAB, stream: true, ...(gameId !== null ? { game: gameId } : {}) };
    await readLines(await streamed(asked), (line) => {
      if (mine !== reviewing) return false;
      if (line.type === "progress") done = line.done;
      else if (line.type === "move") firstMark(line);
      else if (line.type === "error") throw Object.assign(new Error(line.error), { status: 0 });
      else if (line.type === "review") { reviewed.answer = line; showReview(line); }
      return true;
    });
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

// the moves (+ an extra turn, ×N a capture), each a button to step to; their marks as they come
function listMoves() {
  moveList($("review-moves"), geo, reviewed.played, { current: at.move, onPick: step, id: (n) => `review-move-${n}` });
  Object.values(reviewed.marks).forEach(firstMark);
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
  answer.moves.forEach((move) => { reviewed.marks[move.number] = move; });
  listMoves();
  const first = answer.moves.find((m) => m.mark);
  step(first ? first.number : 1, false);
}

// the review's board after `number` moves: one step on is sown, anything else is set
async function step(number, animate = true) {
  if (!reviewed) return;
  number = Math.max(0, Math.min(reviewed.position.moves.length, number));
  const mine = ++at.stepping;
  const from = at.move;
  at.move = number;
  document.querySelectorAll("#review-moves button[aria-current]").forEach((b) => b.removeAttribute("aria-current"));
  $(`review-move-${number}`)?.setAttribute("aria-current", "step");
  if (reviewed.answer) { drawReview(); detail(number); }
  await showPosition(number, animate && number === from + 1 ? from : null, mine);
}

async function showPosition(number, sowFrom = null, mine = at.stepping) {
  const { seeds, capture, moves } = reviewed.position;
  try {
    if (sowFrom !== null) {
      const answer = await call("/api/move", { position: { seeds, capture, moves: moves.slice(0, sowFrom) }, pit_index: moves[sowFrom] });
      if (mine !== at.stepping) return;
      const before = board.counts.slice();
      await board.sow(answer.move, before, answer.state.slots, { step: Math.min(speedNow().step, 120), still: () => mine === at.stepping });
      if (mine === at.stepping) drawBoard(answer.state);
      return;
    }
    const state = await call("/api/validate", { position: { seeds, capture, moves: moves.slice(0, number) } });
    if (mine === at.stepping) drawBoard(state);
  } catch (error) {
    $("review-status").textContent = `No position: ${error.message}`;
  }
}

function drawBoard(state) {
  const last = state.played.length ? state.played[state.played.length - 1] : null;
  board.clearMarks();
  board.set(state.slots, { toMove: state.game_over ? null : state.to_move,
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
  const did = moveEffects(reviewed.played[number - 1]);      // its capture or extra turn named
  const lines = [element("p", {},
    element("strong", { text: `Move ${move.number}: ${geo.names[move.side]} pit ${move.pit_index + 1}${did ? `, ${did}` : ""}` }),
    ` (played by ${mover}) leaves ${move.text_after}.`)];
  if (move.loss > 0) {     // the better moves in the terminal's words (MoveReview.better)
    lines.push(element("p", { class: `verdict ${move.mark || ""}` },
      `${capital(move.mark || "a small loss")}${move.mark ? ` ${SIGNS[move.mark]}` : ""}: it lost ${plural(move.loss, "seed")}. ` +
      `Better: ${move.better}; its line: ${pits(move.line_indices)}.`));
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
    ...info.levels.filter((level) => level !== "human").map((level) => new Option(nameOf(level), level, false, level === "ai:hard")));
  const button = element("button", { type: "button", id: "review-play", class: "primary", text: label });
  button.addEventListener("click", async () => {
    const state = await call("/api/validate", { position: { seeds, capture, moves: moves.slice(0, count) } });
    const players = state.to_move === 0 ? { south: "human", north: levels.value } : { south: levels.value, north: "human" };
    document.dispatchEvent(new CustomEvent("kalah:play-from", { detail: {
      position: { seeds, capture, moves: moves.slice(0, count) }, players,
      note: `A casual game from move ${count + 1} of the review: you play ${geo.names[state.to_move]} against ${nameOf(levels.value)}.` } }));
  });
  return element("p", { class: "controls" }, element("label", {}, "Against ", levels), button);
}

function onKey(event) {
  if (document.body.dataset.view !== "records" || !reviewed || $("records-review").hidden) return;
  if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("input, select, textarea, dialog")) return;
  const to = { ArrowLeft: at.move - 1, ArrowRight: at.move + 1, Home: 0, End: reviewed.position.moves.length }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  step(to);
}
