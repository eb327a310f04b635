// Kalah in the browser: draws what the server answers and asks it for every rule.
// A game is rated or casual, chosen before it starts. A rated game (a person against a
// computer level with an Elo) is the server's: it holds the board, plays the computer's
// moves and keeps the result (POST /api/rated/*); this page sends only the person's moves
// and shows no score, hint or analysis, and has no undo. A casual game is this page's:
// the server checks each move (/api/move), finds the computer's (/api/ai), hints and
// analyses, and keeps the game unrated when it ends (/api/finish).
// Pits: people see 1..6 from the mover's left; the API uses indices 0..5.
// records.js (the History view and the review) hears about the game through events on
// document: kalah:shown (a position shown), kalah:kept (a game kept), kalah:view (another
// view opened); it asks for a review with kalah:review, and this script plays a position
// the review chose on kalah:play-from.

import { $, ApiError, call, capital, element, keepSettings, moveButton, pitText, plural, serverInfo, settings,
  signed, sleep, SPEEDS, speedNow, tabName } from "/client.js";
import { BoardView } from "/board.js";
import { openEditor } from "/editor.js";
import * as sound from "/sound.js";
import { Analysis } from "/analysis.js";

const TAB = tabName();
const RATED_KEY = "kalah-rated";      // sessionStorage: this tab's rated game, kept across a reload
const TOKEN_KEY = "kalah-rated-token";   // sessionStorage: this tab's token, its rated games' key
let info = null;        // /api/info
let geo = null;         // the board's geometry (client.js's Geometry)
let board = null;       // the BoardView drawn in #board-box
let panel = null;       // the live analysis (casual games)

const game = {
  start: { seeds: 4, capture: "standard" },   // or {board: [slots], to_move, capture}
  moves: [],          // the line being looked at, pit indices 0..5
  played: [],         // each of them as the server described it: player, captured, extra_turn
  cursor: 0,          // the position shown: after moves[0..cursor)
  players: { south: "human", north: "ai:medium" },
  rated: null,        // the server's name for this game when it is a rated one
  resigned: null,     // the side that resigned
  kept: null,         // how the history kept it (the result card's): once over
  id: null,           // the page's name for a casual game: it is kept once
};
let view = null;      // the server's state of the position shown
let epoch = 0;        // every change bumps it: answers to older questions are dropped
let busy = false;     // a move is being played (animated)
let hinted = null;
let token = null;     // the token /api/rated/new gave this tab: only it plays the tab's rated game

function position(count = game.cursor) { return { ...game.start, moves: game.moves.slice(0, count) }; }
function sideKey(side) { return geo.side_keys[side]; }
function isHuman(side) { return game.players[sideKey(side)] === "human"; }
function humans() { return [0, 1].filter(isHuman); }
// a rated game the person has played a move in and not finished: leaving it is resigning it
function committed() { return game.rated && !over() && game.played.some((move) => isHuman(move.player)); }
function atEnd() { return game.cursor === game.moves.length; }
function over() { return view && (view.game_over || game.resigned !== null); }
function levelName(level) { return info.level_names[level] || level; }

// a request about this tab's rated game, with the token that makes it this tab's
function ratedCall(path, body = {}) { return call(`/api/rated/${path}`, { game: game.rated, token, ...body }); }

function say(text) { $("announce").textContent = text; }
function fail(text, asIs = false) { $("error").textContent = text && !asIs ? capital(text) : text || ""; }

// -- drawing ---------------------------------------------------------------------------------

function draw() {
  if (!view) return;
  const mover = over() ? null : view.to_move;
  const human = mover !== null && isHuman(mover) && !busy && (atEnd() || !game.rated);
  const names = [0, 1].map((side) => `${geo.names[side]}: ${isHuman(side) && humans().length === 1 ? "You" : levelName(game.players[sideKey(side)])}`);
  const last = game.cursor > 0 ? geo.slotOf(game.played[game.cursor - 1].player, game.moves[game.cursor - 1]) : null;
  board.set(view.slots, { toMove: mover, playable: view.legal_moves, enabled: human, names, last, hinted });
  document.body.classList.toggle("rated", Boolean(game.rated));
  $("status").textContent = statusText();
  const recorded = game.kept !== null;
  $("undo").disabled = game.cursor === 0 || busy || recorded;
  $("redo").disabled = atEnd() || busy || recorded;
  $("hint").disabled = !human;
  $("resign").disabled = mover === null || busy || humans().length === 0 || (game.rated && !atEnd());
  $("review-game").disabled = Boolean(game.start.board) || game.cursor === 0;
  $("review-game").hidden = !$("result-card").hidden;
  $("game-kind").textContent = game.rated ? "Rated" : "Casual";
  $("game-kind").className = `game-kind ${game.rated ? "rated" : "casual"}`;
  $("rated-note").textContent = game.rated
    ? "Played unaided: no hints, analysis or takebacks; the result moves your rating."
    : "Hints, analysis and takebacks allowed; kept in your history, not rated.";
  drawMoveList();
}

// the one person playing (their side), or null: the end is said in their words
function you() { const found = humans(); return found.length === 1 ? found[0] : null; }

function resignText(side) {
  if (you() === null) return `${geo.names[side]} resigned: ${geo.names[1 - side]} wins`;
  return side === you() ? `You resigned: ${geo.names[1 - side]} wins` : `${geo.names[side]} resigned: you win`;
}

function statusText() {
  const viewing = atEnd() ? "" : ` (viewing move ${game.cursor} of ${game.moves.length})`;
  if (game.resigned !== null) return resignText(game.resigned) + viewing;
  if (view.game_over) return outcomeText(view.outcome) + viewing;
  const touch = window.matchMedia("(pointer: coarse), (max-width: 760px)").matches;
  const who = isHuman(view.to_move)
    ? (touch ? `your move: tap a pit` : `your move: click a pit or press 1–${geo.pits}`)
    : viewing ? "the computer's turn" : "the computer is thinking";
  return `${geo.names[view.to_move]} to move: ${who}${viewing}`;
}

function outcomeText(outcome) {
  const score = `${outcome.south}–${outcome.north}`;
  if (outcome.winner === null) return `Game over: a draw, ${score}`;
  const side = you();
  if (side === null) return `Game over: ${geo.names[outcome.winner]} wins ${score}`;
  const [mine, theirs] = side === 0 ? [outcome.south, outcome.north] : [outcome.north, outcome.south];
  return `Game over: you ${outcome.winner === side ? "won" : "lost"} ${mine}–${theirs}`;
}

// the moves, one number a sowing (the review's numbering), grouped by turn
function drawMoveList() {
  const list = $("move-list");
  list.replaceChildren();
  let item = null;
  game.moves.forEach((_, index) => {
    const played = game.played[index];
    const side = played.player;
    if (!item || index === 0 || game.played[index - 1].player !== side || !game.played[index - 1].extra_turn) {
      item = element("li", { class: sideKey(side) });
      list.append(item);
    }
    const button = moveButton(geo, index + 1, played);
    button.dataset.move = index + 1;
    if (index === game.cursor - 1) button.setAttribute("aria-current", "step");
    if (index >= game.cursor) item.classList.add("future");
    button.addEventListener("click", () => goTo(index + 1));
    item.append(button);
  });
  $("to-start").disabled = game.cursor === 0;
}

// -- positions and moves ---------------------------------------------------------------------

async function show() {
  const mine = ++epoch;
  hinted = null;
  try {
    const state = await call("/api/validate", { position: position() });
    if (mine !== epoch) return;
    view = state;
    fail("");
    board.clearMarks();
    draw();
    changed();
  } catch (error) {
    if (mine === epoch) fail(error.message);
  }
}

function goTo(cursor) {
  if (busy) return;
  game.cursor = Math.max(0, Math.min(cursor, game.moves.length));
  if (!game.rated && game.kept === null) game.resigned = null;
  say("");
  show();
}

function humanMove(pit, side) {
  if (busy || !view || over()) return;
  if (side !== view.to_move || !isHuman(side)) return;
  if (game.rated && !atEnd()) { say("A rated game goes on from its last move: → steps back to it."); return; }
  if (!view.legal_moves.includes(pit)) {
    say(`Pit ${pitText(pit)} is empty: play one of ${view.legal_moves.map(pitText).join(", ")}.`);
    return;
  }
  sound.unlock();
  play(pit);
}

// a move played: the rated game's server plays it, or the server checks it for this page
async function play(pit, how = "", answered = null) {
  const mine = ++epoch;
  busy = true;
  hinted = null;
  fail("");
  const before = view.slots.slice();
  try {
    const answer = answered || (game.rated
      ? await ratedCall("move", { pit_index: pit })
      : await call("/api/move", { position: position(), pit_index: pit }));
    if (mine !== epoch) return;
    draw();
    await board.sow(answer.move, before, answer.state.slots, { step: speedNow().step, still: () => mine === epoch });
    if (mine !== epoch) return;
    if (game.moves[game.cursor] !== pit) {       // a move off the line starts a new branch
      game.moves = game.moves.slice(0, game.cursor);
      game.played = game.played.slice(0, game.cursor);
    }
    if (atEnd()) {
      game.moves.push(pit);
      game.played.push(answer.move);
    }
    game.cursor += 1;
    view = answer.state;
    say(describe(answer.move, answer.state, how));
    busy = false;
    if (answer.kept) game.kept = answer.kept;
    draw();
    changed();
    if (view.game_over && atEnd()) ended(answer.kept_error);
  } catch (error) {
    if (mine === epoch) { fail(error.message); busy = false; draw(); }
  } finally {
    if (mine === epoch) busy = false;
  }
}

function describe(move, state, how) {
  const who = geo.names[move.player];
  let text = `${who}${how} sows pit ${pitText(move.pit_index)}.`;
  if (move.captured) text += ` Capture: ${plural(move.captured, "seed")} into ${who}'s store.`;
  if (state.game_over) text += ` ${outcomeText(state.outcome)}.`;
  else if (move.extra_turn) text += ` Extra turn: the last seed landed in ${who}'s store, ${who} moves again.`;
  return text;
}

function changed() {
  writeHash();
  panel.show(view, !game.rated && shownView() === "play" && !over(), game.resigned !== null);
  computerMove();
  tell("kalah:shown", { position: view.position, game_over: view.game_over, rated: Boolean(game.rated) });
}

function tell(name, detail) {
  document.dispatchEvent(new CustomEvent(name, { detail: { ...detail, players: { ...game.players } } }));
}

async function computerMove() {
  if (!view || over() || busy || !atEnd()) return;
  const side = view.to_move;
  const level = game.players[sideKey(side)];
  if (level === "human") return;
  const mine = epoch;
  const started = performance.now();
  try {
    const answer = game.rated ? await ratedCall("reply")
      : await call("/api/ai", { position: position(), level, tab: TAB });
    const wait = speedNow().pause - (performance.now() - started);
    if (wait > 0) await sleep(wait);          // the computer's chains paced: one move at a time
    if (mine !== epoch) return;
    const how = ` (${levelName(level).toLowerCase()})`;
    if (game.rated) await play(answer.move.pit_index, how, answer);
    else await play(answer.pit_index, how);
  } catch (error) {
    if (mine === epoch && error.status !== 409) fail(error.message);
  }
}

function undo() {
  if (busy || game.cursor === 0 || game.rated || game.kept) return;
  let cursor = game.cursor - 1;        // back to the last position a person had to move in
  while (humans().length && cursor > 0 && !isHuman(game.played[cursor].player)) cursor -= 1;
  goTo(cursor);
}

function redo() { if (!game.kept && !atEnd()) goTo(game.cursor + 1); }

async function hint() {
  if (!view || over() || busy || game.rated) return;
  const mine = epoch;
  say("Looking for a good move…");
  try {
    const answer = await call("/api/hint", { position: position() });
    if (mine !== epoch) return;
    hinted = geo.slotOf(view.to_move, answer.pit_index);
    draw();
    // the analysis beside it says the same at the hint's depth; deeper, it may say more
    const deeper = panel.on && !answer.exact && panel.settled !== null && panel.settled !== answer.depth
      ? ` The analysis beside it is at depth ${panel.settled}: a deeper search may score the moves otherwise.` : "";
    say(`Hint: pit ${pitText(answer.pit_index)}, ${answer.text}.${deeper}`);
  } catch (error) {
    if (mine === epoch) fail(error.message);
  }
}

// -- the end: kept in the history, the result card ----------------------------------------------

async function ended(keptError = null) {
  if (game.rated) {
    if (game.kept) showResult(game.kept);
    else fail(keptError || "the game is over but not kept yet");
    return;
  }
  if (game.kept) { showResult(game.kept); return; }
  if (game.start.board) { showResult(null); return; }     // a position set by hand: nothing to replay
  try {
    const body = { position: position(), players: game.players, game: game.id };
    if (game.resigned !== null) body.resigned = sideKey(game.resigned);
    game.kept = await call("/api/finish", body);
    showResult(game.kept);
  } catch (error) {
    showResult(null);
    fail(`Not kept in your history: ${error.message}`);
  }
}

function showResult(kept) {
  const card = $("result-card");
  const outcome = view.outcome;
  let title;
  let margin;
  if (kept) {
    title = kept.words.split(" by resignation")[0].replace(/\s[\d–]+$/, "");
    const { south, north } = kept.game.score;       // the person's seeds first
    const score = kept.game.human === 1 ? `${north}–${south}` : `${south}–${north}`;
    // a resigned game's score is the stores as they stood, not a result ("1–0" read as a win)
    margin = kept.game.resigned   // "south" or "north"
      ? `by resignation, ${score} in the stores` : kept.margin ? `by ${plural(kept.margin, "seed")}, ${score}` : score;
  } else if (game.resigned !== null) {
    title = `${geo.names[1 - game.resigned]} won`;
    margin = "by resignation";
  } else {
    title = outcome.winner === null ? "Draw" : `${geo.names[outcome.winner]} won`;
    margin = `${outcome.south}–${outcome.north}`;
  }
  $("result-title").textContent = title;
  $("result-margin").textContent = capital(margin);
  const rating = $("result-rating");
  rating.replaceChildren();
  if (kept && kept.rated) {
    rating.append("Your rating: ", element("strong", { text: String(Math.round(kept.rating.rating)) }),
      ` (${signed(Math.round(kept.change))})`);
  } else if (kept) {
    rating.textContent = kept.game.human === null ? "No one person played: kept, rates nobody." : "Casual game: kept in your history, not rated.";
  } else {
    rating.textContent = "A position set by hand: not kept in your history.";
  }
  card.className = `result-card ${kept?.result || ""}`;
  card.hidden = false;
  $("result-review").hidden = !kept;
  $("result-review").dataset.game = kept ? kept.game.id : "";
  draw();
  if (kept) {
    sound.gameOver(kept.result === "won" ? true : kept.result === "lost" ? false : null);
    tell("kalah:kept", { kept });
  }
  $(kept ? "result-review" : "result-new").focus({ preventScroll: true });
}

function reviewKept() {
  const kept = game.kept;
  if (!kept) return;
  const g = kept.game;
  tell("kalah:review", { title: `Game ${g.id}`, position: { seeds: g.seeds, capture: g.capture, moves: g.pit_indices },
    gameId: g.id, human: g.human });
}

// -- resign -----------------------------------------------------------------------------------

function resignSide() {
  const people = humans();
  return people.length === 1 ? people[0] : view.to_move;
}

function askResign() {
  if (!view || over() || busy || humans().length === 0) return;
  const side = resignSide();
  $("resign-text").textContent = game.rated
    ? "This rated game counts as a loss, kept in your history and rated."
    : `${geo.names[side]} gives up: the game is kept as ${geo.names[side]}'s loss (casual: not rated).`;
  $("resign-dialog").showModal();
}

async function resign() {
  $("resign-dialog").close();
  if (!view || over() || busy) return;
  const side = resignSide();
  epoch++;
  if (game.rated) {
    try {
      const answer = await ratedCall("resign");
      game.kept = answer.kept;
      game.resigned = answer.resigned;
    } catch (error) { fail(error.message); return; }
  } else {
    game.moves = game.moves.slice(0, game.cursor);
    game.played = game.played.slice(0, game.cursor);
    game.resigned = side;
  }
  say(`${resignText(side)}.`);
  draw();
  panel.show(view, false, true);
  ended();
}

// -- a game set up: new, rated, from a link, a file, the editor, the review ----------------------

function setGame(state, players, { rated = null, kept = null, resigned = null } = {}) {
  const spec = state.position;
  game.start = spec.board ? { board: spec.board, to_move: spec.to_move, capture: spec.capture }
    : { seeds: spec.seeds, capture: spec.capture };
  game.moves = spec.moves.slice();
  game.played = state.played.slice();
  game.cursor = game.moves.length;
  game.players = { ...players };
  game.rated = rated;
  game.kept = kept;
  game.resigned = resigned;
  game.id = tabName("game-");
  try {
    if (rated) sessionStorage.setItem(RATED_KEY, rated); else sessionStorage.removeItem(RATED_KEY);
  } catch (error) { /* no storage */ }
  epoch++;
  busy = false;
  view = state;
  hinted = null;
  $("result-card").hidden = true;
  board.clearMarks();
  draw();
  changed();
  if (over() && kept) showResult(kept);
}

async function startRated(players, seeds, capture) {
  const answer = await call("/api/rated/new", { players, seeds, capture, ...(token ? { token } : {}) });
  token = answer.token;
  try { sessionStorage.setItem(TOKEN_KEY, token); } catch (error) { /* no storage */ }
  setGame(answer.state, players, { rated: answer.game });
}

async function resume() {
  let name = null;
  try {
    name = sessionStorage.getItem(RATED_KEY);
    token = sessionStorage.getItem(TOKEN_KEY);
  } catch (error) { /* no storage */ }
  if (!name || !token) return false;
  try {
    const answer = await call("/api/rated/state", { game: name, token });
    setGame(answer.state, answer.players, { rated: answer.game, kept: answer.kept, resigned: answer.resigned });
    say("Your rated game goes on.");
    return true;
  } catch (error) {
    try { sessionStorage.removeItem(RATED_KEY); } catch (e) { /* no storage */ }
    if (error.status === 404) fail("Your rated game is no longer on the server (it restarted, or the game was left too long).");
    return false;
  }
}

// the server's answer (/api/info: mancala.game.can_be_rated's levels and rules)
function ratedPlayers(south, north) {
  const people = [south, north].filter((p) => p === "human").length;
  return people === 1 && info.rated_levels.includes(south === "human" ? north : south);
}
function ratedRules(seeds, capture) {
  return info.rated_rules.some((rule) => rule.seeds === seeds && rule.capture === capture);
}
function eligible(south, north, seeds, capture) { return ratedPlayers(south, north) && ratedRules(seeds, capture); }

function fillLevels(select, chosen) {
  select.replaceChildren(...Object.entries(info.level_names).map(([level, name]) => {
    const elo = info.level_elo[level];
    return new Option(elo === undefined ? name : `${name} (Elo ${Math.round(elo)})`, level, false, level === chosen);
  }));
}

function ratedChoice() {
  const players = ratedPlayers($("south-player").value, $("north-player").value);
  const rules = ratedRules(whole($("seeds").value), $("capture").value);
  const ok = players && rules;
  $("rated").disabled = !ok;
  if (!ok) $("rated").checked = false;
  const measured = info.rated_rules.map((rule) => `${plural(rule.seeds, "seed")}, capture ${rule.capture}`).join(" or ");
  $("rated-why").textContent = ok
    ? ($("rated").checked ? "Rated: played unaided (no hints, analysis or takebacks); the result moves your rating."
      : "Casual: hints, analysis and takebacks allowed; kept in your history, not rated.")
    : !players ? "Casual: a rated game is you against one computer level."
    : `Casual: rated games are ${measured}, the rules the levels' Elos were measured on.`;
}

function openNewGame() {
  fillLevels($("south-player"), game.players.south);
  fillLevels($("north-player"), game.players.north);
  $("rated").checked = true;
  ratedChoice();
  $("new-dialog").showModal();
}

async function startNewGame() {
  const seeds = whole($("seeds").value);
  const start = { seeds, capture: $("capture").value };
  const players = { south: $("south-player").value, north: $("north-player").value };
  try {
    if (committed()) {     // a rated game left unfinished is resigned: no escape from a loss
      await ratedCall("resign");
    }
    if ($("rated").checked && eligible(players.south, players.north, seeds, start.capture)) {
      await startRated(players, seeds, start.capture);
      say("New rated game.");
    } else {
      setGame(await call("/api/validate", { position: { ...start, moves: [] } }), players);
      say("New casual game.");
    }
    fail("");
  } catch (error) {
    fail(error.message);
  }
}

function newGameClicked() {
  if (committed()) {
    $("resign-text").textContent = "This rated game is not over: a new game resigns it (a loss, kept and rated).";
    $("resign-confirm").textContent = "Resign and start a new game";
    $("resign-dialog").dataset.then = "new";
    $("resign-dialog").showModal();
    return;
  }
  openNewGame();
}

function whole(text) { return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text; }

// -- the link (casual games only: a rated game is not shown in the address) ----------------------

function writeHash() {
  if (game.rated) {
    history.replaceState(null, "", location.pathname + location.search);
    $("explore-link").href = "/explorer";
    return;
  }
  const params = new URLSearchParams();
  if (game.start.board) {
    params.set("board", game.start.board.join(","));
    params.set("to_move", game.start.to_move);
  } else {
    params.set("seeds", game.start.seeds);
  }
  params.set("capture", game.start.capture);
  params.set("moves", game.moves.slice(0, game.cursor).map(pitText).join(","));
  params.set("south", game.players.south);
  params.set("north", game.players.north);
  const hash = "#" + params.toString().replace(/%2C/g, ",").replace(/%3A/g, ":");
  history.replaceState(null, "", hash);
  $("link").href = hash;
  $("explore-link").href = "/explorer" + hash;     // the search-tree explorer, from this position
}

async function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (![...params.keys()].length) return false;
  const number = (text) => (/^-?\d+$/.test(text) ? Number(text) : text);
  const list = (text) => (text ? text.split(",").map((item) => number(item.trim())) : []);
  const start = params.has("board")
    ? { board: list(params.get("board")), to_move: number(params.get("to_move") || "0") }
    : { seeds: number(params.get("seeds") || String(info.default_seeds)) };
  start.capture = params.get("capture") || "standard";
  // the link's moves are pits 1..6; anything else goes to the server as typed, to be refused
  const moves = list(params.get("moves")).map((pit) => (typeof pit === "number" ? pit - 1 : pit));
  const players = { south: params.get("south") || "human", north: params.get("north") || "ai:medium" };
  for (const side of ["south", "north"]) {
    if (!(players[side] in info.level_names)) {
      fail(`the link's ${side} player ${JSON.stringify(players[side])} is not one of ${Object.keys(info.level_names).join(", ")}`);
      return true;
    }
  }
  try {
    setGame(await call("/api/validate", { position: { ...start, moves } }), players);
  } catch (error) {
    fail(`The link's position is refused: ${error.message}`);
  }
  return true;
}

// -- save, load, edit ---------------------------------------------------------------------------

async function save() {
  try {
    const text = await call("/api/save", { position: position(), players: game.players }, true);
    const link = element("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: "mancala-save.json" });
    document.body.append(link);
    link.click();
    link.remove();
    say("Saved as mancala-save.json (the terminal game's format).");
  } catch (error) {
    fail(error.message);
  }
}

async function load(file) {
  if (!file) return;
  try {
    const answer = await call("/api/load", await file.text());
    fail("");
    setGame(answer.state, answer.players);
    say(`Loaded ${file.name}: a casual game.${answer.note ? " " + answer.note + "." : ""}`);
  } catch (error) {
    fail(`${file.name}: ${error.message}`, true);
  } finally {
    $("load-file").value = "";
  }
}

function edit() {
  if (game.rated) return;
  openEditor(geo, info, view, async (spec) => {
    const state = await call("/api/validate", { position: spec });
    say("Position set: a casual game from it.");
    fail("");
    setGame(state, game.players);
  });
}

// -- views: the game, and the pages other scripts fill (each a .view element, #view-NAME) --------

function shownView() { return document.body.dataset.view || "play"; }
function viewLinks() { return [...document.querySelectorAll("#views a[data-view]")]; }

function showView(name, push = false, first = false) {
  const link = viewLinks().find((a) => a.dataset.view === name) || viewLinks()[0];
  name = link.dataset.view;
  if (push && location.pathname !== link.pathname) history.pushState(null, "", link.pathname + location.search + location.hash);
  document.querySelectorAll(".view").forEach((section) => { section.hidden = section.id !== `view-${name}`; });
  viewLinks().forEach((a) => (a === link ? a.setAttribute("aria-current", "page") : a.removeAttribute("aria-current")));
  const changedView = shownView() !== name;
  document.body.dataset.view = name;
  if (changedView && view) panel.show(view, !game.rated && name === "play" && !over(), game.resigned !== null);
  if (changedView || first) document.dispatchEvent(new CustomEvent("kalah:view", { detail: { name } }));
}

function viewOfPath() {
  const link = viewLinks().find((a) => a.pathname === location.pathname);
  return link ? link.dataset.view : "play";
}

// -- keys, settings and start --------------------------------------------------------------------

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  const pit = key.length === 1 && key >= "1" && key <= String(geo.pits);
  // a pit's key plays from the speed select too (no option starts with a digit): a player who
  // just chose a speed is not left pressing keys that do nothing
  if (event.target.closest("input, textarea, dialog") || (event.target.closest("select") && !pit)) return;
  if (shownView() !== "play") return;
  if (pit && view) humanMove(Number(key) - 1, view.to_move);
  else if (key === "arrowleft") goTo(game.cursor - 1);
  else if (key === "arrowright") goTo(game.cursor + 1);
  else if (key === "u") undo();
  else if (key === "r") redo();
  else if (key === "h") hint();
  else if (key === "n") newGameClicked();
  else return;
  event.preventDefault();
}

function settingsControls() {
  const speed = $("speed");
  speed.replaceChildren(...Object.entries(SPEEDS).map(([key, s]) => new Option(s.name, key, false, key === settings().speed)));
  speed.addEventListener("change", () => {
    keepSettings({ speed: speed.value });
    const params = new URLSearchParams(location.search);
    if (params.has("speed")) { params.delete("speed"); history.replaceState(null, "", location.pathname + (params.toString() ? `?${params}` : "") + location.hash); }
  });
  const button = $("sound");
  const drawSound = () => {
    const on = settings().sound;
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Sound on" : "Sound off";
  };
  button.addEventListener("click", () => { keepSettings({ sound: !settings().sound }); drawSound(); sound.unlock(); });
  drawSound();
}

async function main() {
  try {
    info = await serverInfo();
  } catch (error) {
    fail(error instanceof ApiError ? error.message : "the server cannot be reached: is python -m mancala serve running?");
    return;
  }
  geo = info.geo;
  game.start.seeds = info.default_seeds;
  const seeds = $("seeds");
  [seeds.min, seeds.max, seeds.value] = [info.seeds[0], info.seeds[1], info.default_seeds];
  $("capture").replaceChildren(...info.capture_rules.map((rule) => new Option(info.capture_words[rule], rule)));
  board = new BoardView($("board-box"), geo, { onPit: humanMove });
  panel = new Analysis(geo, { pitText });
  settingsControls();
  document.body.dataset.view = viewOfPath();
  viewLinks().forEach((a) => a.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    showView(a.dataset.view, true);
  }));
  window.addEventListener("popstate", () => showView(viewOfPath()));
  $("new-game").addEventListener("click", newGameClicked);
  $("result-new").addEventListener("click", newGameClicked);
  $("result-review").addEventListener("click", reviewKept);
  $("new-cancel").addEventListener("click", () => $("new-dialog").close());
  $("new-form").addEventListener("submit", (event) => { if (event.submitter?.id === "new-start") startNewGame(); });
  for (const id of ["south-player", "north-player", "rated", "capture"]) $(id).addEventListener("change", ratedChoice);
  $("seeds").addEventListener("input", ratedChoice);
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("hint").addEventListener("click", hint);
  $("resign").addEventListener("click", askResign);
  $("resign-cancel").addEventListener("click", () => { delete $("resign-dialog").dataset.then; $("resign-dialog").close(); });
  $("resign-confirm").addEventListener("click", async () => {
    const then = $("resign-dialog").dataset.then;
    delete $("resign-dialog").dataset.then;
    $("resign-confirm").textContent = "Resign";
    if (then === "new") { $("resign-dialog").close(); await resign(); openNewGame(); } else resign();
  });
  $("review-game").addEventListener("click", () => {
    if (game.rated || game.start.board) return;
    tell("kalah:review", { title: `This game (${plural(game.cursor, "move")})`, position: position(), human: humans().length === 1 ? humans()[0] : null });
  });
  $("to-start").addEventListener("click", () => goTo(0));
  $("edit").addEventListener("click", edit);
  $("save").addEventListener("click", save);
  $("load-file").addEventListener("change", (event) => load(event.target.files[0]));
  $("analyse").addEventListener("change", () => panel.show(view, !game.rated && !over(), game.resigned !== null));
  $("link").addEventListener("click", (event) => { event.preventDefault(); navigator.clipboard?.writeText(location.href); say("The link to this position is in the address bar (and copied)."); });
  document.addEventListener("keydown", onKey);
  document.addEventListener("kalah:play-from", async (event) => {
    const { position: spec, players, note } = event.detail;
    try {
      setGame(await call("/api/validate", { position: spec }), players);
      showView("play", true);
      say(note || "A casual game from the review's position.");
    } catch (error) { fail(error.message); }
  });
  window.addEventListener("hashchange", () => { if (!game.rated) readHash(); });
  window.addEventListener("pagehide", () => panel.leave());
  window.addEventListener("pageshow", (event) => { if (event.persisted && view) panel.show(view, !game.rated && !over(), false); });
  if (!(await resume()) && !(await readHash())) {
    try {
      await startRated({ south: "human", north: "ai:medium" }, info.default_seeds, "standard");
    } catch (error) { fail(error.message); }
  }
  showView(viewOfPath(), false, true);
  performance.mark("ready");     // the first position drawn (bench/web_load.py reads it)
  document.body.dataset.ready = "1";
}

main();
