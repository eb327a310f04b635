// A position in an address's hash, as the game's Link and the search-tree explorer write it:
// #seeds=4&capture=standard&moves=3,6&south=human&north=ai:medium (moves as pits 1..6), or
// #board=0,0,...&to_move=0&capture=... for a board set by hand. What the hash does not say
// is /api/info's default; what it says wrong goes to the server as typed, to be refused.

import { pitText } from "/client.js";

// URLSearchParams of a position {seeds | board, to_move; capture; moves} (and its players)
export function positionParams(position, players = null) {
  const params = new URLSearchParams();
  if (position.board) {
    params.set("board", position.board.join(","));
    params.set("to_move", position.to_move);
  } else {
    params.set("seeds", position.seeds);
  }
  params.set("capture", position.capture);
  params.set("moves", position.moves.map(pitText).join(","));
  if (players) {
    params.set("south", players.south);
    params.set("north", players.north);
  }
  return params;
}

// the hash of those params: commas and colons as they are typed
export function hashOf(params) { return "#" + params.toString().replace(/%2C/g, ",").replace(/%3A/g, ":"); }

// {position, players} a hash describes (info: /api/info, for the defaults), or null for none
export function readLink(hash, info) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  if (![...params.keys()].length) return null;
  const number = (text) => (/^-?\d+$/.test(text) ? Number(text) : text);
  const list = (text) => (text ? text.split(",").map((item) => number(item.trim())) : []);
  const position = params.has("board")
    ? { board: list(params.get("board")), to_move: number(params.get("to_move") || "0") }
    : { seeds: number(params.get("seeds") || String(info.default_seeds)) };
  position.capture = params.get("capture") || info.default_capture;
  position.moves = list(params.get("moves")).map((pit) => (typeof pit === "number" ? pit - 1 : pit));
  const players = { south: params.get("south") || info.default_players.south,
    north: params.get("north") || info.default_players.north };
  return { position, players, params };
}
