"""``python -m mancala history``: your finished games and your rating.

Also the terminal game's hook, :func:`record_finished`: ``play`` calls it when
a game ends, so the game is kept (:mod:`mancala.history`) and the person
sees their new rating in one line.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Optional

from mancala import history as _history
from mancala.cli import options
from mancala.errors import MancalaError
from mancala.rating import Rating, level_is_provisional
from mancala.storage import shown_path
from mancala.untrusted import printable

RESULT_TEXT = {"south": "South won", "north": "North won", "draw": "draw"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "history", help="your finished games and your rating",
        description="List the finished games kept on this machine (oldest first) and your "
                    "Glicko-2 rating, from your games as human against the computer levels. "
                    f"The database is {_history.FILE_NAME} in the data folder "
                    "($MANCALA_HOME, else ~/.local/share/mancala); nothing is sent anywhere.",
        epilog="--json prints a list of games, each with players, seeds, capture, pit_indices "
               "(pits 0..5 from each mover's left), result (south, north or draw), score, "
               "finished (UTC), and rating_before/rating_after (null when the game rated nobody); "
               "your rating now is the last rating_after.")
    p.add_argument("--last", type=options.whole("games", 1), metavar="N",
                   help="only the last N games")
    p.add_argument("--json", action="store_true", help="print the games as one JSON list")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    history = _history.History()
    games = history.games()
    for notice in history.notices:
        print(f"mancala: {printable(notice)}", file=sys.stderr)
    shown = games[-args.last:] if args.last else games
    if args.json:
        print(json.dumps([game.to_json() for game in shown], indent=2))
        return 0
    rated = [game for game in games if game.rated]
    print(rating_line(rated[-1].after if rated else None, len(rated)))
    if not games:
        print(f"No finished games yet (they are kept in {printable(shown_path(history.path))}).")
        return 0
    print(f"Games kept in {printable(shown_path(history.path))}, oldest first"
          + (f" (the last {len(shown)} of {len(games)})" if len(shown) < len(games) else "") + ":")
    for game in shown:
        print("  " + describe(game))
    return 0


def rating_line(now: Optional[Rating], rated_games: int) -> str:
    """'Your rating: 1612 (95% between 1290 and 1934), from 3 rated games.'"""
    if now is None:
        start = Rating()
        return (f"Your rating: none yet; you start at {start.rating:.0f} once you finish a game "
                "as human against a computer level.")
    low, high = now.interval()
    note = " The computer levels' Elo are provisional (guessed, not yet measured)." \
        if level_is_provisional() else ""
    return (f"Your rating: {now.rating:.0f} (95% between {low:.0f} and {high:.0f}), from "
            f"{rated_games} rated game{'' if rated_games == 1 else 's'}.{note}")


def describe(game: _history.GameRecord) -> str:
    """'3. 2026-05-01 12:00 UTC  South human vs North ai:easy, 4 seeds, standard: South won 30-18, 36 moves; rating 1612 (+25)'.

    What the file holds is shown through :func:`mancala.untrusted.printable`: a
    name or a date edited to hold ESC or a line break prints as its escape."""
    stamp = printable(game.finished)
    when = f"{stamp[:10]} {stamp[11:16]} UTC" if len(stamp) == 20 and stamp.endswith("Z") else stamp
    text = (f"{game.id:3d}. {when}  South {printable(game.south)} vs North {printable(game.north)}, "
            f"{game.seeds} seed{'' if game.seeds == 1 else 's'}, {game.capture}: "
            f"{RESULT_TEXT[game.result]} {game.south_store}-{game.north_store}, "
            f"{len(game.pit_indices)} moves")
    if game.rated:
        change = game.after.rating - game.before.rating
        text += f"; rating {game.after.rating:.0f} ({change:+.0f})"
    elif game.human is not None:
        text += "; not rated"
    return text


def record_finished(game, out: Callable[[str], None] = print) -> None:
    """Keep a finished terminal game in the history; tell the person their rating.

    ``game`` is a finished :class:`mancala.game.Game`. A failure is one line
    and nothing more: the game goes on (a read-only data folder, a busy disk).
    Games without a person in them are kept silently.
    """
    try:
        history = _history.History()
        kept = history.record(game.specs[0], game.specs[1], game.seeds, game.capture, game.moves)
    except (MancalaError, OSError) as exc:
        out(f"history is off: {printable(_one_line(exc))}")
        return
    for notice in history.notices:
        out(printable(notice))
    if kept.human is None:
        return
    if not kept.rated:
        opponent = kept.players[1 - kept.human]
        out(f"Kept in your history; not rated: {printable(opponent)} has no Elo in the levels' table.")
        return
    low, high = kept.after.interval()
    out(f"Your rating: {kept.after.rating:.0f} ({kept.after.rating - kept.before.rating:+.0f}), "
        f"95% between {low:.0f} and {high:.0f}; `python -m mancala history` lists your games.")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


__all__ = ["add_parser", "run", "record_finished", "describe", "rating_line"]
