// The search-tree explorer (/explorer): minimax and alpha-beta from a position, node by
// node. The server builds the trees (mancala.explain, POST /api/explain); this script shows
// them, steps through the nodes in visit order and draws each node's board (board.js).
// Pits: people see 1..6 from the mover's left; the API uses indices 0..5.

import { $, call, capital, plural, pitText, signed, tabName } from "/client.js";
import { BoardView } from "/board.js";
import { hashOf, positionParams, readLink } from "/link.js";

const TAB = tabName();
let geo = null;
let info = null;
let NAMES = [];

function pitName(side, pit) { return geo.pitName(side, pit); }

function drawBoard(container, slots, { toMove = null, prefix = "" } = {}) {
  const board = new BoardView(container, geo, { prefix, small: true, label: "The position" });
  board.set(slots, { toMove });
  return board;
}


const explorer = { position: null, state: null, result: null, trees: {}, step: Infinity, selected: null, asked: 0 };
const SEARCH_NAMES = { minimax: "Minimax", alphabeta: "Alpha-beta" };
const COUNT_ROWS = [["minimax", "plain", "minimax"], ["minimax", "table", "minimax + table"],
  ["alphabeta", "plain", "alpha-beta"], ["alphabeta", "table", "alpha-beta + table"]];

function end(value, sign) { return value === null ? `${sign}∞` : signed(value); }
function windowText(alpha, beta) { return `[${end(alpha, "−")}, ${end(beta, "+")}]`; }

// the position from the link: the game's own link form (link.js), and the explorer's settings
function positionFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const whole = (text) => (/^-?\d+$/.test(text) ? Number(text) : text);
  if (params.has("depth")) $("explore-depth").replaceChildren(new Option(params.get("depth"), whole(params.get("depth"))));
  if (params.has("order")) $("explore-order").value = params.get("order");
  $("explore-table").checked = params.get("table") === "1";
  return (readLink(location.hash, info) || readLink("#moves=", info)).position;
}

function writeExplorerHash() {
  const params = positionParams(explorer.position);
  params.set("depth", $("explore-depth").value);
  params.set("order", $("explore-order").value);
  params.set("table", $("explore-table").checked ? "1" : "0");
  history.replaceState(null, "", hashOf(params));
  $("explore-play").href = "/" + hashOf(positionParams(explorer.position, { south: "human", north: "human" }));
}

async function explore() {
  const mine = ++explorer.asked;
  $("explore-error").textContent = "";
  $("explore-status").textContent = "Searching…";
  document.body.dataset.explored = "";
  const request = { position: explorer.position, depth: Number($("explore-depth").value),
    order: $("explore-order").value, table: $("explore-table").checked, tab: TAB };
  try {
    const [state, result] = await Promise.all([
      call("/api/validate", { position: explorer.position }), call("/api/explain", request)]);
    if (mine !== explorer.asked) return;
    explorer.state = state;
    explorer.result = result;
    writeExplorerHash();
    fillDepths(result.max_depth, result.depth);
    showExplanation();
    document.body.dataset.explored = "1";
  } catch (error) {
    if (mine !== explorer.asked || error.status === 409) return;
    $("explore-status").textContent = "";
    $("explore-error").textContent = capital(error.message);
  }
}

function fillDepths(most, chosen) {
  const select = $("explore-depth");
  if (select.options.length === most) { select.value = chosen; return; }
  select.replaceChildren();
  for (let depth = 1; depth <= most; depth++) select.add(new Option(String(depth), depth, false, depth === chosen));
}

function showExplanation() {
  const result = explorer.result;
  const state = explorer.state;
  drawBoard($("explore-board"), state.slots, { toMove: state.game_over ? null : state.to_move, prefix: "explore-" });
  const max = NAMES[result.max_player];
  const min = NAMES[1 - result.max_player];
  $("explore-position").textContent = `MAX is ${max} (to move), MIN is ${min}; values are ${max}'s store ` +
    `minus ${min}'s, in seeds (the final margin once the game is over). Capture ${result.capture}.`;
  drawCounts(result);
  for (const search of ["minimax", "alphabeta"]) drawTree(search, result[search]);
  explorer.selected = null;
  setStep(Infinity);
  $("explore-status").textContent = `${result.depth} move${result.depth === 1 ? "" : "s"} deep: minimax visits ` +
    `${plural(result.minimax.nodes, "node")}, alpha-beta ${plural(result.alphabeta.nodes, "node")}.`;
}

function drawCounts(result) {
  const body = $("explore-counts").querySelector("tbody");
  body.replaceChildren();
  const shown = { minimax: ["natural", "plain"], alphabeta: [result.alphabeta.order, result.alphabeta.table ? "table" : "plain"] };
  for (const [search, kind, label] of COUNT_ROWS) {
    const row = document.createElement("tr");
    const head = document.createElement("th");
    head.scope = "row";
    head.textContent = label;
    row.appendChild(head);
    for (const order of ["natural", "engine"]) {
      const cell = document.createElement("td");
      cell.textContent = result.counts[search][order][kind].toLocaleString("en");
      cell.id = `count-${search}-${order}-${kind}`;
      if (shown[search][0] === order && shown[search][1] === kind) {
        cell.className = "shown";
        cell.title = "the tree drawn below";
      }
      row.appendChild(cell);
    }
    body.appendChild(row);
  }
}

// one tree: nested lists, each node a line; explorer.trees[search].nodes[number] = {node, item, last, parent}
function drawTree(search, tree) {
  const box = $(`tree-${search}`);
  const how = search === "minimax" ? "" : ` (${tree.order} order${tree.table ? ", with a table" : ""})`;
  box.querySelector("h3").textContent = `${SEARCH_NAMES[search]}${how}: ${plural(tree.nodes, "node")}, ` +
    `value ${signed(tree.value)}` + (tree.best_index === null ? "" : `, best pit ${pitText(tree.best_index)}`);
  const holder = box.querySelector(".tree");
  holder.replaceChildren();
  const record = { nodes: [], total: tree.nodes };
  explorer.trees[search] = record;
  if (!tree.root) {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = `The tree has more than ${explorer.result.max_tree_nodes.toLocaleString("en")} nodes: ` +
      "too many to draw (it is counted above); try a smaller depth.";
    holder.appendChild(note);
    return;
  }
  const list = document.createElement("ul");
  list.className = "tree-list";
  list.appendChild(nodeItem(search, record, tree.root, null, 0));
  holder.appendChild(list);
}

function nodeItem(search, record, node, parent, level) {
  const item = document.createElement("li");
  item.dataset.number = node.number;
  const entry = { node, item, parent, last: node.number };
  record.nodes[node.number] = entry;
  const label = document.createElement("button");
  label.type = "button";
  label.className = `node ${node.kind === "inner" || node.kind === "table" ? node.role : node.kind}`;
  label.id = `${search}-node-${node.number}`;
  const star = document.createElement("span");
  star.className = "star";
  star.textContent = "★";
  star.title = "the best move here";
  entry.star = parent && parent.node.best_index === node.pit_index ? star : null;
  if (entry.star) label.appendChild(star);
  label.append(nodeText(search, node, parent));
  const value = document.createElement("span");
  value.className = "value";
  label.appendChild(value);
  entry.value = value;
  label.addEventListener("click", (event) => { event.preventDefault(); select(search, node.number); });
  if (!node.children.length && !node.cut) {
    item.appendChild(label);
    return item;
  }
  const details = document.createElement("details");
  details.open = level < 2;
  const summary = document.createElement("summary");
  summary.appendChild(label);
  details.appendChild(summary);
  const children = document.createElement("ul");
  for (const child of node.children) {
    const childItem = nodeItem(search, record, child, entry, level + 1);
    children.appendChild(childItem);
    entry.last = Math.max(entry.last, record.nodes[child.number].last);
  }
  if (node.cut) {
    const cut = document.createElement("li");
    cut.className = "cut";
    const pits = node.cut.pit_indices.map((pit) => pitName(node.to_move, pit)).join(", ");
    const window = windowText(node.cut.alpha, node.cut.beta);
    cut.textContent = node.role === "max"
      ? `✂ cut pit${node.cut.pit_indices.length > 1 ? "s" : ""} ${pits}: ${signed(node.cut.value)} ≥ β ${end(node.cut.beta, "+")} ` +
        `(window ${window}): MIN can already hold MAX to ${end(node.cut.beta, "+")} elsewhere`
      : `✂ cut pit${node.cut.pit_indices.length > 1 ? "s" : ""} ${pits}: ${signed(node.cut.value)} ≤ α ${end(node.cut.alpha, "−")} ` +
        `(window ${window}): MAX can already make ${end(node.cut.alpha, "−")} elsewhere`;
    children.appendChild(cut);
    entry.cut = cut;
  }
  details.appendChild(children);
  item.appendChild(details);
  entry.details = details;
  return item;
}

function nodeText(search, node, parent) {
  let text = `#${node.number} `;
  if (parent) {
    text += `pit ${pitName(parent.node.to_move, node.pit_index)}`;
    if (node.captured) text += ` captures ${node.captured}`;
    if (node.extra_turn) text += " extra turn";
    text += ": ";
  } else {
    text += "root: ";
  }
  if (node.kind === "end") return `${text}game over`;
  if (node.kind === "leaf") return `${text}leaf`;
  text += `${node.role.toUpperCase()} (${NAMES[node.to_move]})`;
  if (search === "alphabeta") text += ` ${windowText(node.alpha, node.beta)}`;
  return text;
}

function valueText(node) {
  if (node.kind === "table") {
    const known = { exact: "exactly", lower: "at least", upper: "at most" }[node.table_bound];
    return ` = ${signed(node.value)} from the table (${known} ${signed(node.value)})`;
  }
  return node.kind === "inner" ? ` = ${signed(node.value)}` : ` ${signed(node.value)}`;
}

// show the nodes visited up to `step` (Infinity: all); a node's value once its subtree is done
function setStep(step) {
  const most = Math.max(...Object.values(explorer.trees).map((record) => record.nodes.length - 1), 0);
  explorer.step = step >= most ? Infinity : Math.max(1, step);
  for (const [search, record] of Object.entries(explorer.trees)) {
    for (const entry of record.nodes) {
      if (!entry) continue;
      const number = entry.node.number;
      const seen = number <= explorer.step;
      entry.item.hidden = !seen;
      const current = number === explorer.step;
      const label = $(`${search}-node-${number}`);
      label.classList.toggle("current", current);
      label.classList.toggle("selected", explorer.selected?.search === search && explorer.selected.number === number);
      entry.value.textContent = explorer.step >= entry.last ? valueText(entry.node) : (entry.node.kind === "inner" ? " = ?" : "");
      if (entry.cut) entry.cut.hidden = explorer.step < entry.last;
      if (entry.star) entry.star.hidden = explorer.step < entry.parent.last;    // known once the parent is done
      if (current) {
        for (let up = entry.parent; up; up = up.parent) up.details.open = true;
        label.scrollIntoView({ block: "nearest" });
      }
    }
  }
  const parts = Object.entries(explorer.trees).map(([search, record]) => {
    const total = record.nodes.length - 1;
    if (total < 1) return `${SEARCH_NAMES[search]}: not drawn`;
    return explorer.step === Infinity || explorer.step >= total ? `${SEARCH_NAMES[search]}: all ${plural(total, "node")}`
      : `${SEARCH_NAMES[search]}: node ${explorer.step} of ${total}`;
  });
  $("step-text").textContent = (explorer.step === Infinity ? "The whole search. " : `Step ${explorer.step}. `) + parts.join(" · ");
  $("step-back").disabled = explorer.step === 1;
  $("step-all").disabled = explorer.step === Infinity;
  detail();
}

function select(search, number) {
  explorer.selected = { search, number };
  setStep(explorer.step);
}

// the node selected (or the one just stepped to): its board and what the search knew there
function detail() {
  const box = $("node-detail");
  let chosen = explorer.selected;
  if (!chosen && explorer.step !== Infinity) {
    const search = explorer.trees.alphabeta?.nodes[explorer.step] ? "alphabeta" : "minimax";
    chosen = { search, number: explorer.step };
  }
  const entry = chosen && explorer.trees[chosen.search]?.nodes[chosen.number];
  box.replaceChildren();
  if (!entry) return;
  const node = entry.node;
  const title = document.createElement("p");
  const done = explorer.step >= entry.last;
  let text = `${SEARCH_NAMES[chosen.search]}, node #${node.number}: `;
  text += entry.parent ? `after ${NAMES[entry.parent.node.to_move]}'s pit ${pitName(entry.parent.node.to_move, node.pit_index)}` : "the root";
  if (node.kind === "leaf") text += `; a leaf (depth 0), scored by the store difference: ${signed(node.value)}.`;
  else if (node.kind === "end") text += `; the game is over: the final margin, ${signed(node.value)}.`;
  else {
    text += `; a ${node.role.toUpperCase()} node, ${NAMES[node.to_move]} to move, ${plural(node.depth, "move")} left to search`;
    if (chosen.search === "alphabeta") text += `, window ${windowText(node.alpha, node.beta)}`;
    text += done ? `; value${valueText(node)}` : "; its value is not known yet";
    text += node.best_index !== null && done ? `, best pit ${pitText(node.best_index)}.` : ".";
  }
  title.textContent = text;
  const board = document.createElement("div");
  box.append(title, board);
  drawBoard(board, node.board, { toMove: node.kind === "end" ? null : node.to_move, prefix: "detail-" });
  const from = document.createElement("button");
  from.type = "button";
  from.id = "explore-from-here";
  from.textContent = "Explore from this node's position";
  from.addEventListener("click", () => {
    explorer.position = { board: node.board, to_move: node.to_move, capture: explorer.result.capture, moves: [] };
    explore();
  });
  if (node.kind !== "end") box.appendChild(from);
}

export function startExplorer(serverInfo) {
  info = serverInfo;
  geo = info.geo;
  NAMES = geo.names;
  $("explorer-page").hidden = false;
  $("nav-explorer").setAttribute("aria-current", "page");
  explorer.position = positionFromHash();
  if ($("explore-depth").options.length === 0) $("explore-depth").add(new Option("3", 3, true, true));
  for (const id of ["explore-depth", "explore-order", "explore-table"]) $(id).addEventListener("change", explore);
  $("explore-form").addEventListener("submit", (event) => event.preventDefault());
  $("step-start").addEventListener("click", () => { explorer.selected = null; setStep(1); });
  $("step-back").addEventListener("click", () => {
    explorer.selected = null;
    const most = Math.max(...Object.values(explorer.trees).map((record) => record.nodes.length - 1));
    setStep(explorer.step === Infinity ? most - 1 : explorer.step - 1);
  });
  $("step").addEventListener("click", () => { explorer.selected = null; setStep(explorer.step === Infinity ? 1 : explorer.step + 1); });
  $("step-all").addEventListener("click", () => { explorer.selected = null; setStep(Infinity); });
  window.addEventListener("hashchange", () => { explorer.position = positionFromHash(); explore(); });
  return explore();
}

