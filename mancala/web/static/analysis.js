// The game page's live analysis (casual games only, off until asked for): every legal move's
// score, depth after depth, from the server's WebSocket (/api/analyze). The words of each
// score ("South +8 (depth 14)": its side and its kind, on every row) are the server's, the
// same the hint and the review use; with the analysis on, the hint is its best move at the
// depth it has finished (best()), so the hint and the bar say one number for one question.

import { $, element } from "/client.js";

const ANALYSIS_SECONDS = 30;

export class Analysis {
  constructor(geo, { pitText }) {
    this.geo = geo;
    this.pitText = pitText;
    this.socket = null;
    this.waiting = null;        // the message to send once the socket is open
    this.analysed = null;       // the position (as the server writes it) the panel shows
    this.leaving = false;       // the page is going away: no new connection
    this.view = null;
    this.settled = null;        // the depth the status line is at (null: none finished yet)
    this.last = null;           // the last finished depth's message, for the position shown
    this.asking = [];           // the hints waiting for a first finished depth
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = this.socket = new WebSocket(`${scheme}://${location.host}/api/analyze`);
    socket.addEventListener("open", () => { if (this.waiting) socket.send(JSON.stringify(this.waiting)); this.waiting = null; });
    socket.addEventListener("message", (event) => this.onMessage(JSON.parse(event.data)));
    socket.addEventListener("close", () => {
      if (this.socket === socket) this.socket = null;
      if (this.on && !this.leaving) setTimeout(() => { if (!this.socket && this.on) { this.connect(); this.show(this.view, true); } }, 1000);
    });
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
    else if (message.type === "analyze") { this.waiting = message; if (!this.socket) this.connect(); }
  }

  leave() { this.leaving = true; if (this.socket) this.socket.close(); }

  // the position shown (a /api/validate state); allowed: the game lets an analysis run
  show(view, allowed, resigned = false) {
    this.view = view;
    const rows = $("analysis-rows");
    this.on = allowed && $("analyse").checked;
    this.leaving = false;
    this.last = null;
    this.answer(null);
    if (!this.on) {
      if (this.socket) this.send({ type: "stop" });
      rows.replaceChildren();
      $("analysis-status").textContent = !view ? "" : view.game_over || resigned ? "The game is over"
        : allowed ? "Analysis off: tick Analysis for every move's score (the engine's help)" : "No analysis in this game";
      $("analysis-live").textContent = "";
      $("pv").textContent = "";
      if (view && view.game_over) this.bar(view.outcome.south - view.outcome.north, true);
      else this.clearBar("no score: analysis off");
      return;
    }
    this.analysed = JSON.stringify(view.position);
    this.clearBar("no score yet");      // never the score of the position before
    this.settled = null;        // the depth the status line is at
    rows.replaceChildren(...view.legal_moves.map((pit) => element("tr", { id: `analysis-${pit}` },
      element("td", { text: this.pitText(pit) }), element("td", { class: "score pending", text: "…" }),
      element("td", { class: "line" }))));
    $("analysis-status").textContent = "Thinking…";
    $("analysis-live").textContent = "";
    $("pv").textContent = "";
    this.send({ type: "analyze", position: view.position, time: ANALYSIS_SECONDS });
  }

  onMessage(message) {
    const view = this.view;
    if (message.type === "start") { this.analysed = JSON.stringify(message.position); return; }
    if (!view || !this.on || this.analysed !== JSON.stringify(view.position)) return;   // an older position's
    if (message.type === "move") {
      const row = $(`analysis-${message.pit_index}`);
      if (!row) return;
      const cell = row.querySelector(".score");
      cell.textContent = message.text;        // its side and its kind: "South +14 (depth 16)"
      cell.classList.remove("pending");
      row.querySelector(".line").textContent = message.pv.map(this.pitText).join(" ");
      row.dataset.depth = message.depth;
    } else if (message.type === "depth") {
      this.settled = message.depth;
      for (const move of message.moves) {
        const row = $(`analysis-${move.pit_index}`);
        if (!row) continue;
        row.classList.toggle("best", move.pit_index === message.best);
        const lost = message.score - move.score;
        row.querySelector(".score").textContent = message.exact ? `${move.text} · ${lost ? `loses ${lost}` : "perfect"}` : move.text;
      }
      const rate = message.nps >= 1e6 ? `${(message.nps / 1e6).toFixed(1)} M` : `${Math.round(message.nps / 1e3)} k`;
      const what = message.endgame ? `Perfect play (endgame database, ${message.endgame} seeds)`
        : message.exact ? "Solved" : `Depth ${message.depth}`;
      $("analysis-status").textContent = `${what}: best pit ${this.pitText(message.best)}, ${message.text}` +
        (message.endgame ? "" : ` · ${rate} nodes/s · ${message.seconds.toFixed(1)} s`);
      $("pv").textContent = `Best line: ${message.pv.map(this.pitText).join(" ")}`;
      this.bar(message.score_south, message.exact, message.text);
      this.last = message;
      this.answer(message);
    } else if (message.type === "thinking") {
      $("analysis-live").textContent = `Searching depth ${message.depth}: pit ${this.pitText(message.pit_index)} · ` +
        `${message.seconds.toFixed(1)} s`;
    } else if (message.type === "done") {
      $("analysis-live").textContent = "";
      if (message.reason === "time") $("analysis-status").textContent += " (time is up)";
    } else if (message.type === "error") {
      $("analysis-status").textContent = `Analysis: ${message.error}`;
    }
  }

  // the best move at the last depth finished for the position shown ({pit_index, text, depth,
  // exact}), waiting for the first depth if none has finished yet; null: the analysis is off,
  // or it moved on to another position first
  best() {
    if (!this.on) return Promise.resolve(null);
    if (this.last) return Promise.resolve(this.summary(this.last));
    return new Promise((done) => this.asking.push(done));
  }

  summary(message) {
    return { pit_index: message.best, text: message.text, depth: message.depth, exact: message.exact };
  }

  answer(message) {
    const asking = this.asking;
    this.asking = [];
    for (const done of asking) done(message ? this.summary(message) : null);
  }

  clearBar(words) {
    $("bar-south").style.width = "50%";
    $("bar-text").textContent = words;
    $("bar").setAttribute("aria-label", `Score: ${words}`);
  }

  bar(south, exact, text = null) {
    const share = 50 + Math.max(-24, Math.min(24, south)) * 50 / 24;
    $("bar-south").style.width = `${share}%`;
    const names = this.geo.names;
    const words = text || (south === 0 ? "even" : `${south > 0 ? names[0] : names[1]} +${Math.abs(south)}${exact ? " (exact)" : ""}`);
    $("bar-text").textContent = words;
    $("bar").setAttribute("aria-label", `Score: ${words}`);
  }
}
