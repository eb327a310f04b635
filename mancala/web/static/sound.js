// The board's sounds, made in the browser with WebAudio (no sound files, nothing from another
// host): a seed dropped, a capture, an extra turn, the end of a game. Off unless the player
// turns it on (the Sound button: client.js keeps the choice).

import { settings } from "/client.js";

let context = null;

function audio() {
  if (!settings().sound) return null;
  const Made = window.AudioContext || window.webkitAudioContext;
  if (!Made) return null;
  if (!context) context = new Made();
  if (context.state === "suspended") context.resume();
  return context;
}

// one note: a frequency (Hz), when (s from now), how long (s), how loud, its wave
function note(frequency, at = 0, length = 0.08, loud = 0.18, wave = "sine") {
  const ctx = audio();
  if (!ctx) return;
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = wave;
  osc.frequency.setValueAtTime(frequency, start);
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(loud, start + 0.008);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

// a seed lands: a short wooden click, a little higher for each seed of the same sowing
export function drop(index = 0) { note(520 + 35 * Math.min(index, 14), 0, 0.06, 0.16, "triangle"); }
export function capture() { note(196, 0, 0.22, 0.25, "square"); note(294, 0.05, 0.25, 0.14); note(392, 0.1, 0.3, 0.12); }
export function extraTurn() { note(660, 0, 0.12, 0.16); note(880, 0.12, 0.18, 0.16); }
export function gameOver(won) {
  const tune = won === false ? [392, 330, 262] : [523, 659, 784];
  tune.forEach((frequency, index) => note(frequency, index * 0.16, 0.28, 0.16));
}

// a sound turned on must be made in answer to a click: browsers start audio only then
export function unlock() { audio(); }
