// The new-game dialog: who plays each side (each computer level with its Elo, or the engine
// at an Elo you choose: ai:elo=N), the rules, rated or casual. Whether a game can be rated
// is the server's answer, in the library's words (POST /api/rated/check:
// mancala.game.unrated_because): the box is offered where it can be, where not the reason is said.

import { $, call, capital } from "/client.js";

let info = null;
let asked = 0;          // bumped by each question: older answers are dropped
let checked = null;     // the last question's answer (a promise): {rated, why}

function whole(text) { return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text; }

const ELO = "ai:elo";     // the option of a computer at an Elo of your choice (the #elo field's)

function fillLevels(select, chosen) {
  select.replaceChildren(...Object.entries(info.level_names).map(([level, name]) => {
    const elo = info.level_elo[level];
    return new Option(elo === undefined ? name : `${name} (Elo ${Math.round(elo)})`, level, false, level === chosen);
  }), new Option(`Computer: the Elo you choose (${info.elo_range.join("–")})`, ELO, false, chosen.startsWith(`${ELO}=`)));
  if (chosen.startsWith(`${ELO}=`)) $("elo").value = chosen.slice(ELO.length + 1);
}

function spec(select) { return select.value === ELO ? `${ELO}=${$("elo").value.trim()}` : select.value; }

// what the dialog asks for now
export function chosen() {
  return { players: { south: spec($("south-player")), north: spec($("north-player")) },
    seeds: whole($("seeds").value), capture: $("capture").value };
}

async function ask() {
  const mine = ++asked;
  const { players, seeds, capture } = chosen();
  let answer;
  try {
    answer = await call("/api/rated/check", { players, seeds, capture });
  } catch (error) {
    answer = { rated: false, why: error.message };
  }
  if (mine === asked) show(answer);
  return answer;
}

function show(answer) {
  const box = $("rated");
  box.disabled = !answer.rated;
  if (!answer.rated) box.checked = false;
  $("rated-why").textContent = !answer.rated ? `Casual: ${answer.why}.`
    : box.checked ? `Rated: played unaided (no hints, analysis or takebacks); the result moves your rating. ${capital(info.left_rule)}.`
      : "Casual: hints, analysis and takebacks allowed; kept in your history, not rated.";
}

function changed() {
  $("elo-field").hidden = ![$("south-player"), $("north-player")].some((select) => select.value === ELO);
  checked = ask();
}

// whether the game asked for is to be rated: the box ticked and the server's answer yes
export async function ratedChosen() {
  const answer = await checked;
  return answer.rated && $("rated").checked;
}

export function openNewGame(players) {
  fillLevels($("south-player"), players.south);
  fillLevels($("north-player"), players.north);
  $("rated").checked = true;
  changed();
  $("new-dialog").showModal();
}

// the dialog's controls; start(): what Start does
export function setupNewGame(serverInfo, start) {
  info = serverInfo;
  const seeds = $("seeds");
  [seeds.min, seeds.max, seeds.value] = [info.seeds[0], info.seeds[1], info.default_seeds];
  $("capture").replaceChildren(...info.capture_rules.map((rule) =>
    new Option(info.capture_words[rule], rule, false, rule === info.default_capture)));
  $("new-cancel").addEventListener("click", () => $("new-dialog").close());
  $("new-form").addEventListener("submit", (event) => { if (event.submitter?.id === "new-start") start(); });
  for (const id of ["south-player", "north-player", "capture"]) $(id).addEventListener("change", changed);
  $("rated").addEventListener("change", () => checked.then(show));
  seeds.addEventListener("input", changed);
  const elo = $("elo");
  [elo.min, elo.max, elo.value] = [info.elo_range[0], info.elo_range[1], 1000];
  elo.addEventListener("input", changed);
  checked = Promise.resolve({ rated: false, why: "" });
}
