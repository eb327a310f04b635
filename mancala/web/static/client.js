// What every page's script (app.js, records.js, learn.js, board.js) shares, as ES module
// exports: call() and its ApiError, the server's /api/info and the board's geometry from it,
// the tab name the server knows a tab's requests by, a few words and the player's settings
// (animation speed, sound) kept in this browser.

export class ApiError extends Error {}

export const $ = (id) => document.getElementById(id);
export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
export const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

// GET path (no body) or POST body (an object as JSON, a string as it is); the answer's JSON
// (its text with raw), else an ApiError with the server's one-line message and .status
export async function call(path, body, raw = false) {
  let response;
  try {
    response = body === undefined ? await fetch(path) : await fetch(path, {
      method: "POST", headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError("the server cannot be reached: is python -m mancala serve running?");
  }
  if (response.ok) return raw ? response.text() : response.json();
  let message = `the server answered ${response.status}`;
  try { message = (await response.json()).error || message; } catch (error) { /* not JSON */ }
  const failure = new ApiError(message);
  failure.status = response.status;
  throw failure;
}

// a name for this tab's requests (/api/ai, /api/explain, /api/review): a newer one replaces the older
export function tabName(prefix = "") {
  return prefix + Math.random().toString(36).slice(2) + Date.now().toString(36);
}

export function signed(value) { return value > 0 ? `+${value}` : String(value); }
export function pitText(pit) { return String(pit + 1); }
export function plural(count, word) { return `${count.toLocaleString("en")} ${word}${count === 1 ? "" : "s"}`; }
export function capital(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : text; }

// an element: attributes (class, text, anything else as an attribute) and children
export function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") made.className = value;
    else if (name === "text") made.textContent = value;
    else if (value !== null && value !== undefined && value !== false) made.setAttribute(name, value === true ? "" : value);
  }
  made.append(...children);
  return made;
}

// what a move did, in the library's words (MoveRecord.effects, as the server sends them):
// 'captures 2 seeds', 'extra turn', 'the game is over, South keeps the 11 seeds left in its row'
export function moveEffects(played) { return (played.effects || []).join(", "); }

// a player as the pages name it: its level's name, 'Computer: Elo 1200' for ai:elo=1200
export function playerName(info, spec) {
  if (info?.level_names[spec]) return info.level_names[spec];
  return /^ai:elo=\d+$/.test(spec) ? `Computer: Elo ${spec.slice(7)}` : spec;
}

// a move of a move list (the game's and the review's): '12. S 3' and its tags, '+' an extra
// turn and '×4' a capture of four seeds, said in words to a screen reader; played: a move as
// the server describes it (player, pit_index, captured, extra_turn)
export function moveButton(geo, number, played) {
  const words = moveEffects(played);
  const button = element("button", { type: "button",
    "aria-label": `Move ${number}: ${geo.names[played.player]} pit ${pitText(played.pit_index)}${words ? `, ${words}` : ""}` },
  `${number}. ${geo.names[played.player][0]} ${pitText(played.pit_index)}`);
  const tags = (played.extra_turn ? "+" : "") + (played.captured ? `×${played.captured}` : "");
  if (tags) button.append(element("span", { class: "tag", "aria-hidden": "true", text: tags }));
  return button;
}

// a list (an <ol>) of moves, one number a sowing (the review's numbering), each turn's moves
// together, each a button: onPick(number) when it is clicked; current: the move shown
// (aria-current), from: the first move past the position shown (greyed); id(number): its id
export function moveList(list, geo, played, { current = null, from = Infinity, onPick = () => {}, id = null } = {}) {
  let item = null;
  list.replaceChildren();
  played.forEach((move, index) => {
    if (!item || played[index - 1].player !== move.player) {
      item = element("li", { class: geo.side_keys[move.player] });
      list.append(item);
    }
    const button = moveButton(geo, index + 1, move);
    button.dataset.move = index + 1;
    if (id) button.id = id(index + 1);
    if (index + 1 === current) button.setAttribute("aria-current", "step");
    if (index >= from) item.classList.add("future");
    button.addEventListener("click", () => onPick(index + 1));
    item.append(button);
  });
}

// -- the server's /api/info, asked once, and the board's geometry from it ----------------------

let asked = null;
export function serverInfo() {
  if (!asked) asked = call("/api/info").then((info) => { info.geo = new Geometry(info.geometry); return info; });
  return asked;
}

// the slots as the server numbers them (docs/rules.md): each side's pits and store
export class Geometry {
  constructor(layout) {
    Object.assign(this, layout);       // pits, slots, stores, pit_slots, side_names, side_keys
    this.names = layout.side_names;
  }
  slotOf(side, pit) { return this.pit_slots[side][pit]; }
  isStore(slot) { return this.stores.includes(slot); }
  sideOf(slot) { return this.isStore(slot) ? this.stores.indexOf(slot) : this.pit_slots[0].includes(slot) ? 0 : 1; }
  pitOf(slot) { return this.pit_slots[this.sideOf(slot)].indexOf(slot); }
  letterOf(slot) { return LETTERS[this.sideOf(slot) * this.pits + this.pitOf(slot)]; }
  pitName(side, pit) { return `${pitText(pit)} (${LETTERS[side * this.pits + pit]})`; }
  // as a board is drawn: North on top, its pits running right to left
  rowSlots(side) { return side === 0 ? this.pit_slots[0] : [...this.pit_slots[1]].reverse(); }
  facing(slot) { return this.slots - 2 - slot; }
}

// -- the player's settings, kept in this browser (localStorage) --------------------------------

// a step: ms per seed sown; pause: ms between two moves of the computer (its chains, its reply)
export const SPEEDS = {
  slow: { name: "Slow", step: 420, pause: 1300 },
  normal: { name: "Normal", step: 240, pause: 850 },
  fast: { name: "Fast", step: 90, pause: 380 },
  instant: { name: "Instant", step: 0, pause: 150 },
};
const STORE_KEY = "kalah-settings";

export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function settings() {
  let kept = {};
  try { kept = JSON.parse(localStorage.getItem(STORE_KEY) || "{}") || {}; } catch (error) { kept = {}; }
  let asked = new URLSearchParams(location.search).get("speed");      // ?speed=fast, for tests and links
  if (asked === "off") asked = "instant";
  const speed = asked in SPEEDS ? asked : kept.speed in SPEEDS ? kept.speed : "normal";
  return { speed, sound: kept.sound === true };
}

export function keepSettings(changes) {
  const now = { ...settings(), ...changes };
  try { localStorage.setItem(STORE_KEY, JSON.stringify({ speed: now.speed, sound: now.sound })); } catch (error) { /* private mode */ }
  document.dispatchEvent(new CustomEvent("kalah:settings", { detail: now }));
  return now;
}

export function speedNow() { return SPEEDS[settings().speed]; }
