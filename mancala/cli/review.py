"""``python -m mancala review FILE|--last``: what each move of a game lost, in seeds."""
from __future__ import annotations

import argparse
import calendar
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import List, Optional

from mancala import history as _history
from mancala import review as _review
from mancala import storage
from mancala.cli import options
from mancala.engine import Engine
from mancala.geometry import SIDE_NAMES
from mancala.errors import CommandError
from mancala.untrusted import printable


def add_parser(sub: argparse._SubParsersAction) -> None:
    marks = ", ".join(f"{name} {least}+" for name, least in _review.MARKS)
    p = sub.add_parser(
        "review", help="what each move of a game lost against the best move",
        description="Review a game move by move: the seeds each move lost against the best move "
                    "(exact where every move solves within the node budget, the endgame database "
                    "helping; else a depth-limited search's scores), marked by the seeds lost "
                    f"({marks}), with the better move and its line. Pits are shown 1..6 from the "
                    "mover's left; --json gives pit indices 0..5.",
        epilog="--json prints a list of moves, each with number, side (0 South, 1 North), "
               "pit_index, loss, exact, mark (null, inaccuracy, mistake or blunder), "
               "best_indices, value_before, value_after (seeds for the mover), values "
               "(pit_index and value of every legal move), line_indices (the better move's line, "
               "for a move that lost) and depth (the search's, null when exact).")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("file", nargs="?", metavar="FILE", help="a save file (play's `save`)")
    source.add_argument("--last", action="store_true",
                        help="the last game: the last one kept in your history, or the newest "
                             "autosaved game if that is newer")
    p.add_argument("--nodes", type=options.whole("nodes", 1, 2 ** 63 - 1),
                   default=_review.DEFAULT_NODES, metavar="N",
                   help=f"each position's budget for exact solves (default {_review.DEFAULT_NODES:,})")
    p.add_argument("--depth", type=options.depth, default=_review.DEFAULT_DEPTH, metavar="D",
                   help=f"search depth where the solves do not finish (default {_review.DEFAULT_DEPTH})")
    p.add_argument("--hash-mb", type=options.megabytes, default=float(_review.REVIEW_HASH_MB),
                   metavar="MB", help=f"transposition table size (default {_review.REVIEW_HASH_MB})")
    p.add_argument("--json", action="store_true", help="print the moves as one JSON list")
    p.set_defaults(run=run)


@dataclass
class Game:
    """A game to review: its rules, players, moves and where it came from."""

    seeds: int
    capture: str
    south: str
    north: str
    moves: List[int]
    source: str


def run(args: argparse.Namespace) -> int:
    game = last_game() if args.last else from_file(args.file)
    engine = Engine(hash_mb=args.hash_mb)
    show = options.is_terminal(sys.stderr)

    def progress(done: int, total: int) -> None:
        if show:
            print(f"\rreviewing move {done} of {total}", end="", file=sys.stderr, flush=True)

    review = _review.review_game(game.seeds, game.capture, game.moves, engine,
                                 nodes=args.nodes, depth=args.depth, progress=progress)
    if show and game.moves:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps([move.to_json() for move in review.moves], indent=2))
        return 0
    print(f"South {printable(game.south)} vs North {printable(game.north)}, {game.seeds} seed"
          f"{'' if game.seeds == 1 else 's'} a pit, capture {game.capture}, "
          f"{len(game.moves)} move{'' if len(game.moves) == 1 else 's'} ({printable(game.source)}).")
    if not review.moves:
        print("No moves to review.")
        return 0
    print("Seeds lost by each move against the best one (values for the mover; exact: "
          f"perfect play, d{args.depth}: a search {args.depth} moves deep); pits 1..6:")
    print(f"  {'move':>4}  {'side':5}  {'pit':>3}  {'value':>5}  {'lost':>4}  {'how':5}  mark")
    for move in review.moves:
        print("  " + row(move))
    for side in (0, 1):
        print(summary_line(SIDE_NAMES[side], review.summary(side)))
    return 0


def row(move: _review.MoveReview) -> str:
    """'  10  South    1    +2    14  exact  blunder: better 2 (line 2 6 5 6 1 3 5 4)'."""
    how = "exact" if move.exact else f"d{move.depth}"
    text = (f"{move.number:4d}  {SIDE_NAMES[move.side]:5}  {move.pit_index + 1:3d}  "
            f"{move.value_after:+5d}  {move.loss:4d}  {how:5}")
    if move.loss > 0:
        better = " or ".join(str(pit + 1) for pit in move.best_indices)
        line = " ".join(str(pit + 1) for pit in move.line_indices)
        text += f"  {move.mark}: better {better} ({move.value_before:+d}; line {line})"
    return text.rstrip()


def summary_line(name: str, summary: dict) -> str:
    """'South: 51 seeds lost in 26 moves: 4 inaccuracies, 3 mistakes, 3 blunders.'"""
    counts = ", ".join(f"{summary[mark]} {mark if summary[mark] == 1 else plural(mark)}"
                       for mark, _ in _review.MARKS)
    lost = summary["seeds_lost"]
    return (f"{name}: {lost} seed{'' if lost == 1 else 's'} lost in {summary['moves']} "
            f"move{'' if summary['moves'] == 1 else 's'}: {counts}.")


def plural(word: str) -> str:
    return word[:-1] + "ies" if word.endswith("y") else word + "s"


def from_file(path: str) -> Game:
    """The game in a save file (SaveFileError, one line, if it is not one; only read)."""
    saved = storage.load(path)
    return Game(saved.seeds, saved.capture, saved.south, saved.north, list(saved.moves),
                f"from {path}")


def last_game() -> Game:
    """The last game kept in the history, or the newest autosave if it is newer;
    CommandError when there is neither."""
    history = _history.History()
    games = history.games()
    for notice in history.notices:
        print(f"mancala: {printable(notice)}", file=sys.stderr)
    kept = games[-1] if games else None
    saved = _newest_autosave()
    if kept is not None and (saved is None or _epoch(kept.finished) >= saved[1]):
        return Game(kept.seeds, kept.capture, kept.south, kept.north, list(kept.pit_indices),
                    f"game {kept.id} of your history, finished {kept.finished}")
    if saved is not None:
        path, modified, game = saved
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(modified))
        return Game(game.seeds, game.capture, game.south, game.north, list(game.moves),
                    f"the game autosaved in {path}, saved {when}")
    raise CommandError(f"no game to review: none kept in {history.path} and none autosaved; "
                       "give a save file")


def _newest_autosave() -> "Optional[tuple]":
    """(path, modified, SavedGame) of the newest readable autosave, or None.

    Only reads: an autosave that does not load is passed over (``play`` sets
    such files aside), never renamed here.
    """
    from mancala import autosaves
    folder = autosaves.folder()
    dated = []
    try:
        for path in folder.glob("*.json"):
            if autosaves.UNREADABLE not in path.name and not path.name.startswith("."):
                dated.append((os.stat(path).st_mtime, path))
    except OSError:             # no folder, or a file gone while we looked
        pass
    dated.sort(reverse=True)
    for modified, path in dated:
        try:
            return path, modified, storage.load(path)
        except storage.SaveFileError:
            continue
    return None


def _epoch(stamp: str) -> float:
    """Seconds since the epoch of '2026-05-01T12:00:00Z' (0 if it is not that shape)."""
    try:
        return float(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")))
    except (ValueError, OverflowError):
        return 0.0


__all__ = ["add_parser", "run", "row", "summary_line", "last_game", "from_file"]
