// The board every page draws (the game, the review, the puzzles, the explorer, the editor):
// pits and stores holding seeds drawn in SVG, each with its count, and a move sown seed by
// seed: the hand of seeds travels along the board dropping one in each slot, a capture's
// seeds fly to the store, an extra turn and the end of a game are said in words and shown
// in motion. The speed is the player's (client.js keeps it); with prefers-reduced-motion
// nothing flies: the counts change step by step in place. Sounds: sound.js.
// Ids: {prefix}pit-N, {prefix}store-N, {prefix}north-name, {prefix}row-south, ... (slot N).

import { element, pitText, plural, reducedMotion, sleep } from "/client.js";
import * as sound from "/sound.js";

const SVG = "http://www.w3.org/2000/svg";
const PIT_DRAWN = 12;         // seeds drawn in a pit; more: a heap of these and the number
const STORE_DRAWN = 40;       // ... in a store
const COLOURS = ["#2f6fa8", "#3b8a5a", "#b0413b", "#c08a1f", "#7656a6", "#2e8c8c"];

function svg(tag, attributes = {}) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

// where seed i of a heap of at most `most` lies, within an ellipse of half-axes rx, ry:
// Vogel's spiral, so a seed added never moves the others
function spot(i, spread, squash = 1, most = 0) {
  const radius = most ? spread * Math.sqrt((i + 0.5) / most) : spread * Math.sqrt(i + 0.5);
  const angle = i * 2.39996 + 0.7;
  return [radius * Math.cos(angle), radius * Math.sin(angle) * squash];
}

function seedColour(slot, i) { return COLOURS[(slot * 7 + i * 5 + (i >> 2)) % COLOURS.length]; }

function seedShape(x, y, r, colour) {
  const group = svg("g", { class: "seed" });
  group.append(svg("circle", { cx: x, cy: y, r, fill: colour, stroke: "#1d1d1d", "stroke-width": r / 5 }),
    svg("circle", { cx: x - r / 3, cy: y - r / 3, r: r / 3.2, fill: "#fff", opacity: 0.55 }));
  return group;
}

export class BoardView {
  // container: an element the board is drawn into; geo: client.js's Geometry;
  // onPit(pit, side): a click on a pit (the pits are buttons then); prefix: for the ids
  constructor(container, geo, { prefix = "", onPit = null, label = "Board: North's row on top, South's below", small = false } = {}) {
    this.geo = geo;
    this.prefix = prefix;
    this.onPit = onPit;
    this.counts = new Array(geo.slots).fill(0);
    this.root = element("div", { class: `board${small ? " small" : ""}`, role: "group", "aria-label": label });
    this.layer = element("div", { class: "fly-layer", "aria-hidden": "true" });
    this.banner = element("div", { class: "banner", "aria-hidden": "true" });
    for (const side of [1, 0]) {
      const key = geo.side_keys[side];
      const name = element("div", { class: `side-name ${key}`, id: `${prefix}${key}-name`, text: geo.names[side] });
      const store = this.slotElement("div", geo.stores[side], `store ${key}`);
      const row = element("div", { class: `row ${key}`, id: `${prefix}row-${key}` });
      for (const slot of geo.rowSlots(side)) {
        const pit = this.slotElement(onPit ? "button" : "div", slot, "pit");
        pit.append(element("span", { class: "label", "aria-hidden": "true", text: `${pitText(geo.pitOf(slot))} ${geo.letterOf(slot)}` }));
        if (onPit) {
          pit.type = "button";
          pit.addEventListener("click", () => this.onPit(geo.pitOf(slot), side));
        }
        row.append(pit);
      }
      this.root.append(name, store, row);
    }
    this.root.append(this.layer, this.banner);
    container.replaceChildren(this.root);
  }

  slotElement(tag, slot, className) {
    const made = element(tag, { class: className, id: `${this.prefix}${className.startsWith("store") ? "store" : "pit"}-${slot}` });
    made.dataset.slot = slot;
    const store = this.geo.isStore(slot);
    const picture = svg("svg", { class: "seeds", viewBox: store ? "-50 -100 100 200" : "-50 -50 100 100", "aria-hidden": "true",
      preserveAspectRatio: "xMidYMid meet", focusable: "false" });
    made.append(picture, element("span", { class: "count", "aria-hidden": "true", text: "0" }));
    return made;
  }

  element(slot) { return document.getElementById(`${this.prefix}${this.geo.isStore(slot) ? "store" : "pit"}-${slot}`); }

  // the seeds of a slot drawn: a heap of at most PIT_DRAWN (STORE_DRAWN), the count beside it
  setCount(slot, count, fresh = false) {
    this.counts[slot] = count;
    const box = this.element(slot);
    if (!box) return;
    const store = this.geo.isStore(slot);
    const drawn = Math.min(count, store ? STORE_DRAWN : PIT_DRAWN);
    const picture = box.querySelector("svg.seeds");
    const have = picture.childElementCount;
    if (have > drawn) [...picture.children].slice(drawn).forEach((seed) => seed.remove());
    for (let i = have; i < drawn; i++) {
      const [x, y] = store ? spot(i, 38, 2.05, STORE_DRAWN) : spot(i, 34, 1, PIT_DRAWN);
      const seed = seedShape(x, store ? y + 12 : y, store ? 8.5 : 9, seedColour(slot, i));
      if (fresh && i === drawn - 1 && !reducedMotion()) seed.classList.add("landed");
      picture.append(seed);
    }
    const label = box.querySelector(".count");
    label.textContent = count;
    box.classList.toggle("many", count > (store ? STORE_DRAWN : PIT_DRAWN));
    box.classList.toggle("empty", count === 0);
    this.describe(slot);
  }

  describe(slot) {
    const box = this.element(slot);
    const side = this.geo.sideOf(slot);
    const count = this.counts[slot];
    if (this.geo.isStore(slot)) {
      box.setAttribute("aria-label", `${this.geo.names[side]}'s store: ${plural(count, "seed")}`);
      return;
    }
    const playable = box.classList.contains("playable") && this.onPit && !box.disabled;
    box.setAttribute("aria-label", `${this.geo.names[side]} pit ${pitText(this.geo.pitOf(slot))}: ${plural(count, "seed")}` +
      (playable ? ", playable" : ""));
  }

  // the whole board: slots; toMove (a side, or null: nobody); playable: the mover's legal pits;
  // enabled: they may be clicked; names: what each side's label says; last, hinted: a slot or null
  set(slots, { toMove = null, playable = [], enabled = false, names = null, last = null, hinted = null } = {}) {
    const geo = this.geo;
    for (let slot = 0; slot < geo.slots; slot++) {
      const box = this.element(slot);
      if (!geo.isStore(slot)) {
        const side = geo.sideOf(slot);
        const legal = side === toMove && playable.includes(geo.pitOf(slot));
        box.classList.toggle("playable", legal);
        box.classList.toggle("hinted", hinted === slot);
        box.classList.toggle("last", last === slot);
        if (this.onPit) box.disabled = !(legal && enabled);
      }
      if (this.counts[slot] !== slots[slot] || !box.querySelector("svg.seeds").childElementCount) this.setCount(slot, slots[slot]);
      else this.describe(slot);
    }
    for (const side of [0, 1]) {
      const key = geo.side_keys[side];
      const name = (names || geo.names)[side];
      const label = document.getElementById(`${this.prefix}${key}-name`);
      label.textContent = toMove === side ? (names ? `▶ ${name}` : `▶ ${name} to move`) : name;
      label.classList.toggle("mover", toMove === side);
      document.getElementById(`${this.prefix}row-${key}`).classList.toggle("mover", toMove === side);
    }
  }

  clearMarks() {
    this.root.querySelectorAll(".sowing, .captured, .pulse").forEach((e) => e.classList.remove("sowing", "captured", "pulse"));
  }

  // a slot's centre, in the board's own coordinates (the fly layer's)
  centre(slot) {
    const box = this.element(slot).getBoundingClientRect();
    const origin = this.root.getBoundingClientRect();
    return [box.left - origin.left + box.width / 2, box.top - origin.top + box.height / 2];
  }

  say(text, kind = "") {
    this.banner.textContent = text;
    this.banner.className = `banner shown ${kind}`;
    clearTimeout(this.bannerTimer);
    this.bannerTimer = setTimeout(() => { this.banner.className = "banner"; }, 2200);
  }

  // seeds flying from one slot to another (taken from its count before, given to the other after)
  async fly(from, to, count, ms, colourSlot = from) {
    const [x0, y0] = this.centre(from);
    const [x1, y1] = this.centre(to);
    const flights = [];
    for (let i = 0; i < Math.min(count, 10); i++) {
      const seed = element("span", { class: "fly" });
      seed.style.background = seedColour(colourSlot, i);
      this.layer.append(seed);
      const jitter = spot(i, 3.2);
      const animation = seed.animate([
        { transform: `translate(${x0 + jitter[0]}px, ${y0 + jitter[1]}px) scale(1)` },
        { transform: `translate(${(x0 + x1) / 2}px, ${Math.min(y0, y1) - 30}px) scale(1.25)`, offset: 0.5 },
        { transform: `translate(${x1 + jitter[0]}px, ${y1 + jitter[1]}px) scale(1)` },
      ], { duration: ms, delay: i * 40, easing: "ease-in-out", fill: "forwards" });
      flights.push(animation.finished.then(() => seed.remove(), () => seed.remove()));
    }
    await Promise.all(flights);
  }

  // a move played: move (as /api/move describes it), the slots before and after it.
  // Resolves once the board shows `after`; `still()` false stops it half-way (a newer change).
  async sow(move, before, after, { step = 240, still = () => true } = {}) {
    const geo = this.geo;
    const counts = before.slice();
    const motion = step > 0 && !reducedMotion();
    const mover = move.player;
    const store = geo.stores[mover];
    this.clearMarks();
    this.root.dataset.sowing = "1";
    try {
      if (step > 0) {
        let inHand = counts[move.slot];
        counts[move.slot] = 0;
        this.setCount(move.slot, 0);
        const hand = motion ? this.hand(move.slot, inHand) : null;
        for (const [index, slot] of move.path.entries()) {
          if (!still()) return;
          if (hand) await this.moveHand(hand, slot, step * 0.7);
          else await sleep(step);
          inHand -= 1;
          if (hand) this.handCount(hand, inHand);
          counts[slot] += 1;
          this.setCount(slot, counts[slot], true);
          this.root.querySelectorAll(".sowing").forEach((e) => e.classList.remove("sowing"));
          this.element(slot).classList.add("sowing");
          sound.drop(index);
          if (hand) await sleep(step * 0.3);
        }
        hand?.remove();
        if (move.captured) {
          if (!still()) return;
          this.say(`Capture! ${plural(move.captured, "seed")} into ${geo.names[mover]}'s store`, "capture");
          for (const slot of move.capture_slots) this.element(slot).classList.add("captured");
          sound.capture();
          await sleep(step * 2);
          const flights = move.capture_slots.map((slot) => {
            const taken = counts[slot];
            counts[slot] = 0;
            this.setCount(slot, 0);
            return motion ? this.fly(slot, store, taken, step * 3) : sleep(step * 2);
          });
          await Promise.all(flights);
          counts[store] += move.captured;
          this.setCount(store, counts[store], true);
          this.element(store).classList.add("captured");
        } else if (move.extra_turn && !move.game_over) {
          this.say(`Extra turn: ${geo.names[mover]} moves again`, "extra");
          this.element(store).classList.add("pulse");
          sound.extraTurn();
        }
        if (move.game_over) {          // the seeds left in each row go to their owner's store
          const sweeps = [];
          for (let slot = 0; slot < geo.slots; slot++) {
            if (geo.isStore(slot) || counts[slot] === after[slot]) continue;
            const taken = counts[slot];
            this.setCount(slot, after[slot]);
            sweeps.push(motion ? this.fly(slot, geo.stores[geo.sideOf(slot)], taken, step * 3) : sleep(step));
          }
          if (sweeps.length) this.say("Game over: the seeds left go to their owners' stores", "end");
          await Promise.all(sweeps);
        }
      } else if (move.captured) {
        for (const slot of move.capture_slots) this.element(slot).classList.add("captured");
        this.say(`Capture! ${plural(move.captured, "seed")} into ${geo.names[mover]}'s store`, "capture");
        sound.capture();
      } else if (move.extra_turn && !move.game_over) {
        this.say(`Extra turn: ${geo.names[mover]} moves again`, "extra");
        sound.extraTurn();
      }
      if (!still()) return;
      for (let slot = 0; slot < geo.slots; slot++) if (this.counts[slot] !== after[slot]) this.setCount(slot, after[slot]);
      this.root.querySelectorAll(".sowing").forEach((e) => e.classList.remove("sowing"));
    } finally {
      delete this.root.dataset.sowing;
      this.layer.replaceChildren();
    }
  }

  // the seeds of a sowing in the hand that carries them: a small heap and their number
  hand(slot, count) {
    const hand = element("span", { class: "hand" });
    for (let i = 0; i < Math.min(count, 5); i++) {
      const seed = element("span", { class: "fly" });
      seed.style.background = seedColour(slot, i);
      const [x, y] = spot(i, 4);
      seed.style.transform = `translate(${x}px, ${y}px)`;
      hand.append(seed);
    }
    hand.append(element("span", { class: "hand-count", text: String(count) }));
    const [x, y] = this.centre(slot);
    hand.style.transform = `translate(${x}px, ${y - 8}px)`;
    hand.dataset.x = x;
    hand.dataset.y = y - 8;
    this.layer.append(hand);
    return hand;
  }

  handCount(hand, count) {
    hand.querySelector(".hand-count").textContent = String(count);
    const seeds = hand.querySelectorAll(".fly");
    if (count < seeds.length) seeds[seeds.length - 1].remove();
  }

  async moveHand(hand, slot, ms) {
    const [x, y] = this.centre(slot);
    const from = `translate(${hand.dataset.x}px, ${hand.dataset.y}px)`;
    const to = `translate(${x}px, ${y - 8}px)`;
    hand.dataset.x = x;
    hand.dataset.y = y - 8;
    const animation = hand.animate([{ transform: from }, { transform: to }], { duration: ms, easing: "ease-in-out", fill: "forwards" });
    try { await animation.finished; } catch (error) { /* cancelled */ }
    hand.style.transform = to;
  }
}
