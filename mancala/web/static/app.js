// Kalah in the browser: draws what the server answers and asks it for every rule.
// The server (python -m mancala serve) checks positions, plays moves, finds the
// computer's moves and streams the analysis; this script only shows them.
// Pits: people see 1..6 from the mover's left; the API uses indices 0..5.
// The board's geometry, the levels and the seeds range come from /api/info.
// Other pages' scripts (records.js: the history and the review) hear about the game
// through events on document: kalah:game (a game set up: new, loaded, from a link),
// kalah:over (a move played here ended it), kalah:shown (another position shown) and
// kalah:view (another view opened: the nav's links, each view a .view element).

import { ApiError, call, signed, tabName } from "/client.js";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
let NAMES = [];         // the sides as people read them: South, North
let LEVEL_NAMES = {};   // level -> its name on the page
let LEVEL_ELO = {};     // level -> its Elo on the levels' scale (random is 0)
let geometry = null;    // pits, slots, stores and each side's pit slots
const HINT_LEVEL = "ai:hard";
const ANALYSIS_SECONDS = 30;
const SPEEDS = { normal: { step: 160, pause: 700 }, fast: { step: 40, pause: 150 }, off: { step: 0, pause: 0 } };
const TAB = tabName();

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const game = {
  start: { seeds: null, capture: "standard" },   // or {board: [slots], to_move, capture}; seeds from /api/info
  moves: [],          // the line being looked at, pit indices 0..5
  movers: [],         // who played each of them (0 South, 1 North)
  cursor: 0,          // the position shown: after moves[0..cursor)
  players: { south: "human", north: "ai:medium" },
  resigned: null,     // the side that resigned (at the end of the line)
};
let view = null;      // the server's state of the position shown
let epoch = 0;        // every change bumps it: answers to older questions are dropped
let busy = false;     // a move is being played (animated)
let hinted = null;
let speed = SPEEDS.normal;

function position(count = game.cursor) {
  return { ...game.start, moves: game.moves.slice(0, count) };
}

function sideKey(side) { return geometry.side_keys[side]; }
function isHuman(side) { return game.players[sideKey(side)] === "human"; }
function pitText(pit) { return String(pit + 1); }

// -- the board's geometry (the server's) -------------------------------------------------

function slotOf(side, pit) { return geometry.pit_slots[side][pit]; }
function isStore(slot) { return geometry.stores.includes(slot); }
function sideOf(slot) {
  return isStore(slot) ? geometry.stores.indexOf(slot) : geometry.pit_slots[0].includes(slot) ? 0 : 1;
}
function pitOf(slot) { return geometry.pit_slots[sideOf(slot)].indexOf(slot); }
function letterOf(slot) { return LETTERS[sideOf(slot) * geometry.pits + pitOf(slot)]; }
// as the board is drawn: North on top, its pits running right to left
function rowSlots(side) { return side === 0 ? geometry.pit_slots[0] : [...geometry.pit_slots[1]].reverse(); }

async function readInfo() {
  const info = await call("/api/info");
  geometry = info.geometry;
  NAMES = info.geometry.side_names;
  LEVEL_NAMES = info.level_names;
  LEVEL_ELO = info.level_elo;
  game.start.seeds = info.default_seeds;
  const seeds = $("seeds");
  [seeds.min, seeds.max, seeds.value] = [info.seeds[0], info.seeds[1], info.default_seeds];
}

function say(text) { $("announce").textContent = text; }
function fail(text, asIs = false) {
  $("error").textContent = text && !asIs ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

// -- the board ----------------------------------------------------------------------------

function buildBoard() {
  for (const side of [0, 1]) {
    $(`store-${sideKey(side)}`).id = `store-${geometry.stores[side]}`;
    for (const slot of rowSlots(side)) {
      const pit = document.createElement("button");
      pit.type = "button";
      pit.className = "pit";
      pit.id = `pit-${slot}`;
      pit.dataset.slot = slot;
      pit.innerHTML = `<span class="count">0</span><span class="label">${pitText(pitOf(slot))} ${letterOf(slot)}</span>`;
      pit.addEventListener("click", () => humanMove(pitOf(slot), side));
      $(`row-${sideKey(side)}`).appendChild(pit);
    }
  }
}

function slotElement(slot) { return isStore(slot) ? $(`store-${slot}`) : $(`pit-${slot}`); }

function setCount(slot, count) {
  const element = slotElement(slot);
  element.querySelector(".count").textContent = count;
  if (isStore(slot)) {
    element.setAttribute("aria-label", `${NAMES[sideOf(slot)]}'s store: ${count} seeds`);
  }
}

function draw() {
  if (!view) return;
  const mover = view.game_over || game.resigned !== null ? null : view.to_move;
  const human = mover !== null && isHuman(mover) && !busy;
  for (let slot = 0; slot < geometry.slots; slot++) {
    setCount(slot, view.slots[slot]);
    if (isStore(slot)) continue;
    const pit = $(`pit-${slot}`);
    const side = sideOf(slot);
    const legal = side === mover && view.legal_moves.includes(pitOf(slot));
    pit.disabled = !(legal && human);
    pit.classList.toggle("playable", legal);
    pit.classList.toggle("hinted", hinted === slot);
    pit.classList.toggle("last", game.cursor > 0 && lastSlot() === slot);
    const count = view.slots[slot];
    pit.setAttribute("aria-label", `${NAMES[side]} pit ${pitText(pitOf(slot))}: ${count} seed${count === 1 ? "" : "s"}` +
      (legal ? (human ? ", playable" : "") : ""));
  }
  for (const side of [0, 1]) {
    const key = sideKey(side);
    const name = `${NAMES[side]}: ${LEVEL_NAMES[game.players[key]]}`;
    $(`${key}-name`).textContent = mover === side ? `▶ ${name} to move` : name;
    $(`${key}-name`).classList.toggle("mover", mover === side);
    $(`row-${key}`).classList.toggle("mover", mover === side);
  }
  $("status").textContent = statusText();
  $("undo").disabled = game.cursor === 0 || busy;
  $("redo").disabled = game.cursor >= game.moves.length || busy;
  $("hint").disabled = !human;
  $("resign").disabled = mover === null || busy;
  drawMoveList();
}

function lastSlot() {
  const side = game.movers[game.cursor - 1];
  return side === undefined ? null : slotOf(side, game.moves[game.cursor - 1]);
}

function statusText() {
  const viewing = game.cursor < game.moves.length ? ` (viewing move ${game.cursor} of ${game.moves.length})` : "";
  if (game.resigned !== null) {
    return `${NAMES[game.resigned]} resigned: ${NAMES[1 - game.resigned]} wins`;
  }
  if (view.game_over) return outcomeText(view.outcome) + viewing;
  const who = isHuman(view.to_move) ? `type or click a pit 1–${geometry.pits}`
    : viewing ? "the computer's turn (redo follows the game)" : "the computer is thinking";
  return `${NAMES[view.to_move]} to move: ${who}${viewing}`;
}

function outcomeText(outcome) {
  const score = `${outcome.south}–${outcome.north}`;
  if (outcome.winner === null) return `Game over: a draw, ${score}`;
  return `Game over: ${NAMES[outcome.winner]} wins ${score}`;
}

function drawMoveList() {
  const list = $("move-list");
  list.replaceChildren();
  game.moves.forEach((pit, index) => {
    const item = document.createElement("li");
    const side = game.movers[index];
    item.className = `${sideKey(side)}${index >= game.cursor ? " future" : ""}`;
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = `${index + 1}. ${NAMES[side][0]} ${pitText(pit)}`;
    button.setAttribute("aria-label", `Move ${index + 1}: ${NAMES[side]} pit ${pitText(pit)}`);
    if (index === game.cursor - 1) button.setAttribute("aria-current", "step");
    button.addEventListener("click", () => goTo(index + 1));
    item.appendChild(button);
    list.appendChild(item);
  });
  $("to-start").disabled = game.cursor === 0;
}

// -- moves ------------------------------------------------------------------------------

async function show() {
  const mine = ++epoch;
  hinted = null;
  try {
    const state = await call("/api/validate", { position: position() });
    if (mine !== epoch) return;
    view = state;
    fail("");
    draw();
    changed();
  } catch (error) {
    if (mine === epoch) fail(error.message);
  }
}

function goTo(cursor) {
  if (busy) return;
  game.cursor = Math.max(0, Math.min(cursor, game.moves.length));
  game.resigned = null;
  say("");
  show();
}

function humanMove(pit, side) {
  if (busy || !view || view.game_over || game.resigned !== null) return;
  if (side !== view.to_move || !isHuman(side)) return;
  if (!view.legal_moves.includes(pit)) {
    say(`Pit ${pitText(pit)} is empty: play one of ${view.legal_moves.map(pitText).join(", ")}.`);
    return;
  }
  play(pit);
}

async function play(pit, how = "") {
  const mine = ++epoch;
  busy = true;
  hinted = null;
  fail("");
  const before = view.slots.slice();
  try {
    const answer = await call("/api/move", { position: position(), pit_index: pit });
    if (mine !== epoch) return;
    draw();
    await animate(answer.move, before, mine);
    if (mine !== epoch) return;
    // a move off the line starts a new branch; the line's own next move keeps the rest
    if (game.moves[game.cursor] !== pit) {
      game.moves = game.moves.slice(0, game.cursor);
      game.movers = game.movers.slice(0, game.cursor);
    }
    if (game.moves.length === game.cursor) {
      game.moves.push(pit);
      game.movers.push(answer.move.player);
    }
    game.cursor += 1;
    view = answer.state;
    say(describe(answer.move, answer.state, how));
    busy = false;
    draw();
    changed();
    if (view.game_over && game.cursor === game.moves.length) tell("kalah:over", { position: view.position });
  } catch (error) {
    if (mine === epoch) { fail(error.message); busy = false; draw(); }
  } finally {
    if (mine === epoch) busy = false;
  }
}

async function animate(move, slots, mine) {
  const counts = slots.slice();
  counts[move.slot] = 0;
  setCount(move.slot, 0);
  if (speed.step > 0) {
    for (const slot of move.path) {
      await sleep(speed.step);
      if (mine !== epoch) return;
      counts[slot] += 1;
      setCount(slot, counts[slot]);
      document.querySelectorAll(".sowing").forEach((e) => e.classList.remove("sowing"));
      slotElement(slot).classList.add("sowing");
    }
    await sleep(speed.step);
  }
  document.querySelectorAll(".sowing").forEach((e) => e.classList.remove("sowing"));
  document.querySelectorAll(".captured").forEach((e) => e.classList.remove("captured"));
  for (const slot of move.capture_slots) slotElement(slot).classList.add("captured");
  if (move.captured) slotElement(geometry.stores[move.player]).classList.add("captured");
}

function describe(move, state, how) {
  const who = NAMES[move.player];
  let text = `${who}${how} sows pit ${pitText(move.pit_index)}.`;
  if (move.captured) text += ` Capture: ${move.captured} seeds into ${who}'s store.`;
  if (state.game_over) text += ` ${outcomeText(state.outcome)}.`;
  else if (move.extra_turn) text += ` Extra turn: the last seed landed in ${who}'s store, ${who} moves again.`;
  return text;
}

function changed() {
  writeHash();
  analyse();
  computerMove();
  tell("kalah:shown", { position: view.position, game_over: view.game_over });
}

function tell(name, detail) {
  document.dispatchEvent(new CustomEvent(name, { detail: { ...detail, players: { ...game.players } } }));
}

async function computerMove() {
  if (!view || view.game_over || game.resigned !== null || busy) return;
  if (game.cursor < game.moves.length) return;       // looking back: nobody moves
  const side = view.to_move;
  const level = game.players[sideKey(side)];
  if (level === "human") return;
  const mine = epoch;
  const started = performance.now();
  try {
    const answer = await call("/api/ai", { position: position(), level, tab: TAB });
    const wait = speed.pause - (performance.now() - started);
    if (wait > 0) await sleep(wait);
    if (mine !== epoch) return;
    await play(answer.pit_index, ` (${LEVEL_NAMES[level].toLowerCase()})`);
  } catch (error) {
    if (mine === epoch && error.status !== 409) fail(error.message);
  }
}

function undo() {
  if (busy || game.cursor === 0) return;
  // back to the last position a person had to move in (with no person, one move)
  let cursor = game.cursor - 1;
  const anyHuman = isHuman(0) || isHuman(1);
  while (anyHuman && cursor > 0 && !isHuman(game.movers[cursor])) cursor -= 1;
  goTo(cursor);
}

function redo() { if (game.cursor < game.moves.length) goTo(game.cursor + 1); }

async function hint() {
  if (!view || view.game_over || busy) return;
  const mine = epoch;
  say("Looking for a good move…");
  try {
    const answer = await call("/api/ai", { position: position(), level: HINT_LEVEL, tab: TAB + "-hint" });
    if (mine !== epoch) return;
    hinted = slotOf(view.to_move, answer.pit_index);
    draw();
    say(`Hint: pit ${pitText(answer.pit_index)} (score ${signed(answer.score)} for ${NAMES[view.to_move]}).`);
  } catch (error) {
    if (mine === epoch && error.status !== 409) fail(error.message);
  }
}

function resign() {
  if (!view || view.game_over || busy) return;
  epoch++;
  game.moves = game.moves.slice(0, game.cursor);
  game.movers = game.movers.slice(0, game.cursor);
  game.resigned = view.to_move;
  say(`${NAMES[game.resigned]} resigns. ${NAMES[1 - game.resigned]} wins.`);
  draw();
  analyse();
}


// -- analysis ---------------------------------------------------------------------------

let socket = null;
let waiting = null;       // the message to send once the socket is open
let analysed = null;      // the position (as the server writes it) the panel shows
let leaving = false;      // the page is going away: no new connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/api/analyze`);
  socket.addEventListener("open", () => { if (waiting) socket.send(JSON.stringify(waiting)); waiting = null; });
  socket.addEventListener("message", (event) => onAnalysis(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    socket = null;
    if ($("analyse").checked && !leaving) setTimeout(() => { if (!socket) { connect(); analyse(); } }, 1000);
  });
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  else { waiting = message; if (!socket) connect(); }
}

function analyse() {
  const rows = $("analysis-rows");
  if (!$("analyse").checked || !view || shownView() !== "play") {
    send({ type: "stop" });
    rows.replaceChildren();
    $("analysis-status").textContent = "Analysis off";
    return;
  }
  analysed = JSON.stringify(view.position);
  rows.replaceChildren();
  if (view.game_over || game.resigned !== null) {
    send({ type: "stop" });
    $("analysis-status").textContent = "The game is over";
    if (view.game_over) bar(view.outcome.margin, true);
    return;
  }
  for (const pit of view.legal_moves) {
    const row = document.createElement("tr");
    row.id = `analysis-${pit}`;
    row.innerHTML = `<td>${pitText(pit)}</td><td class="score pending">…</td><td class="line"></td>`;
    rows.appendChild(row);
  }
  $("analysis-status").textContent = "Thinking…";
  $("analysis-live").textContent = "";
  $("pv").textContent = "";
  send({ type: "analyze", position: view.position, time: ANALYSIS_SECONDS });
}

function onAnalysis(message) {
  if (message.type === "start") { analysed = JSON.stringify(message.position); return; }
  if (!view || analysed !== JSON.stringify(view.position)) return;       // an older position's
  if (message.type === "move") {
    const row = $(`analysis-${message.pit_index}`);
    if (!row) return;
    const cell = row.querySelector(".score");
    cell.textContent = `${signed(message.score)}${message.exact ? " (exact)" : ""}`;
    cell.classList.remove("pending");
    row.querySelector(".line").textContent = message.pv.map(pitText).join(" ");
    row.dataset.depth = message.depth;
  } else if (message.type === "depth") {
    for (const move of message.moves) {
      const row = $(`analysis-${move.pit_index}`);
      if (!row) continue;
      row.classList.toggle("best", move.pit_index === message.best);
      if (message.exact) {      // against perfect play: this move keeps the value, or loses seeds
        const lost = message.score - move.score;
        row.querySelector(".score").textContent = `${signed(move.score)} · ${lost ? `loses ${lost}` : "perfect"}`;
      }
    }
    const rate = message.nps >= 1e6 ? `${(message.nps / 1e6).toFixed(1)} M` : `${Math.round(message.nps / 1e3)} k`;
    const what = message.endgame ? `Perfect play (endgame database, ${message.endgame} seeds)`
      : message.exact ? "Solved" : `Depth ${message.depth}`;
    $("analysis-status").textContent = `${what}: best pit ${pitText(message.best)}, ` +
      `${signed(message.score)} for ${NAMES[view.to_move]}` +
      (message.endgame ? "" : ` · ${rate} nodes/s · ${message.seconds.toFixed(1)} s`);
    $("pv").textContent = `Best line: ${message.pv.map(pitText).join(" ")}`;
    bar(message.score_south, message.exact);
  } else if (message.type === "thinking") {
    $("analysis-live").textContent = `Searching depth ${message.depth}: pit ${pitText(message.pit_index)} · ` +
      `${message.seconds.toFixed(1)} s`;
  } else if (message.type === "done") {
    $("analysis-live").textContent = "";
    if (message.reason === "time") $("analysis-status").textContent += " (time is up)";
  } else if (message.type === "error") {
    $("analysis-status").textContent = `Analysis: ${message.error}`;
  }
}

function bar(south, exact) {
  const share = 50 + Math.max(-24, Math.min(24, south)) * 50 / 24;
  $("bar-south").style.width = `${share}%`;
  const text = south === 0 ? "Even" : `${south > 0 ? "South" : "North"} +${Math.abs(south)}`;
  $("bar-text").textContent = exact ? `${text} (exact)` : text;
  $("bar").setAttribute("aria-label", `Evaluation: ${text}${exact ? ", exact" : ""}`);
}

// -- the link ------------------------------------------------------------------------------

function writeHash() {
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
  const whole = (text) => (/^-?\d+$/.test(text) ? Number(text) : text);
  const list = (text) => (text ? text.split(",").map((item) => whole(item.trim())) : []);
  const start = params.has("board")
    ? { board: list(params.get("board")), to_move: whole(params.get("to_move") || "0") }
    : { seeds: whole(params.get("seeds") || String(game.start.seeds)) };
  start.capture = params.get("capture") || "standard";
  // the link's moves are pits 1..6; anything else goes to the server as typed, to be refused
  const moves = list(params.get("moves")).map((pit) => (typeof pit === "number" ? pit - 1 : pit));
  const players = { south: params.get("south") || "human", north: params.get("north") || "ai:medium" };
  for (const side of ["south", "north"]) {
    if (!(players[side] in LEVEL_NAMES)) {
      fail(`the link's ${side} player ${JSON.stringify(players[side])} is not one of ${Object.keys(LEVEL_NAMES).join(", ")}`);
      return true;
    }
  }
  try {
    const state = await call("/api/validate", { position: { ...start, moves } });
    setGame(state, players);
  } catch (error) {
    fail(`The link's position is refused: ${error.message}`);
  }
  return true;
}

function setGame(state, players) {
  const spec = state.position;
  game.start = spec.board ? { board: spec.board, to_move: spec.to_move, capture: spec.capture }
    : { seeds: spec.seeds, capture: spec.capture };
  game.moves = spec.moves.slice();
  game.movers = state.movers.slice();
  game.cursor = game.moves.length;
  game.players = { ...players };
  game.resigned = null;
  epoch++;
  busy = false;
  view = state;
  tell("kalah:game", { start: { ...game.start }, moves: game.moves.slice() });
  draw();
  changed();
}

// -- dialogs, save and load --------------------------------------------------------------

function fillLevels(select, chosen) {
  select.replaceChildren();
  for (const [level, name] of Object.entries(LEVEL_NAMES)) {
    const elo = LEVEL_ELO[level];
    const text = elo === undefined ? name : `${name} (Elo ${Math.round(elo)})`;
    const option = new Option(text, level, false, level === chosen);
    select.add(option);
  }
}

function openNewGame() {
  fillLevels($("south-player"), game.players.south);
  fillLevels($("north-player"), game.players.north);
  $("new-dialog").showModal();
}

async function startNewGame() {
  const seeds = whole($("seeds").value);
  const start = { seeds, capture: $("capture").value };
  const players = { south: $("south-player").value, north: $("north-player").value };
  try {
    const state = await call("/api/validate", { position: { ...start, moves: [] } });
    say("New game.");
    fail("");
    setGame(state, players);
  } catch (error) {
    fail(error.message);
  }
}

function whole(text) { return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text; }

function openEditor() {
  for (const side of [0, 1]) {
    const row = $(`edit-${sideKey(side)}`);
    row.replaceChildren();
    document.querySelector(`#edit-form input[data-store="${side}"]`).dataset.slot = geometry.stores[side];
    for (const slot of rowSlots(side)) {
      const label = document.createElement("label");
      label.textContent = `${NAMES[side]} ${pitText(pitOf(slot))}`;
      const input = document.createElement("input");
      input.type = "number";
      input.min = 0;
      input.max = 144;
      input.dataset.slot = slot;
      label.appendChild(input);
      row.appendChild(label);
    }
  }
  document.querySelectorAll("#edit-form input[data-slot]").forEach((input) => {
    input.value = view ? view.slots[Number(input.dataset.slot)] : 0;
  });
  const side = view ? view.to_move : 0;
  document.querySelectorAll("#edit-form input[name=to_move]").forEach((radio) => {
    radio.checked = Number(radio.value) === side;
  });
  $("edit-capture").value = view ? view.capture : "standard";
  $("edit-error").textContent = "";
  $("edit-dialog").showModal();
}

async function useEdited() {
  const board = new Array(geometry.slots).fill(0);
  document.querySelectorAll("#edit-form input[data-slot]").forEach((input) => {
    board[Number(input.dataset.slot)] = whole(input.value);
  });
  const toMove = Number(document.querySelector("#edit-form input[name=to_move]:checked").value);
  const spec = { board, to_move: toMove, capture: $("edit-capture").value, moves: [] };
  try {
    const state = await call("/api/validate", { position: spec });
    $("edit-dialog").close();
    say("Position set.");
    fail("");
    setGame(state, game.players);
  } catch (error) {
    $("edit-error").textContent = `Refused: ${error.message}`;
  }
}

async function save() {
  try {
    const text = await call("/api/save", { position: { ...game.start, moves: game.moves.slice(0, game.cursor) },
      players: game.players }, true);
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    link.download = "mancala-save.json";
    document.body.appendChild(link);
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
    say(`Loaded ${file.name}.${answer.note ? " " + answer.note + "." : ""}`);
    setGame(answer.state, answer.players);
  } catch (error) {
    fail(`${file.name}: ${error.message}`, true);
  } finally {
    $("load-file").value = "";
  }
}

// -- views: the game, and the pages other scripts fill (each a .view element, #view-NAME) --

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
  if (changedView) analyse();
  if (changedView || first) document.dispatchEvent(new CustomEvent("kalah:view", { detail: { name } }));
}

function viewOfPath() {
  const link = viewLinks().find((a) => a.pathname === location.pathname);
  return link ? link.dataset.view : "play";
}

// -- keys and start ---------------------------------------------------------------------

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, select, textarea, dialog")) return;
  if (shownView() !== "play") return;
  const key = event.key.toLowerCase();
  if (key >= "1" && key <= String(geometry.pits) && view) {
    humanMove(Number(key) - 1, view.to_move);
  } else if (key === "u") undo();
  else if (key === "r") redo();
  else if (key === "h") hint();
  else if (key === "n") openNewGame();
  else return;
  event.preventDefault();
}

async function main() {
  try {
    await readInfo();
  } catch (error) {
    fail(error instanceof ApiError ? error.message : "the server cannot be reached: is python -m mancala serve running?");
    return;
  }
  buildBoard();
  document.body.dataset.view = viewOfPath();
  viewLinks().forEach((a) => a.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    showView(a.dataset.view, true);
  }));
  window.addEventListener("popstate", () => showView(viewOfPath()));
  const chosen = new URLSearchParams(location.search).get("speed");
  if (chosen in SPEEDS) speed = SPEEDS[chosen];
  $("new-game").addEventListener("click", openNewGame);
  $("new-cancel").addEventListener("click", () => $("new-dialog").close());
  $("new-form").addEventListener("submit", (event) => { if (event.submitter?.id === "new-start") startNewGame(); });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("hint").addEventListener("click", hint);
  $("resign").addEventListener("click", resign);
  $("to-start").addEventListener("click", () => goTo(0));
  $("edit").addEventListener("click", openEditor);
  $("edit-cancel").addEventListener("click", () => $("edit-dialog").close());
  $("edit-use").addEventListener("click", useEdited);
  $("save").addEventListener("click", save);
  $("load-file").addEventListener("change", (event) => load(event.target.files[0]));
  $("analyse").addEventListener("change", analyse);
  $("link").addEventListener("click", (event) => { event.preventDefault(); navigator.clipboard?.writeText(location.href); say("The link to this position is in the address bar (and copied)."); });
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => readHash());
  // a page left behind (even one kept in the back-forward cache) ends its analysis
  window.addEventListener("pagehide", () => { leaving = true; if (socket) socket.close(); });
  window.addEventListener("pageshow", (event) => { leaving = false; if (event.persisted) analyse(); });
  if (!(await readHash()) || !view) {
    const state = await call("/api/validate", { position: position() }).catch((error) => { fail(error.message); });
    if (state) setGame(state, game.players);
  }
  showView(viewOfPath(), false, true);
  performance.mark("ready");     // the first position drawn (bench/web_load.py reads it)
  document.body.dataset.ready = "1";
}

main();
