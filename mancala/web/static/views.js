// The game's page is several views (the game, History: each a .view element, #view-NAME, with
// its link in #views, a[data-view]), one shown at a time: opening one changes the address
// (/, /history) without loading a page, and says so on document (kalah:view {name}), which
// the scripts that fill or follow a view hear. Also the page's settings, kept in the
// browser by client.js: the animation's speed and the sound.

import { $, keepSettings, settings, SPEEDS } from "/client.js";
import * as sound from "/sound.js";

export function shownView() { return document.body.dataset.view || "play"; }
function viewLinks() { return [...document.querySelectorAll("#views a[data-view]")]; }

export function viewOfPath() {
  const link = viewLinks().find((a) => a.pathname === location.pathname);
  return link ? link.dataset.view : "play";
}

// the view shown (push: a new entry in the browser's history); kalah:view said when it
// changes, or at the first showing
export function showView(name, push = false, first = false) {
  const link = viewLinks().find((a) => a.dataset.view === name) || viewLinks()[0];
  name = link.dataset.view;
  if (push && location.pathname !== link.pathname) history.pushState(null, "", link.pathname + location.search + location.hash);
  document.querySelectorAll(".view").forEach((section) => { section.hidden = section.id !== `view-${name}`; });
  viewLinks().forEach((a) => (a === link ? a.setAttribute("aria-current", "page") : a.removeAttribute("aria-current")));
  const changed = shownView() !== name;
  document.body.dataset.view = name;
  if (changed || first) document.dispatchEvent(new CustomEvent("kalah:view", { detail: { name } }));
}

// the views' links open their view in place, the browser's back and forward too
export function setupViews() {
  document.body.dataset.view = viewOfPath();
  viewLinks().forEach((a) => a.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    showView(a.dataset.view, true);
  }));
  window.addEventListener("popstate", () => showView(viewOfPath()));
}

// the speed select and the sound button, each kept in this browser
export function setupSettings() {
  const speed = $("speed");
  speed.replaceChildren(...Object.entries(SPEEDS).map(([key, s]) => new Option(s.name, key, false, key === settings().speed)));
  speed.addEventListener("change", () => {
    keepSettings({ speed: speed.value });
    const params = new URLSearchParams(location.search);
    if (params.has("speed")) { params.delete("speed"); history.replaceState(null, "", location.pathname + (params.toString() ? `?${params}` : "") + location.hash); }
  });
  const button = $("sound");
  const drawSound = () => {
    const on = settings().sound;
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Sound on" : "Sound off";
  };
  button.addEventListener("click", () => { keepSettings({ sound: !settings().sound }); drawSound(); sound.unlock(); });
  drawSound();
}
