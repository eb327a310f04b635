// Kalah in the browser: draws what the server answers and asks it for every rule. The game
// itself, rated or casual, is game.js's (one face for both kinds: this script never asks
// which kind it plays, only what the game allows); the new-game dialog is newgame.js's.
// Pits: people see 1..6 from the mover's left; the API uses indices 0..5.
// history.js (the History view and the review) hears about the game through events on
// document: kalah:shown (a position shown), kalah:kept (a game kept), kalah:view (another
// view opened); it asks for a review with kalah:review, and this script plays a position
// the review chose on kalah:play-from.

import { $, ApiError, call, capital, moveList, pitText, playerName, plural, serverInfo, sleep, speedNow } from "/client.js";
import { BoardView } from "/board.js";
import { openEditor } from "/editor.js";
import * as sound from "/sound.js";
import { Analysis } from "/analysis.js";
import { CasualGame, RatedGame, resumeGame } from "/game.js";
import { readLink } from "/link.js";
import { chosen, openNewGame, ratedChosen, setupNewGame } from "/newgame.js";
import { showResultCard } from "/result.js";
import { setupSettings, setupViews, shownView, showView, viewOfPath } from "/views.js";

// made once, at the start; started: the first game shown (nothing acts on a game before it)
const page = { info: null, geo: null, board: null, panel: null, started: null };
let game = null;        // the game played (game.js)
const now = { epoch: 0, busy: false, hinted: null };   // every change bumps epoch; busy: a move is sown

function isHuman(side) { return game.player(side, page.geo) === "human"; }
function humans() { return game.humans(page.geo); }
function you() { return game.you(page.geo); }
function levelName(level) { return playerName(page.info, level); }
function say(text) { $("announce").textContent = text; }
function fail(text, asIs = false) { $("error").textContent = text && !asIs ? capital(text) : text || ""; }

// -- drawing ---------------------------------------------------------------------------------

function draw() {
  const view = game?.view;
  if (!view) return;
  const geo = page.geo;
  const mover = game.over() ? null : view.to_move;
  const human = mover !== null && isHuman(mover) && !now.busy && (game.atEnd() || game.helps);
  const names = [0, 1].map((side) => `${geo.names[side]}: ${isHuman(side) && humans().length === 1 ? "You" : levelName(game.player(side, geo))}`);
  const last = game.cursor > 0 ? geo.slotOf(game.played[game.cursor - 1].player, game.moves[game.cursor - 1]) : null;
  page.board.set(view.slots, { toMove: mover, playable: view.legal_moves, enabled: human, names, last, hinted: now.hinted });
  document.body.classList.toggle("rated", game.rated);
  $("status").textContent = statusText();
  const recorded = game.kept !== null;
  $("undo").disabled = game.cursor === 0 || now.busy || recorded;
  $("redo").disabled = game.atEnd() || now.busy || recorded;
  $("hint").disabled = !human;
  $("resign").disabled = mover === null || now.busy || humans().length === 0 || (!game.helps && !game.atEnd());
  $("review-game").disabled = Boolean(game.start.board) || game.cursor === 0;
  $("review-game").hidden = !$("result-card").hidden;
  $("game-kind").textContent = game.kind;
  $("game-kind").className = `game-kind ${game.kind.toLowerCase()}`;
  $("rated-note").textContent = game.note(page.info.left_rule);
  drawMoveList();
}

function statusText() {
  return game.statusText(page.geo, window.matchMedia("(pointer: coarse), (max-width: 760px)").matches);
}

// the moves, one number a sowing (the review's numbering), grouped by turn
function drawMoveList() {
  moveList($("move-list"), page.geo, game.played.slice(0, game.moves.length),
    { current: game.cursor, from: game.cursor, onPick: goTo });
  $("to-start").disabled = game.cursor === 0;
}

// -- positions and moves ---------------------------------------------------------------------

async function show() {
  const mine = ++now.epoch;
  now.hinted = null;
  try {
    const state = await call("/api/validate", { position: game.position() });
    if (mine !== now.epoch) return;
    game.view = state;
    fail("");
    page.board.clearMarks();
    draw();
    changed();
  } catch (error) {
    if (mine === now.epoch) fail(error.message);
  }
}

function goTo(cursor) {
  if (now.busy) return;
  game.cursor = Math.max(0, Math.min(cursor, game.moves.length));
  if (game.helps && game.kept === null) game.resigned = null;
  say("");
  show();
}

function humanMove(pit, side) {
  const view = game?.view;
  if (now.busy || !view || game.over()) return;
  if (side !== view.to_move || !isHuman(side)) return;
  if (!game.atEnd() && !game.helps) { say("A rated game goes on from its last move: → steps back to it."); return; }
  if (!view.legal_moves.includes(pit)) {
    say(`Pit ${pitText(pit)} is empty: play one of ${view.legal_moves.map(pitText).join(", ")}.`);
    return;
  }
  sound.unlock();
  play((current) => current.move(pit));
}

// a move played (ask: how the game plays it, answering {move, state}), sown, then said; the
// computer's (computer: true) leaves the page free while it thinks (an undo, a new game)
async function play(ask, computer = false) {
  const mine = ++now.epoch;
  const current = game;
  now.busy = !computer;
  now.hinted = null;
  fail("");
  const before = game.view.slots.slice();
  try {
    const answer = await ask(current);
    if (mine !== now.epoch) return;
    now.busy = true;
    draw();
    await page.board.sow(answer.move, before, answer.state.slots, { step: speedNow().step, still: () => mine === now.epoch });
    if (mine !== now.epoch) return;
    game.advance(answer.move.pit_index, answer.move, answer.state);
    say(game.describe(answer.move, answer.state, page.geo, levelName));
    now.busy = false;
    draw();
    changed();
    if (game.view.game_over && game.atEnd()) ended();
  } catch (error) {
    if (mine === now.epoch && !(computer && error.status === 409)) fail(error.message);
  } finally {
    if (mine === now.epoch) { now.busy = false; draw(); }
  }
}

function analysed() { return game.helps && shownView() === "play" && !game.over(); }

function changed() {
  game.store(page.geo);         // a casual game written down as it stands (a rated one is the server's)
  writeHash();
  page.panel.show(game.view, analysed(), game.resigned !== null);
  computerMove();
  tell("kalah:shown", { position: game.view.position, game_over: game.view.game_over, rated: game.rated });
}

function tell(name, detail) {
  document.dispatchEvent(new CustomEvent(name, { detail: { ...detail, players: { ...game.players } } }));
}

async function computerMove() {
  if (!game.view || game.over() || now.busy || !game.atEnd()) return;
  const level = game.player(game.view.to_move, page.geo);
  if (level === "human") return;
  const started = performance.now();
  // the computer's chains paced: one move at a time, the answer sown after the pause
  await play(async (current) => {
    const answer = await current.reply(level);
    const wait = speedNow().pause - (performance.now() - started);
    if (wait > 0) await sleep(wait);
    return answer;
  }, true);
}

// a key or a button that has no place in this game: said, not silently ignored
function refuse(what) {
  if (!game.helps) say(`${what} a rated game: it is played unaided.`);
  return !game.helps;
}

function undo() {
  if (refuse("No takebacks in") || now.busy || game.cursor === 0 || game.kept) return;
  let cursor = game.cursor - 1;        // back to the last position a person had to move in
  while (humans().length && cursor > 0 && !isHuman(game.played[cursor].player)) cursor -= 1;
  goTo(cursor);
}

function redo() { if (!game.kept && !game.atEnd()) goTo(game.cursor + 1); }

async function hint() {
  if (refuse("No hints in") || !game.view || game.over() || now.busy) return;
  const mine = now.epoch;
  say("Looking for a good move…");
  try {
    // with the analysis on, its best move at the depth it reached: one number, the bar's;
    // else the hint's own search (mancala.analysis.hint, the terminal's)
    const answer = (await page.panel.best()) || await call("/api/hint", { position: game.position() });
    if (mine !== now.epoch) return;
    now.hinted = page.geo.slotOf(game.view.to_move, answer.pit_index);
    draw();
    say(`Hint: pit ${pitText(answer.pit_index)}, ${answer.text}.`);
  } catch (error) {
    if (mine === now.epoch) fail(error.message);
  }
}

// -- the end: kept in the history, the result card ----------------------------------------------

async function ended() {
  try {
    showResult(await game.end(page.geo));
    if (game.unkept) fail(game.unkept);
  } catch (error) { fail(error.message); }
}

function showResult(kept) {
  showResultCard(page.geo, kept, game.view, game.resigned, game.notKept);
  draw();
  if (kept) {
    sound.gameOver(kept.result === "won" ? true : kept.result === "lost" ? false : null);
    tell("kalah:kept", { kept });
  }
  $(kept ? "result-review" : "result-new").focus({ preventScroll: true });
}

function reviewKept() {
  const g = game.kept?.game;
  if (!g) return;
  tell("kalah:review", { title: `Game ${g.id}`, position: { seeds: g.seeds, capture: g.capture, moves: g.pit_indices },
    gameId: g.id, human: g.human });
}

// -- resign -----------------------------------------------------------------------------------

function resignSide() { return humans().length === 1 ? humans()[0] : game.view.to_move; }

function askResign() {
  if (!game.view || game.over() || now.busy || humans().length === 0) return;
  $("resign-text").textContent = game.resignQuestion(resignSide(), page.geo);
  $("resign-dialog").showModal();
}

async function resign() {
  $("resign-dialog").close();
  if (!game.view || game.over() || now.busy) return;
  const side = resignSide();
  now.epoch++;
  try {
    await game.resign(side);
  } catch (error) { fail(error.message); return; }
  say(`${game.resignText(side, page.geo)}.`);
  draw();
  page.panel.show(game.view, false, true);
  ended();
}

// -- a game set up: new, rated, from a link, a file, the editor, the review ----------------------

function setGame(next) {
  game = next;
  game.remember();
  now.epoch++;
  now.busy = false;
  now.hinted = null;
  $("result-card").hidden = true;
  page.board.clearMarks();
  draw();
  changed();
  if (game.over() && game.kept) showResult(game.kept);
}

async function casual(position, players) {
  return new CasualGame(await call("/api/validate", { position }), players);
}

async function startNewGame() {
  const { players, seeds, capture } = chosen();
  await page.started;
  try {
    if (game?.committed(page.geo)) await game.resign();   // a rated game left unfinished is resigned
    if (await ratedChosen()) {
      setGame(await RatedGame.start(players, seeds, capture));
      say("New rated game.");
    } else {
      setGame(await casual({ seeds, capture, moves: [] }, players));
      say("New casual game.");
    }
    fail("");
  } catch (error) {
    fail(error.message);
  }
}

async function newGameClicked() {
  await page.started;           // a reloaded rated game is known before anything is asked
  if (game.committed(page.geo)) {
    $("resign-text").textContent = "This rated game is not over: a new game resigns it (a loss, kept and rated).";
    $("resign-confirm").textContent = "Resign and start a new game";
    $("resign-dialog").dataset.then = "new";
    $("resign-dialog").showModal();
    return;
  }
  openNewGame(game.players);
}

// -- the link (casual games only: a rated game is not shown in the address) ----------------------

function writeHash() {
  const hash = game.link();
  history.replaceState(null, "", hash || location.pathname + location.search);
  $("link").href = hash || "#";
  $("explore-link").href = "/explorer" + (hash || "");   // the search-tree explorer, from this position
}

async function readHash() {
  const link = readLink(location.hash, page.info);
  if (!link) return false;
  for (const side of ["south", "north"]) {
    const player = link.players[side];
    if (!(player in page.info.level_names) && !/^ai:elo=\d+$/.test(player)) {
      fail(`the link's ${side} player ${JSON.stringify(player)} is not one of ${Object.keys(page.info.level_names).join(", ")}`);
      return true;
    }
  }
  try {
    setGame(await casual(link.position, link.players));
  } catch (error) {
    fail(`The link's position is refused: ${error.message}`);
  }
  return true;
}

// -- save, load, edit ---------------------------------------------------------------------------

async function save(format) {
  if (refuse("No saving in")) return;
  try { say(`Saved as ${await game.download(format)}.`); } catch (error) { fail(error.message); }
}

async function load(file) {
  if (!file) return;
  try {
    const { loaded, note } = await CasualGame.load(file);
    fail("");
    setGame(loaded);
    say(`Loaded ${file.name}: a casual game.${note ? " " + note + "." : ""}`);
  } catch (error) {
    fail(`${file.name}: ${error.message}`, true);
  } finally {
    $("load-file").value = "";
  }
}

function edit() {
  if (refuse("No position editor in")) return;
  openEditor(page.geo, page.info, game.view, async (spec) => {
    const next = await casual(spec, game.players);
    say("Position set: a casual game from it.");
    fail("");
    setGame(next);
  });
}

// -- keys, settings and start --------------------------------------------------------------------

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || !game) return;
  const key = event.key.toLowerCase();
  const pit = key.length === 1 && key >= "1" && key <= String(page.geo.pits);
  // a pit's key plays from the speed select too (no option starts with a digit): a player who
  // just chose a speed is not left pressing keys that do nothing
  if (event.target.closest("input, textarea, dialog") || (event.target.closest("select") && !pit)) return;
  if (shownView() !== "play") return;
  const keys = { arrowleft: () => goTo(game.cursor - 1), arrowright: () => goTo(game.cursor + 1), u: undo, r: redo, h: hint, n: newGameClicked };
  if (pit && game.view) humanMove(Number(key) - 1, game.view.to_move);
  else if (keys[key]) keys[key]();
  else return;
  event.preventDefault();
}

function listen() {
  document.addEventListener("kalah:view", () => { if (game?.view) page.panel.show(game.view, analysed(), game.resigned !== null); });
  const clicks = { "new-game": newGameClicked, "result-new": newGameClicked, "result-review": reviewKept,
    undo, redo, hint, resign: askResign, "to-start": () => goTo(0), edit, save: () => save("json"), "save-record": () => save("record") };
  for (const [id, action] of Object.entries(clicks)) $(id).addEventListener("click", action);
  $("resign-cancel").addEventListener("click", () => { delete $("resign-dialog").dataset.then; $("resign-dialog").close(); });
  $("resign-confirm").addEventListener("click", async () => {
    const then = $("resign-dialog").dataset.then;
    delete $("resign-dialog").dataset.then;
    $("resign-confirm").textContent = "Resign";
    if (then === "new") { $("resign-dialog").close(); await resign(); openNewGame(game.players); } else resign();
  });
  $("review-game").addEventListener("click", () => {
    if (!game.helps || game.start.board) return;
    tell("kalah:review", { title: `This game (${plural(game.cursor, "move")})`, position: game.position(), human: you() });
  });
  $("load-file").addEventListener("change", (event) => load(event.target.files[0]));
  $("analyse").addEventListener("change", () => page.panel.show(game.view, game.helps && !game.over(), game.resigned !== null));
  $("link").addEventListener("click", (event) => { event.preventDefault(); navigator.clipboard?.writeText(location.href); say("The link to this position is in the address bar (and copied)."); });
  document.addEventListener("keydown", onKey);
  document.addEventListener("kalah:play-from", async (event) => {
    const { position: spec, players, note } = event.detail;
    try {
      setGame(await casual(spec, players));
      showView("play", true);
      say(note || "A casual game from the review's position.");
    } catch (error) { fail(error.message); }
  });
  window.addEventListener("hashchange", () => { if (game?.helps) readHash(); });
  window.addEventListener("pagehide", () => page.panel.leave());
  window.addEventListener("pageshow", (event) => { if (event.persisted && game?.view) page.panel.show(game.view, game.helps && !game.over(), false); });
}

// the game to show first: the tab's own (a reload, a page come back to), unless a link asks
// for another position; else a link's position; else a new rated game
async function firstGame() {
  let resumed = null;
  try { resumed = await resumeGame(); } catch (error) { fail(error.message); }
  const link = readLink(location.hash, page.info);
  if (resumed && (resumed.rated || !link || resumed.link() === location.hash)) {
    setGame(resumed);
    say(`Your ${resumed.kind.toLowerCase()} game ${resumed.over() ? "is over" : "goes on"}.`);
    return;
  }
  if (await readHash()) return;
  const info = page.info;
  try {
    setGame(await RatedGame.start(info.default_players, info.default_seeds, info.default_capture));
  } catch (error) { fail(error.message); }
}

async function main() {
  try {
    page.info = await serverInfo();
  } catch (error) {
    fail(error instanceof ApiError ? error.message : "the server cannot be reached: is python -m mancala serve running?");
    return;
  }
  const info = page.info;
  page.geo = info.geo;
  page.board = new BoardView($("board-box"), page.geo, { onPit: humanMove });
  page.panel = new Analysis(page.geo, { pitText });
  setupSettings();
  setupNewGame(info, startNewGame);
  setupViews();
  listen();
  page.started = firstGame();
  await page.started;
  showView(viewOfPath(), false, true);
  performance.mark("ready");     // the first position drawn (bench/web_load.py reads it)
  document.body.dataset.ready = "1";
}

main();
