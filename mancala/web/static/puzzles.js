// The puzzles (/puzzles): find the move that keeps the position's score. The server picks a
// puzzle near your puzzle rating (of the theme you chose), checks every move, plays the
// opponent's answers and keeps the rating (mancala.web.learn); this script shows it on the board
// (board.js): a wrong move is played, then taken back so you can try again (the rating
// counts the first try only), and the solution's line is played out on the board.

import { $, call, capital, moveEffects, plural, pitText, signed, sleep, speedNow } from "/client.js";
import { BoardView } from "/board.js";

let geo = null;
let board = null;
const puzzle = { attempt: null, data: null, state: null, busy: false, over: true, epoch: 0 };

function pitName(side, pit) { return geo.pitName(side, pit); }

function ratingText(rating, change = null) {
  if (!rating) return "Off: the puzzle log cannot be used on this machine.";
  const moved = change === null || change === undefined ? "" : ` (${signed(Math.round(change))})`;
  // shown as the library words it: '749? ±480' while provisional, '1612' once settled
  if (!rating.attempts) return `${rating.shown}: a newcomer's, provisional (? and its 95% range). Each puzzle you solve or miss moves it.`;
  return `${rating.shown}${moved}, from ${plural(rating.attempts, "puzzle")}` + (rating.provisional
    ? ": provisional until it settles." : `, 95% between ${Math.round(rating.low)} and ${Math.round(rating.high)}.`);
}

function draw() {
  const state = puzzle.state;
  const mine = !puzzle.over && !puzzle.busy;
  const solver = puzzle.data.to_move;
  board.set(state.slots, {
    toMove: puzzle.over || state.game_over ? null : state.to_move,
    playable: state.to_move === solver ? state.legal_moves : [],
    enabled: mine && state.to_move === solver,
    names: [0, 1].map((side) => (side === solver ? `${geo.names[side]}: you` : `${geo.names[side]}: the opponent`)),
  });
  $("puzzle-give-up").disabled = !mine;
}

async function newPuzzle(id = null) {
  const mine = ++puzzle.epoch;
  for (const name of ["puzzle-error", "puzzle-said", "puzzle-solution"]) $(name).textContent = "";
  delete document.body.dataset.result;
  puzzle.busy = true;
  const theme = $("puzzle-theme").value;
  const query = id ? `?id=${encodeURIComponent(id)}` : theme ? `?theme=${encodeURIComponent(theme)}` : "";
  // your own puzzles are made of your reviewed games' mistakes the first time they are asked for
  if (theme === "mine" && !id) $("puzzle-said").textContent = "Looking for your own puzzles (made of your reviewed games' mistakes, the first time)…";
  try {
    const answer = await call(`/api/puzzle${query}`);
    if (mine !== puzzle.epoch) return;
    const data = answer.puzzle;
    Object.assign(puzzle, { attempt: answer.attempt, data, state: answer.state, busy: false, over: false });
    history.replaceState(null, "", `#id=${data.id}`);
    $("puzzle-title").textContent = `Puzzle ${data.id}, rated ${data.rating}`;
    $("puzzle-rules").textContent = `Rules: ${data.rules}.`;     // '4 seeds per pit, standard capture'

    $("puzzle-task").textContent = `${data.to_move_name} to move (you). ${data.goal}`;
    $("puzzle-said").textContent = "";
    $("puzzle-themes").textContent = (data.source ? `From your ${data.source}. ` : "") + (data.themes.length
      ? `Themes: ${data.themes.map((t) => answer.theme_names[t] || t).join(", ")}.` : "");
    $("puzzle-rating").textContent = ratingText(answer.rating);
    if (answer.notices.length) $("puzzle-error").textContent = answer.notices.join(" ");
    board.clearMarks();
    draw();
    document.body.dataset.puzzle = data.id;
  } catch (error) {
    puzzle.busy = false;
    $("puzzle-said").textContent = "";
    $("puzzle-error").textContent = capital(error.message);
  }
}

// moves as /api/move describes them, each with the slots after it, sown one after the other
async function playOut(moves, before, mine) {
  for (const [index, step] of moves.entries()) {
    if (index > 0) await sleep(speedNow().pause);
    if (mine !== puzzle.epoch) return before;
    await board.sow(step.move, before, step.slots, { step: speedNow().step, still: () => mine === puzzle.epoch });
    before = step.slots;
  }
  return before;
}

async function answer(pit, giveUp = false) {
  if (puzzle.busy || puzzle.over) return;
  if (!giveUp && !puzzle.state.legal_moves.includes(pit)) {
    $("puzzle-said").textContent = `Pit ${pitText(pit)} is empty: play one of ${puzzle.state.legal_moves.map(pitText).join(", ")}.`;
    return;
  }
  const mine = puzzle.epoch;
  puzzle.busy = true;
  draw();
  $("puzzle-error").textContent = "";
  $("puzzle-said").textContent = "";
  const solver = puzzle.data.to_move;
  try {
    const reply = await call("/api/puzzle/answer", giveUp ? { attempt: puzzle.attempt, give_up: true }
      : { attempt: puzzle.attempt, pit_index: pit });
    if (mine !== puzzle.epoch) return;
    const said = $("puzzle-said");
    if (reply.tried) {                       // a wrong move: shown, then taken back
      await playOut([reply.tried], puzzle.state.slots, mine);
      said.textContent = wrongText(reply, pit, solver);
      said.className = "announce bad";
      await sleep(Math.max(900, speedNow().pause * 1.5));
      if (mine !== puzzle.epoch) return;
    } else {
      await playOut(reply.moves, puzzle.state.slots, mine);
    }
    puzzle.state = reply.state;
    puzzle.over = reply.over;
    puzzle.busy = false;
    board.clearMarks();
    draw();
    if (!reply.tried) {
      said.textContent = saidText(reply, pit, solver);
      said.className = `announce ${reply.result === "given up" ? "bad" : "good"}`;
    }
    if (reply.rating !== undefined && reply.rating !== null) $("puzzle-rating").textContent = ratingText(reply.rating, reply.change);
    if (reply.solution) $("puzzle-solution").textContent = `The solution: ${reply.solution.map((m) => m.words).join("; ")}.`;
    if (reply.notices?.length) $("puzzle-error").textContent = reply.notices.join(" ");
    if (puzzle.over) {
      document.body.dataset.result = reply.result;
      $("puzzle-next").focus();
    } else if (reply.tried) {
      document.body.dataset.result = "retry";
    }
  } catch (error) {
    puzzle.busy = false;
    draw();
    $("puzzle-error").textContent = capital(error.message);
  }
}

// a move with what it did, as the terminal says it: '4 (D), captures 2 seeds'
function moveSaid(side, move) {
  const did = moveEffects(move);
  return `${pitName(side, move.pit_index)}${did ? `, ${did}` : ""}`;
}

function wrongText(reply, pit, solver) {
  const loss = reply.loss;
  const worth = loss ? ` is worth ${signed(loss.value)} for you (exact), ${plural(loss.lost, "seed")} less than the best move's ${signed(puzzle.data.value)}`
    : " loses seeds against the best move";
  const counted = reply.change !== null && reply.change !== undefined ? " This puzzle counts as missed; try again all the same." : " Try again.";
  // '2 (B), captures 2 seeds, is worth ...' or '2 (B) is worth ...'
  const named = reply.tried ? moveSaid(solver, reply.tried.move) + (moveEffects(reply.tried.move) ? "," : "")
    : pitName(solver, pit);
  return `Not the move: ${named}${worth}.${counted}`;
}

function saidText(reply, pit, solver) {
  if (reply.result === "given up") return "The solution, played on the board (the puzzle counts as missed).";
  const mine = reply.moves.find((step) => step.move.player === solver);
  let text = `Right: ${mine ? moveSaid(solver, mine.move) : pitName(solver, pit)}.`;
  const replies = reply.moves.filter((step) => step.move.player !== solver);
  if (replies.length) text += ` ${geo.names[1 - solver]} answers ${replies.map((step) => moveSaid(1 - solver, step.move)).join("; ")}.`;
  if (reply.result === "solved") return `${text} Solved!${reply.missed ? " (after a miss: it counted as missed)" : ""}`;
  return replies.length ? `${text} Your move again.` : `${text} An extra turn: move again.`;
}

export function startPuzzles(info) {
  geo = info.geo;
  $("puzzles-page").hidden = false;
  $("nav-puzzles").setAttribute("aria-current", "page");
  board = new BoardView($("puzzle-board"), geo, { prefix: "puzzle-", onPit: (pit) => answer(pit) });
  const themes = $("puzzle-theme");
  themes.replaceChildren(new Option("any", ""), ...info.puzzle_themes.map((theme) => new Option(theme.name, theme.key)));
  themes.addEventListener("change", () => newPuzzle());
  $("puzzle-next").addEventListener("click", () => newPuzzle());
  $("puzzle-give-up").addEventListener("click", () => answer(null, true));
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("input, select, textarea")) return;
    const key = event.key.toLowerCase();
    if (key >= "1" && key <= String(geo.pits) && puzzle.state) answer(Number(key) - 1);
    else if (key === "n") newPuzzle();
    else return;
    event.preventDefault();
  });
  const id = new URLSearchParams(location.hash.slice(1)).get("id");
  return newPuzzle(id);
}

