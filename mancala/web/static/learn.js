// Kalah for learners: the Puzzles page (/puzzles: puzzles.js) and the search-tree explorer
// (/explorer: explorer.js), one page (learn.html) opened at either.

import { serverInfo } from "/client.js";
import { startExplorer } from "/explorer.js";
import { startPuzzles } from "/puzzles.js";

async function main() {
  let info;
  try {
    info = await serverInfo();
  } catch (error) {
    document.querySelector("main:not([hidden])")?.prepend(document.createTextNode(
      "The server cannot be reached: is python -m mancala serve running?"));
    return;
  }
  if (location.pathname === "/explorer") await startExplorer(info);
  else await startPuzzles(info);
  document.body.dataset.ready = "1";
}

main();
