// The result card of a game that ended: in the person's words (You won, You lost, a draw),
// by how much, and how their rating moved (its provisional "?" and interval while it
// settles), with one Review button. kept: how the history kept the game (/api/finish's or
// the rated game's answer), or null for a game not kept: notKept says why (a game between
// computers, a position set by hand: the server's words).

import { $, capital, element, plural, signed } from "/client.js";

// [title, margin] of a kept game, the person's seeds first
function keptWords(kept) {
  const title = kept.words.split(" by resignation")[0].replace(/\s[\d–]+$/, "");
  const { south, north } = kept.game.score;
  const score = kept.game.human === 1 ? `${north}–${south}` : `${south}–${north}`;
  // a resigned game's score is the stores as they stood, not a result ("1–0" read as a win)
  return [title, kept.game.resigned   // "south" or "north"
    ? `by resignation, ${score} in the stores` : kept.margin ? `by ${plural(kept.margin, "seed")}, ${score}` : score];
}

// [title, margin] of a game not kept: its outcome (state's), or who resigned
function playedWords(geo, state, resigned) {
  if (resigned !== null) return [`${geo.names[1 - resigned]} won`, "by resignation"];
  const outcome = state.outcome;
  return [outcome.winner === null ? "Draw" : `${geo.names[outcome.winner]} won`, `${outcome.south}–${outcome.north}`];
}

export function showResultCard(geo, kept, state, resigned, notKept = null) {
  const [title, margin] = kept ? keptWords(kept) : playedWords(geo, state, resigned);
  $("result-title").textContent = title;
  $("result-margin").textContent = capital(margin);
  const rating = $("result-rating");
  rating.replaceChildren();
  if (kept && kept.rated) {
    // '1180? ±310' while it is provisional (mancala.rating.Rating.shown), '1612' once settled
    rating.append("Your rating: ", element("strong", { text: kept.rating.shown }),
      ` (${signed(Math.round(kept.change))})${kept.rating.provisional ? ", provisional until it settles" : ""}`);
  } else if (kept) {
    rating.textContent = kept.game.human === null ? "No one person played: kept, rates nobody." : "Casual game: kept in your history, not rated.";
  } else {
    rating.textContent = notKept || "A position set by hand: not kept in your history.";
  }
  const card = $("result-card");
  card.className = `result-card ${kept?.result || ""}`;
  card.hidden = false;
  $("result-review").hidden = !kept;
}
