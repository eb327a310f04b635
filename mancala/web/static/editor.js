// The position editor: the board itself, its seeds clicked or dragged. A click (or Enter,
// or +) on a pit or a store adds a seed, in "Take" mode (or with Shift, or -) takes one;
// dragging from one slot to another moves a seed. The side to move and the capture rule
// beside it; the server checks the position when it is used (/api/validate).

import { $, element, plural } from "/client.js";
import { BoardView } from "/board.js";

const MOST = 144;       // seeds in one slot at most (the server has the real check)

export function openEditor(geo, info, view, use) {
  const box = $("editor");
  const slots = view ? view.slots.slice() : new Array(geo.slots).fill(0);
  let toMove = view ? view.to_move : 0;
  let take = false;
  const holder = element("div", { class: "editing" });
  const board = new BoardView(holder, geo, { prefix: "edit-", label: "The position being edited", small: true });
  const total = element("p", { id: "edit-total", "aria-live": "polite" });
  const modes = element("div", { class: "editor-tools", role: "group", "aria-label": "What a click does" });
  const addButton = element("button", { type: "button", id: "edit-add", "aria-pressed": "true", text: "Add seeds" });
  const takeButton = element("button", { type: "button", id: "edit-take", "aria-pressed": "false", text: "Take seeds" });
  const clear = element("button", { type: "button", id: "edit-clear", text: "Empty board" });
  const startSeeds = element("button", { type: "button", id: "edit-start", text: `Start position (${info.default_seeds} a pit)` });
  modes.append(addButton, takeButton, clear, startSeeds);
  const mover = element("fieldset", { class: "editor-tools" }, element("legend", { text: "Side to move" }),
    ...[0, 1].map((side) => element("label", { class: "check" },
      element("input", { type: "radio", name: "edit-to-move", value: String(side), id: `edit-to-move-${side}` }),
      ` ${geo.names[side]}`)));
  const capture = element("select", { id: "edit-capture" },
    ...info.capture_rules.map((rule) => new Option(info.capture_words[rule], rule, false, rule === (view ? view.capture : info.default_capture))));
  const help = element("p", { class: "note", text: "Click a pit or a store to add a seed (Take seeds: to take one; " +
    "Shift+click takes too), or drag a seed from one to another. Keys: + and − on a focused pit." });
  box.replaceChildren(help, modes, holder, total, mover, element("label", {}, "Capture ", capture));

  function redraw() {
    board.set(slots, { toMove });
    const count = slots.reduce((a, b) => a + b, 0);
    total.textContent = `${plural(count, "seed")} on the board; ${geo.names[toMove]} to move.`;
    $(`edit-to-move-${toMove}`).checked = true;
    for (let slot = 0; slot < geo.slots; slot++) {
      const target = board.element(slot);
      target.setAttribute("aria-label", `${geo.isStore(slot) ? `${geo.names[geo.sideOf(slot)]}'s store` :
        `${geo.names[geo.sideOf(slot)]} pit ${geo.pitOf(slot) + 1}`}: ${plural(slots[slot], "seed")}. ` +
        `Enter or + adds a seed, − takes one.`);
    }
  }
  function change(slot, by) {
    const next = slots[slot] + by;
    if (next < 0 || next > MOST) return false;
    slots[slot] = next;
    return true;
  }
  function setMode(taking) {
    take = taking;
    addButton.setAttribute("aria-pressed", String(!taking));
    takeButton.setAttribute("aria-pressed", String(taking));
  }
  addButton.addEventListener("click", () => setMode(false));
  takeButton.addEventListener("click", () => setMode(true));
  clear.addEventListener("click", () => { slots.fill(0); redraw(); });
  startSeeds.addEventListener("click", () => {
    for (let slot = 0; slot < geo.slots; slot++) slots[slot] = geo.isStore(slot) ? 0 : info.default_seeds;
    toMove = 0;
    redraw();
  });
  mover.addEventListener("change", (event) => { toMove = Number(event.target.value); redraw(); });

  let drag = null;      // {from, seed}: a seed carried from a slot
  for (let slot = 0; slot < geo.slots; slot++) {
    const target = board.element(slot);
    target.tabIndex = 0;
    target.setAttribute("role", "button");
    target.addEventListener("pointerdown", (event) => {
      if (slots[slot] === 0 || event.button !== 0) { drag = null; return; }
      drag = { from: slot, x: event.clientX, y: event.clientY, moved: false, seed: null };
    });
    target.addEventListener("keydown", (event) => {
      const by = event.key === "+" || event.key === "=" || event.key === "Enter" || event.key === " " ? 1
        : event.key === "-" || event.key === "Delete" || event.key === "Backspace" ? -1 : 0;
      if (!by) return;
      event.preventDefault();
      if (change(slot, take && by > 0 && (event.key === "Enter" || event.key === " ") ? -1 : by)) redraw();
    });
  }
  const onMove = (event) => {
    if (!drag) return;
    if (!drag.moved && Math.hypot(event.clientX - drag.x, event.clientY - drag.y) > 8) {
      drag.moved = true;
      drag.seed = element("span", { class: "fly", "aria-hidden": "true" });
      drag.seed.style.background = "#2f6fa8";
      drag.seed.style.position = "fixed";
      drag.seed.style.pointerEvents = "none";       // the drop finds the slot under it, not the seed
      // inside the dialog: a modal dialog is drawn above everything else on the page, so a seed
      // carried in the page's body was hidden behind it while it was dragged
      (holder.closest("dialog") || document.body).append(drag.seed);
    }
    if (drag.seed) drag.seed.style.transform = `translate(${event.clientX}px, ${event.clientY}px)`;
  };
  const onUp = (event) => {
    const carried = drag;
    drag = null;
    carried?.seed?.remove();
    const under = document.elementFromPoint(event.clientX, event.clientY)?.closest("#editor [data-slot]");
    if (carried && carried.moved) {
      if (under && Number(under.dataset.slot) !== carried.from && change(Number(under.dataset.slot), 1)) {
        change(carried.from, -1);
        redraw();
      }
      return;
    }
    if (!under || !holder.contains(under)) return;
    const slot = Number(under.dataset.slot);
    if (change(slot, take || event.shiftKey ? -1 : 1)) redraw();
  };
  holder.addEventListener("pointermove", onMove);
  holder.addEventListener("pointerup", onUp);
  holder.addEventListener("contextmenu", (event) => {
    const under = event.target.closest("[data-slot]");
    if (!under) return;
    event.preventDefault();
    if (change(Number(under.dataset.slot), -1)) redraw();
  });
  redraw();

  $("edit-error").textContent = "";
  $("edit-use").onclick = async () => {
    try {
      await use({ board: slots.slice(), to_move: toMove, capture: capture.value, moves: [] });
      $("edit-dialog").close();
    } catch (error) {
      $("edit-error").textContent = `Refused: ${error.message}`;
    }
  };
  $("edit-cancel").onclick = () => $("edit-dialog").close();
  $("edit-dialog").showModal();
}
