"""``python -m mancala history``: your finished games and your rating.

Also the terminal game's hook, :func:`record_finished`: ``play`` calls it when
a game ends, so the game is kept (:mod:`mancala.history`) and the person
sees their new rating in one line. ``--export FILE`` writes the games as game
records (:meth:`mancala.records.Record.from_history`, the web's export too), one after
another in one file.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Callable, List, Optional

from mancala import history as _history
from mancala import records
from mancala._system import write_atomically
from mancala.cli import options
from mancala.cli.format import local_time
from mancala.cli.render import wrap
from mancala.board import rules_words
from mancala.errors import CommandError, MancalaError
from mancala.game import can_be_rated, unrated_because
from mancala.levels import level_is_provisional
from mancala.rating import Rating
from mancala.storage import shown_path
from mancala.untrusted import printable

RESULT_TEXT = {"south": "South won", "north": "North won", "draw": "draw"}
YOUR_RESULT = {"won": "you won", "lost": "you lost", "drew": "a draw"}


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
    p.add_argument("--export", metavar="FILE",
                   help="write the games (all, or the --last N) to FILE as game records people "
                        f"can read, one after another (name it *{records.EXTENSION}; - for the "
                        "standard output)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    history = _history.History()
    games = history.games()
    for notice in history.notices:
        print(f"mancala: {printable(notice)}", file=sys.stderr)
    shown = games[-args.last:] if args.last else games
    if args.export:
        return export(shown, args.export)
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
        print(wrap("  " + describe(game)))
    return 0


def export(games: List[_history.GameRecord], name: str) -> int:
    """``--export FILE``: the games as records in one file, written whole or not at all; a
    file there already is replaced only when it holds records (CommandError, one line, else)."""
    text = records.dumps_all([records.Record.from_history(game) for game in games])
    if name == "-":
        sys.stdout.write(text)
        return 0
    path = Path(os.path.expanduser(name))
    if path.is_file() and path.stat().st_size and not records.looks_like(None, _head(path)):
        raise CommandError(f"will not overwrite {name!r}: it holds no game records")
    write_atomically(path, lambda handle: handle.write(text))
    count = len(games)
    print(f"Exported {count} game{'' if count == 1 else 's'} to "
          f"{printable(shown_path(os.path.abspath(path)))}.")
    return 0


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(200)


def rating_line(now: Optional[Rating], rated_games: int) -> str:
    """'Your rating: 1180? ±310 (provisional: 95% between 870 and 1490), from 3 rated
    games.', 'Your rating: 1612 (95% between 1432 and 1792), from 40 rated games.'
    (:meth:`mancala.rating.Rating.shown`)."""
    if now is None:
        return (f"Your rating: none yet; you start at {Rating().shown()} once you finish a "
                "rated game as human against a computer level.")
    low, high = now.interval()
    note = " The computer levels' Elo are provisional (guessed, not yet measured)." \
        if level_is_provisional() else ""
    return (f"Your rating: {now.shown()} ({'provisional: ' if now.provisional else ''}95% between "
            f"{low:.0f} and {high:.0f}), from {rated_games} rated "
            f"game{'' if rated_games == 1 else 's'}.{note}")


def describe(game: _history.GameRecord) -> str:
    """A game in the player's words, at this machine's local time: '3. 2026-05-01 14:00
    you (South) vs ai:easy, 4 seeds per pit, standard capture: you lost 11-37, 36 moves;
    rated: 1612 (-25)'; a game without one person: 'South ai:medium vs North random, ...: South
    won 30-18'.

    What the file holds is shown through :func:`mancala.untrusted.printable`: a
    name or a date edited to hold ESC or a line break prints as its escape."""
    seeds = (game.south_store, game.north_store)
    you = game.human
    if you is None:
        players = f"South {printable(game.south)} vs North {printable(game.north)}"
        result, score = RESULT_TEXT[game.result], f"{seeds[0]}-{seeds[1]}"
    else:
        players = f"you ({('South', 'North')[you]}) vs {printable(game.players[1 - you])}"
        result, score = YOUR_RESULT[game.result_for(you)], f"{seeds[you]}-{seeds[1 - you]}"
    if game.resigned is not None:
        how = "by resignation" if you is not None else f"({('South', 'North')[game.resigned]} resigned)"
        result += f" {how}, {score} in the stores"
    else:
        result += f" {score}"
    moves = len(game.pit_indices)
    text = (f"{game.id:3d}. {printable(local_time(game.finished))}  {players}, "
            f"{rules_words(game.seeds, game.capture)}: {result}, {moves} move{'' if moves == 1 else 's'}")
    if game.rated:
        change = game.after.rating - game.before.rating
        text += f"; rated: {game.after.shown()} ({change:+.0f})"
    elif you is not None:
        rateable = can_be_rated(game.south, game.north, game.seeds, game.capture)
        text += "; casual" if rateable else "; not rated"
    return text


def record_finished(game, out: Callable[[str], None] = print) -> str:
    """Keep a finished (or resigned) terminal game in the history, rated when the
    game is (:attr:`mancala.game.Game.rated`); what to tell the person of their
    rating, for the result line: 'Your rating: 1013? ±565 (+72); ...' (provisional),
    'Your rating: 1579 (+9), 95% between 1420 and 1738; ...',
    'Casual: kept in your history, not rated.', or '' for a game without a person.

    ``game`` is a finished :class:`mancala.game.Game`. A failure is one line
    and nothing more: the game goes on (a read-only data folder, a busy disk).
    """
    try:
        history = _history.History()
        kept = history.record(game.specs[0], game.specs[1], game.seeds, game.capture, game.moves,
                              rated=game.rated, resigned=game.resigned)
    except (MancalaError, OSError) as exc:
        out(f"history is off: {printable(_one_line(exc))}")
        return ""
    for notice in history.notices:
        out(printable(notice))
    if kept.human is None:
        return ""
    if not kept.rated:
        why = unrated_because(game.specs[0], game.specs[1], game.seeds, game.capture)
        if why is None:
            return "Casual: kept in your history, not rated."
        return f"Kept in your history; not rated: {printable(why)}."
    low, high = kept.after.interval()
    between = "" if kept.after.provisional else f", 95% between {low:.0f} and {high:.0f}"
    return (f"Your rating: {kept.after.shown()} ({kept.after.rating - kept.before.rating:+.0f})"
            f"{between}; `python -m mancala history` lists your games.")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


__all__ = ["add_parser", "run", "record_finished", "describe", "rating_line", "export"]
