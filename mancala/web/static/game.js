// The game the page plays, rated or casual, behind one face. A game is its start, its line
// of moves (each as the server described it) and the position shown in it (the cursor), its
// players and how it ended; move(pit) and reply() answer {move, state} as /api/move does.
//
// A RatedGame is the server's (POST /api/rated/*): it holds the board, plays the computer's
// moves and keeps the result; the page sends only the person's moves, and there is no hint,
// analysis, takeback, link or file. A CasualGame is this page's: the server checks each move
// (/api/move) and finds the computer's (/api/ai), and writes the game down as it stands
// after each change (/api/casual/keep), keeping it unrated once it ends. Either way the game
// lives on the server's disk: the tab keeps its name and the tab's token (sessionStorage), so
// a reload, a visit to another page or a server's restart finds it again (resumeGame).

import { call, capital, element, tabName } from "/client.js";
import { hashOf, positionParams } from "/link.js";

const TAB = tabName();
const GAME_KEY = "kalah-game";      // sessionStorage: this tab's game, {rated, game} as JSON
const TOKEN_KEY = "kalah-token";    // sessionStorage: this tab's token, its games' key
// the files Save writes (/api/save's formats): media type, file name, what it is
const SAVES = { json: ["application/json", "mancala-save.json", "the terminal game's save file"],
  record: ["text/plain", "mancala-game.kalah", "a game record, text people read"] };

function kept(key, value) {
  try {
    if (value === undefined) return sessionStorage.getItem(key);
    if (value === null) sessionStorage.removeItem(key); else sessionStorage.setItem(key, value);
  } catch (error) { /* no storage: the game lasts as long as the page */ }
  return null;
}

function token() { return kept(TOKEN_KEY); }
function mine(name) { const held = token(); return held ? { game: name, token: held } : null; }

class Game {
  // state: the server's state of the game's last position; players {south, north}
  constructor(state, players, { kept: done = null, resigned = null, notKept = null } = {}) {
    const spec = state.position;
    this.start = spec.board ? { board: spec.board, to_move: spec.to_move, capture: spec.capture }
      : { seeds: spec.seeds, capture: spec.capture };
    this.moves = spec.moves.slice();      // the line looked at, pit indices 0..5
    this.played = state.played.slice();   // each of them as the server described it
    this.cursor = this.moves.length;      // the position shown: after moves[0..cursor)
    this.players = { ...players };
    this.kept = done;                     // how the history kept it (the result card's): once over
    this.resigned = resigned;             // the side that resigned
    this.notKept = notKept;               // why it is kept in no history once over (computers, a set-up)
    this.view = state;                    // the server's state of the position shown
  }

  position(count = this.cursor) { return { ...this.start, moves: this.moves.slice(0, count) }; }
  atEnd() { return this.cursor === this.moves.length; }
  over() { return Boolean(this.view.game_over) || this.resigned !== null; }
  player(side, geo) { return this.players[geo.side_keys[side]]; }
  humans(geo) { return [0, 1].filter((side) => this.player(side, geo) === "human"); }

  // the one person playing (their side), or null: the end is said in their words
  you(geo) { const found = this.humans(geo); return found.length === 1 ? found[0] : null; }

  resignText(side, geo) {
    const names = geo.names;
    if (this.you(geo) === null) return `${names[side]} resigned: ${names[1 - side]} wins`;
    return side === this.you(geo) ? `You resigned: ${names[1 - side]} wins` : `${names[side]} resigned: you win`;
  }

  outcomeText(outcome, geo) {
    const score = `${outcome.south}–${outcome.north}`;
    if (outcome.winner === null) return `Game over: a draw, ${score}`;
    const side = this.you(geo);
    if (side === null) return `Game over: ${geo.names[outcome.winner]} wins ${score}`;
    const [mine, theirs] = side === 0 ? [outcome.south, outcome.north] : [outcome.north, outcome.south];
    return `Game over: you ${outcome.winner === side ? "won" : "lost"} ${mine}–${theirs}`;
  }

  // the status line: whose move it is and how to play it (touch: tapped, not clicked), or how it ended
  statusText(geo, touch) {
    const view = this.view;
    const viewing = this.atEnd() ? "" : ` (viewing move ${this.cursor} of ${this.moves.length})`;
    if (this.resigned !== null) return this.resignText(this.resigned, geo) + viewing;
    if (view.game_over) return this.outcomeText(view.outcome, geo) + viewing;
    const side = view.to_move;
    const how = touch ? "tap a pit" : `click a pit or press 1–${geo.pits}`;
    if (this.player(side, geo) !== "human") {
      return `${geo.names[side]} to move: ${viewing ? "the computer's turn" : "the computer is thinking"}${viewing}`;
    }
    return (this.you(geo) === side ? `Your move (${geo.names[side]}): ${how}` : `${geo.names[side]} to move: ${how}`) + viewing;
  }

  // a move in words, the terminal's ("South (you) plays 3 (C), extra turn.": the library's
  // MoveRecord.words, sent as the move's words), then what follows it; nameOf(spec): a
  // computer player's name
  describe(move, state, geo, nameOf) {
    const side = move.player;
    const spec = this.player(side, geo);
    const who = spec !== "human" ? nameOf(spec).toLowerCase() : this.you(geo) === side ? "you" : null;
    let text = `${geo.names[side]}${who ? ` (${who})` : ""} plays ${move.words}.`;
    if (state.game_over) text += ` ${capital(this.outcomeText(state.outcome, geo).replace(/^Game over: /, ""))}.`;
    else if (move.extra_turn) text += ` ${geo.names[side]} moves again.`;
    return text;
  }

  // a move played at the cursor: the line goes on, or a new branch starts there
  advance(pit, move, state) {
    if (this.moves[this.cursor] !== pit) {
      this.moves = this.moves.slice(0, this.cursor);
      this.played = this.played.slice(0, this.cursor);
    }
    if (this.atEnd()) {
      this.moves.push(pit);
      this.played.push(move);
    }
    this.cursor += 1;
    this.view = state;
  }
}

export class CasualGame extends Game {
  get rated() { return false; }
  get kind() { return "Casual"; }
  // a game between two computers is nobody's: kept in no history (mancala.game.has_person)
  note() {
    const kept = Object.values(this.players).includes("human") ? "kept in your history, not rated" : "a game between computers: not kept in your history";
    return `Hints, analysis and takebacks allowed; ${kept}.`;
  }
  get helps() { return true; }          // hint, analysis, undo, the editor, files, the link
  committed() { return false; }

  constructor(state, players, options = {}) {
    super(state, players, options);
    this.name = options.name || null;     // the server's name for it, once written down
    this.writing = Promise.resolve();     // the writes, one after the other
  }

  remember() { if (this.name) kept(GAME_KEY, JSON.stringify({ rated: false, game: this.name })); }
  // the address of the position shown (the Link): its hash
  link() { return hashOf(positionParams(this.position(), this.players)); }

  move(pit) { return call("/api/move", { position: this.position(), pit_index: pit }); }

  async reply(level) {
    const chosen = await call("/api/ai", { position: this.position(), level, tab: TAB });
    return this.move(chosen.pit_index);
  }

  // the side gives up: the line ends here
  async resign(side) {
    this.moves = this.moves.slice(0, this.cursor);
    this.played = this.played.slice(0, this.cursor);
    this.resigned = side;
  }

  // the game written down as it stands (its whole line, the moves shown), after the writes
  // before it; once ended the server keeps it in the history: kept says how (or unkept why not)
  store(geo) {
    const body = { position: this.position(this.moves.length), players: this.players, shown: this.cursor,
      ...(this.name ? { game: this.name } : {}), ...(token() ? { token: token() } : {}) };
    if (this.resigned !== null) body.resigned = geo.side_keys[this.resigned];
    this.writing = this.writing.then(async () => {
      const answer = await call("/api/casual/keep", body);
      this.name = answer.game;
      kept(TOKEN_KEY, answer.token);
      this.remember();
      if (answer.kept) this.kept = answer.kept;
      this.notKept = answer.not_kept;
      this.unkept = answer.kept_error ? `Not kept in your history: ${answer.kept_error}` : null;
    }).catch((error) => { this.unkept = `Not written down: ${error.message}`; });
    return this.writing;
  }

  // the ended game as the history kept it, or null: a position set by hand, or a history that
  // could not keep it (unkept says why)
  async end(geo) {
    await this.store(geo);
    return this.kept;
  }

  // the tab's casual game as the server wrote it down, at the position it showed
  static async resume(name) {
    const answer = await call("/api/casual/state", mine(name));
    const game = new CasualGame(answer.state, answer.players, { kept: answer.kept, resigned: answer.resigned, notKept: answer.not_kept, name });
    if (answer.shown < game.moves.length) {
      game.cursor = answer.shown;
      game.view = await call("/api/validate", { position: game.position() });
    }
    return game;
  }

  // the game downloaded as the terminal's save file (format "json") or its game record
  // ("record"), as `save` writes them; what was saved, in words
  async download(format) {
    const text = await call("/api/save", { position: this.position(), players: this.players, format }, true);
    const [type, name, words] = SAVES[format];
    const link = element("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
    document.body.append(link);
    link.click();
    link.remove();
    return `${name} (${words})`;
  }

  // a save file's or a game record's game (checked as the terminal checks it), and what the server said of it
  static async load(file) {
    const answer = await call("/api/load", await file.text());
    return { loaded: new CasualGame(answer.state, answer.players), note: answer.note };
  }

  resignQuestion(side, geo) {
    return `${geo.names[side]} gives up: the game is kept as ${geo.names[side]}'s loss (casual: not rated).`;
  }

}

export class RatedGame extends Game {
  get rated() { return true; }
  get kind() { return "Rated"; }
  // leftRule: /api/info's left_rule (mancala.game.LEFT_RULE), said where the game is played
  note(leftRule) { return `Played unaided: no hints, analysis or takebacks; the result moves your rating. ${capital(leftRule)}.`; }
  get helps() { return false; }

  // answer: the server's game (/api/rated/new or /state)
  constructor(answer) {
    super(answer.state, answer.players, { kept: answer.kept, resigned: answer.resigned });
    this.name = answer.game;
    this.keptError = answer.kept_error || null;
  }

  // the person has moved in it and it is not over: leaving it is resigning it
  committed(geo) { return !this.over() && this.played.some((move) => this.player(move.player, geo) === "human"); }
  remember() { kept(GAME_KEY, JSON.stringify({ rated: true, game: this.name })); }
  link() { return null; }     // a rated game is not shown in the address
  store() { return Promise.resolve(); }     // the server writes it down itself

  ask(path, body = {}) { return call(`/api/rated/${path}`, { ...mine(this.name), ...body }); }
  async answered(path, body) {
    const answer = await this.ask(path, body);
    if (answer.kept) this.kept = answer.kept;
    this.keptError = answer.kept_error || null;
    return answer;
  }

  move(pit) { return this.answered("move", { pit_index: pit }); }
  reply() { return this.answered("reply"); }

  async resign() {
    const answer = await this.answered("resign");
    this.resigned = answer.resigned;
  }

  resignQuestion() { return "This rated game counts as a loss, kept in your history and rated."; }

  async end() {
    if (!this.kept) throw new Error(this.keptError || "the game is over but not kept yet");
    return this.kept;
  }

  // a rated game on the server: a new one (the tab's token makes it this tab's next game)
  static async start(players, seeds, capture) {
    const held = token();
    const answer = await call("/api/rated/new", { players, seeds, capture, ...(held ? { token: held } : {}) });
    kept(TOKEN_KEY, answer.token);
    const game = new RatedGame(answer);
    game.remember();
    return game;
  }

  static async resume(name) { return new RatedGame(await call("/api/rated/state", mine(name))); }
}

// the tab's game as the server holds it (a reload, a page come back to, a server restarted),
// or null; one the server no longer holds is forgotten, and said (404)
export async function resumeGame() {
  let held = null;
  try { held = JSON.parse(kept(GAME_KEY)); } catch (error) { /* none */ }
  if (!held || !held.game || !token()) return null;
  try {
    return await (held.rated ? RatedGame : CasualGame).resume(held.game);
  } catch (error) {
    kept(GAME_KEY, null);
    if (error.status === 404) throw new Error(`Your ${held.rated ? "rated" : "casual"} game is no longer on the server: ${error.message}.`);
    return null;
  }
}
