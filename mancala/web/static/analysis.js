// The game page's live analysis (casual games only): every legal move's score, depth after
// depth, from the server's WebSocket (/api/analyze). The words of each score ("South +8
// (depth 14)") are the server's, the same the hint and the review use.

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
    if (!this.on) {
      if (this.socket) this.send({ type: "stop" });
      rows.replaceChildren();
      $("analysis-status").textContent = !view ? "" : view.game_over || resigned ? "The game is over" : "Analysis off";
      $("analysis-live").textContent = "";
      $("pv").textContent = "";
      if (view && view.game_over && allowed !== null) this.bar(view.outcome.margin, true);
      return;
    }
    this.analysed = JSON.stringify(view.position);
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
      cell.textContent = message.text.replace(/ \([^)]*\)$/, "");     // its side; the kind is said above
      cell.classList.remove("pending");
      row.querySelector(".line").textContent = message.pv.map(this.pitText).join(" ");
      row.dataset.depth = message.depth;
    } else if (message.type === "depth") {
      for (const move of message.moves) {
        const row = $(`analysis-${move.pit_index}`);
        if (!row) continue;
        row.classList.toggle("best", move.pit_index === message.best);
        const lost = message.score - move.score;
        const words = move.text.replace(/ \([^)]*\)$/, "");      // its side; the kind is said above
        row.querySelector(".score").textContent = message.exact ? `${words} · ${lost ? `loses ${lost}` : "perfect"}` : words;
      }
      const rate = message.nps >= 1e6 ? `${(message.nps / 1e6).toFixed(1)} M` : `${Math.round(message.nps / 1e3)} k`;
      const what = message.endgame ? `Perfect play (endgame database, ${message.endgame} seeds)`
        : message.exact ? "Solved" : `Depth ${message.depth}`;
      $("analysis-status").textContent = `${what}: best pit ${this.pitText(message.best)}, ${message.text}` +
        (message.endgame ? "" : ` · ${rate} nodes/s · ${message.seconds.toFixed(1)} s`);
      $("pv").textContent = `Best line: ${message.pv.map(this.pitText).join(" ")}`;
      this.bar(message.score_south, message.exact, message.text);
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

  bar(south, exact, text = null) {
    const share = 50 + Math.max(-24, Math.min(24, south)) * 50 / 24;
    $("bar-south").style.width = `${share}%`;
    const names = this.geo.names;
    const words = text || (south === 0 ? "even" : `${south > 0 ? names[0] : names[1]} +${Math.abs(south)}${exact ? " (exact)" : ""}`);
    $("bar-text").textContent = words;
    $("bar").setAttribute("aria-label", `Score: ${words}`);
  }
}
