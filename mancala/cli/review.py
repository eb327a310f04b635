"""``python -m mancala review FILE|--last|--game N``: what each move of a game lost, in seeds.

A game kept in your history is reviewed once: the review is kept with it
(:func:`mancala.review.keep_review`), so opening it again searches nothing.
While a review is made, a terminal sees its progress on stderr, with the
marks found so far (the last move is reviewed first: see
:mod:`mancala.review`). The mistakes and blunders of the person who played
become puzzles of their own (:mod:`mancala.puzzles.mine`), made when
``python -m mancala puzzle --mine`` first asks for them.
"""
from __future__ import annotations

import argparse
import calendar
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from typing import List, Optional

from mancala import autosaves
from mancala import history as _history
from mancala import review as _review
from mancala import storage
from mancala.board import Board, rules_words
from mancala.cli import curve, options
from mancala.cli.format import local_time
from mancala.cli.render import columns, move_text, wrap
from mancala.errors import CommandError, HistoryError
from mancala.geometry import SIDE_NAMES
from mancala.limits import REVIEW_HASH_MB
from mancala.puzzles import mine
from mancala.untrusted import printable

HUMAN = _history.HUMAN
PLAYED = 24         # '1 (G), captures 12 seeds': a row with its mark fits 80 columns
WIDE = 80           # a row's columns with its side and mark (:func:`rows`); narrower: compact


def add_parser(sub: argparse._SubParsersAction) -> None:
    marks = ", ".join(f"{name} {least}+" for name, least in _review.MARKS)
    p = sub.add_parser(
        "review", help="what each move of a game lost against the best move",
        description="Review a game move by move: the seeds each move lost against the best move "
                    "(exact where every move solves within the node budget, the endgame database "
                    "helping; else the score of a search --depth moves deep, the hint's), marked "
                    f"by the seeds lost ({marks}), with the better move and its line. A game of "
                    "your history is reviewed once and kept: opening it again is instant. Your "
                    "mistakes there become puzzles (python -m mancala puzzle --mine). Pits are "
                    "shown 1..6 from the mover's left; --json gives pit indices 0..5.",
        epilog="--json prints a list of moves, each with number (1 is the first move; the game "
               "record's numbers), side (0 South, 1 North), pit_index, loss, exact, mark (null, "
               "inaccuracy, mistake or blunder), best_indices, score_before, score_after (seeds "
               "for the mover), south_before, south_after (the same from South's view), scores "
               "(pit_index and score of every legal move), line_indices (the better move's line, "
               "for a move that lost) and depth (the search's, null when exact).")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("file", nargs="?", metavar="FILE",
                        help="a save file (play's `save`) or a game record (.kalah)")
    source.add_argument("--last", action="store_true",
                        help="the last game: the last one kept in your history, or the newest "
                             "autosaved game if that is newer")
    source.add_argument("--game", type=options.whole("game", 1), metavar="N",
                        help="game N of your history (python -m mancala history numbers them)")
    p.add_argument("--nodes", type=options.whole("nodes", 1, 2 ** 63 - 1),
                   default=_review.DEFAULT_NODES, metavar="N",
                   help=f"each position's budget for exact solves (default {_review.DEFAULT_NODES:,})")
    p.add_argument("--depth", type=options.depth, default=_review.DEFAULT_DEPTH, metavar="D",
                   help=f"search depth where the solves do not finish (default {_review.DEFAULT_DEPTH})")
    p.add_argument("--hash-mb", type=options.megabytes, default=float(REVIEW_HASH_MB),
                   metavar="MB", help=f"transposition table size (default {REVIEW_HASH_MB})")
    p.add_argument("--json", action="store_true", help="print the moves as one JSON list")
    p.set_defaults(run=run)


@dataclass
class Game:
    """A game to review: its rules, players, moves, where it came from, and its
    number in the history when it is kept there (its review is kept with it)."""

    seeds: int
    capture: str
    south: str
    north: str
    moves: List[int]
    source: str
    kept: Optional[int] = None

    @property
    def you(self) -> Optional[int]:
        """The side of the one person who played, if one did."""
        humans = [side for side, spec in enumerate((self.south, self.north)) if spec == HUMAN]
        return humans[0] if len(humans) == 1 else None


def run(args: argparse.Namespace) -> int:
    history = _history.History()
    game = last_game(history) if args.last else \
        kept_game(history, args.game) if args.game else from_file(args.file, history)
    review, made = None, False
    if game.kept is not None:
        review = _review.kept_review(history, game.kept, game.seeds, game.capture, game.moves,
                                     nodes=args.nodes, depth=args.depth)
    if review is None:
        review, made = compute(game, args), True
    if args.json:
        print(json.dumps([move.to_json() for move in review.moves], indent=2))
    else:
        show(game, review, args.depth)
    if made and game.kept is not None:
        keep(history, game, review, args)
    return 0


def compute(game: Game, args: argparse.Namespace) -> _review.Review:
    """The review, with its progress on a terminal's stderr."""
    show_progress = options.is_terminal(sys.stderr)
    width = shutil.get_terminal_size().columns
    marked: List[_review.MoveReview] = []
    done = [0]

    def progress(move: _review.MoveReview) -> None:
        done[0] += 1
        if move.mark is not None:
            marked.append(move)
        if show_progress:
            # one line rewritten in place: never as wide as the terminal (it would not go back)
            line = progress_line(len(game.moves), done[0], marked, width - 1)
            print(f"\r{line}\033[K", end="", file=sys.stderr, flush=True)

    review = _review.review_game(game.seeds, game.capture, game.moves, nodes=args.nodes,
                                 depth=args.depth, hash_mb=args.hash_mb, on_move=progress)
    if show_progress and game.moves:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    return review


def progress_line(total: int, done: int, marked: List[_review.MoveReview],
                  width: Optional[int] = None) -> str:
    """'Reviewing 48 moves, the last first: 23 done, 2 marked (the latest: move 25,
    South's blunder)': what a terminal sees while a review is made. Within ``width``
    columns, the first of its shorter forms that fits, the latest mark kept while it can
    be ('Reviewing: 23/48, 2 marked (move 25, South's blunder)', 'Reviewing: 23/48'):
    never a word cut."""
    counts = f"{done} done, {len(marked)} marked"
    forms = [f"Reviewing {total} moves, the last first: {counts}", f"Reviewing {total} moves: {counts}",
             f"Reviewing: {done}/{total}, {len(marked)} marked"]
    if marked:
        latest = f"move {marked[-1].number}, {SIDE_NAMES[marked[-1].side]}'s {marked[-1].mark}"
        forms = [forms[0] + f" (the latest: {latest})", forms[1] + f" (latest: {latest})",
                 forms[2] + f" ({latest})"] + forms[1:]
    forms += [f"Reviewing: {done}/{total}", f"{done}/{total}"]
    return next((form for form in forms if width is None or len(form) <= width), forms[-1])


def keep(history: _history.History, game: Game, review: _review.Review,
         args: argparse.Namespace) -> None:
    """Keep the review with its game, and say how many of the person's mistakes can
    become puzzles (made by ``puzzle --mine`` when first asked for: not here, where
    the command would keep the person waiting once the review is shown); a history
    that cannot be written is one line on stderr (the review was shown)."""
    try:
        _review.keep_review(history, game.kept, review)
    except HistoryError as exc:
        print(f"mancala: the review is not kept: {exc}", file=sys.stderr)
        return
    count = len(mine.candidates(review, game.you)) if game.you is not None else 0
    if count and not args.json:
        print(wrap(f"{count} of your mistakes {'makes a puzzle' if count == 1 else 'make puzzles'} "
                   "of your own: python -m mancala puzzle --mine"))


def show(game: Game, review: _review.Review, depth: int) -> None:
    """The review as text: one row a move, a line more for each move marked, and on a
    terminal the curve of the scores beside the rows, or under them (:mod:`mancala.cli.curve`)."""
    count = len(game.moves)
    print(wrap(f"South {printable(game.south)} vs North {printable(game.north)}, "
               f"{rules_words(game.seeds, game.capture)}, "
               f"{count} move{'' if count == 1 else 's'} ({printable(game.source)})."))
    if not review.moves:
        print("No moves to review.")
        return
    width = columns()
    compact = width is not None and width < WIDE
    board = Board(seeds=game.seeds, capture=game.capture)
    played = []
    for move in review.moves:
        record = board.push(move.pit_index)
        # the game's end is said under the rows (MoveRecord.effects' words): its room goes to the columns
        played.append(move_text(record._replace(game_over=False, swept=(0, 0))))
    print(wrap(f"Each move's score (exact: perfect play; depth {depth}: a search {depth} moves "
               "deep, as the hint's) and the seeds it lost against the best move; moves "
               "numbered as in the game record, pits 1-6 from the mover's left"
               + ("; A-F are South's pits, G-L North's; a move that lost is marked under it:"
                  if compact else ":")))
    if compact:
        size = max(len("played"), *map(len, played))
        table = [f" {'move':>4}  {'played':<{size}}  {'score after':<11}  {'lost':>4}  kind"]
    else:
        table = [f"  {'move':>4}  {'side':5}  {'played':<{PLAYED}}  {'score after':<11}  "
                 f"{'lost':>4}  {'kind':8}  mark"]
    for move, text in zip(review.moves, played):
        table += compact_rows(move, text, size) if compact else rows(move, text)
    scores = [move.after.south for move in review.moves]
    placed = curve.beside(table, scores, width) if width is not None else None
    for line in placed or table:
        print(wrap(line))
    if record.game_over:
        end = record._replace(extra_turn=False, captured=0).effects()
        print(wrap(f"After move {len(review.moves)}, {', '.join(end)}."))
    if width is not None and placed is None:      # on a terminal, under the table: no room beside
        for line in curve.plot(scores, width):
            print(line)
    for side in (0, 1):
        name = "You" if side == game.you else SIDE_NAMES[side]
        print(wrap(summary_line(name, review.summary(side))))


def rows(move: _review.MoveReview, played: str) -> List[str]:
    """A move's row, and the better move's under it when it lost:
    '     3  North  5 (K), captures 2 seeds  South +6  4  exact  mistake',
    '        better: 2, 3, 4 or 6, South +2 (exact); line 2 6 5 6 1 3 5 4'."""
    after = move.after
    text = (f"  {move.number:4d}  {SIDE_NAMES[move.side]:5}  {played:<{PLAYED}}  {after.words():<11}  "
            f"{move.loss:4d}  {after.kind:8}  {move.mark or ''}").rstrip()
    if move.loss <= 0:
        return [text]
    line = " ".join(str(pit + 1) for pit in move.line_indices)
    return [text, f"{'':8}better: {move.better()}; line {line}"]


def compact_rows(move: _review.MoveReview, played: str, size: int) -> List[str]:
    """A move's row without its side (its pit's letter says it) and its mark, which goes
    on the line under it with the better move, for a terminal under 80 columns (at most
    60 columns for a ``size`` of 24):
    '    4  4 (J)                     South +12      6  exact',
    '       blunder; better: 3, South +6 (exact); line 3 1 1 2 6 1 2 3'."""
    after = move.after
    text = f" {move.number:4d}  {played:<{size}}  {after.words():<11}  {move.loss:4d}  {after.kind}"
    if move.loss <= 0:
        return [text]
    line = " ".join(str(pit + 1) for pit in move.line_indices)
    return [text, f"{'':7}{move.mark}; better: {move.better()}; line {line}"]


def row(move: _review.MoveReview) -> str:
    """A move's row without its move text (for callers without the game's board)."""
    return " / ".join(rows(move, str(move.pit_index + 1)))


def summary_line(name: str, summary: dict) -> str:
    """'South: 51 seeds lost in 26 moves: 4 inaccuracies, 3 mistakes, 3 blunders.'"""
    counts = ", ".join(f"{summary[mark]} {mark if summary[mark] == 1 else plural(mark)}"
                       for mark, _ in _review.MARKS)
    lost = summary["seeds_lost"]
    return (f"{name}: {lost} seed{'' if lost == 1 else 's'} lost in {summary['moves']} "
            f"move{'' if summary['moves'] == 1 else 's'}: {counts}.")


def plural(word: str) -> str:
    return word[:-1] + "ies" if word.endswith("y") else word + "s"


# -- which game ---------------------------------------------------------------------------

def from_file(path: str, history: Optional[_history.History] = None) -> Game:
    """The game in a save file or a game record (SaveFileError, one line, if it is not
    one; only read), its number in the history when the history keeps that very game."""
    saved = storage.load(path)
    if saved.setup is not None:
        raise CommandError(f"{path!r} starts from a set-up position (its FEN tag): a review "
                           "goes through a game from the rules' start")
    game = Game(saved.seeds, saved.capture, saved.south, saved.north, list(saved.moves),
                f"from {path}")
    if history is not None:
        for kept in reversed(_games(history)):
            if (kept.seeds, kept.capture, list(kept.pit_indices), kept.south, kept.north) == \
                    (game.seeds, game.capture, game.moves, game.south, game.north):
                game.kept = kept.id
                break
    return game


def kept_game(history: _history.History, number: int) -> Game:
    """Game ``number`` of the history; CommandError if there is none."""
    for kept in _games(history):
        if kept.id == number:
            return _of(kept)
    raise CommandError(f"there is no game {number} in {history.path} "
                       "(python -m mancala history lists them)")


def last_game(history: Optional[_history.History] = None) -> Game:
    """The last game kept in the history, or the newest autosave if it is newer;
    CommandError when there is neither."""
    history = history if history is not None else _history.History()
    games = _games(history)
    kept = games[-1] if games else None
    saved = _newest_autosave()
    if kept is not None and (saved is None or _epoch(kept.finished) >= saved[1]):
        return _of(kept)
    if saved is not None:
        path, modified, game = saved
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(modified))
        return Game(game.seeds, game.capture, game.south, game.north, list(game.moves),
                    f"the game autosaved in {path}, saved {when}")
    raise CommandError(f"no game to review: none kept in {history.path} and none autosaved; "
                       "give a save file")


def _of(kept: _history.GameRecord) -> Game:
    return Game(kept.seeds, kept.capture, kept.south, kept.north, list(kept.pit_indices),
                f"game {kept.id} of your history, finished {local_time(kept.finished)}", kept.id)


def _games(history: _history.History) -> list:
    games = history.games()
    for notice in history.notices:
        print(f"mancala: {printable(notice)}", file=sys.stderr)
    history.notices.clear()
    return games


def _newest_autosave() -> "Optional[tuple]":
    """(path, modified, SavedGame) of the newest readable autosave, or None.

    Only reads: an autosave that does not load is passed over (``play`` sets
    such files aside), never renamed here.
    """
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


__all__ = ["add_parser", "run", "row", "rows", "compact_rows", "progress_line", "summary_line",
           "last_game", "kept_game",
           "from_file", "show"]
