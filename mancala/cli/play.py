"""``python -m mancala play``: Kalah in the terminal.

With no flags on a terminal it opens menus (new game, resume, load; who
plays each side; difficulty; rules). With flags it starts straight away
(``--south human --north ai:hard --seeds 5 --capture empty``). When input is
not a terminal and no players are given, the computer plays itself to the end:
the demo. Every game autosaves every move to its own file
(:mod:`mancala.autosaves`); ``--resume`` continues the only saved game, or
lists them when there are several, and ``--resume N`` picks one. A game between
two computers (the demo) is the person's neither: it is not autosaved nor kept in
the history.

A game of a person against a computer level with an Elo is **rated** unless
``--casual`` (or the menu) says otherwise: no hint, undo, load or score
until it ends; ``resign`` asks once and ends it as a loss, kept and rated.
A casual game allows them all and is kept in the history, not rated.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Callable, List, Optional, Tuple

from mancala import autosaves, records, storage
from mancala.board import MoveRecord, rules_words
from mancala.cli import options
from mancala.cli.entry import RESUME_HINT, Keyboard
from mancala.cli.history import record_finished    # issue 25: the game history
from mancala.cli.menus import ask_again, choose, levels_help, menu
from mancala.cli.options import is_terminal
from mancala.cli.render import (Style, columns, describe_move, describe_outcome, describe_turns,
                                move_text, render_board, want_color, wrap)
from mancala.errors import CommandError, quote
from mancala.game import (COMPUTERS_NOT_KEPT, LEFT_RULE, RATED_RULES, Game, GameObserver, Hint,
                          can_be_rated, has_person, unrated_because)
from mancala.geometry import SIDE_NAMES
from mancala.unfinished import settle_left
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS, parse_whole
from mancala.players import MoveInfo, canonical_spec, program_in
from mancala.specs import VALID_SPECS
from mancala.untrusted import printable

DEMO_PLAYER = "ai:medium"


# -- the terminal as a game observer -------------------------------------------------

class Terminal(GameObserver):
    """Draws the game and reads lines; echoes what it read when input is piped."""

    def __init__(self, style: Style, out: Callable[[str], None] = print,
                 read: Callable[[str], str] = input, echo: bool = False) -> None:
        self.style = style
        self._write = out
        self._read = read
        self.echo = echo

    def out(self, text: str) -> None:
        """Show text, its words wrapped at the terminal's width."""
        self._write(wrap(text))

    @staticmethod
    def you(game: Game) -> Optional[int]:
        """The side of the one person playing, if one does (scores are said for them)."""
        humans = [side for side, player in enumerate(game.players) if player.is_human]
        return humans[0] if len(humans) == 1 else None

    def ask(self, prompt: str) -> str:
        line = self._read(prompt)
        if self.echo:
            self.out(line)
        return line

    def show(self, game: Game, last: Optional[MoveRecord] = None) -> None:
        self.out(render_board(game.board, game.specs, self.style, last, width=columns()))
        if not game.is_over() and not game.current_player.is_human:
            self.out(self.status(game, last))

    def status(self, game: Game, last: Optional[MoveRecord]) -> str:
        """'North (ai:medium) to move again.': said while the computer thinks; a person's
        prompt says it for them ('South, your move ...'), so it is not said twice."""
        side = SIDE_NAMES[game.to_move]
        again = " again" if last is not None and last.extra_turn else ""
        return self.style(f"{side} ({printable(game.specs[game.to_move])}) to move{again}.", "bold")

    def on_start(self, game: Game) -> None:
        south, north = map(printable, game.specs)      # a save file's spellings, shown safely
        self.out(f"Kalah: {rules_words(game.seeds, game.capture)}. South: {south}, North: {north}.")
        if game.rated:
            self.out("A rated game: no hints, takebacks or scores until it ends; "
                     f"resign ends it as a loss. {LEFT_RULE[0].upper()}{LEFT_RULE[1:]}.")
        elif can_be_rated(*game.specs, game.seeds, game.capture):
            self.out("A casual game: hints and takebacks allowed; it is kept, not rated.")
        elif can_be_rated(*game.specs, *RATED_RULES[0]):    # the players could, the rules cannot
            why = unrated_because(*game.specs, game.seeds, game.capture)
            self.out(f"A casual game, not rated: {why}.")
        if any(player.is_human for player in game.players):
            start = records.setup_of(game.board, game.seeds)    # a record's set-up may be North's
            first = SIDE_NAMES[0 if start is None else start.to_move]
            self.out(f"{first} moves first. Type a pit (1-6, or its letter) or help.")
        last = game.board.peek() if game.board.ply else None
        if last is not None:
            self.out(f"Resuming after {_moves(game.board.ply)}.")
        self.out("")
        self.show(game, last)

    def on_move(self, game: Game, record: MoveRecord, info: Optional[MoveInfo]) -> None:
        self.out("")
        self.out(describe_move(record, game.specs, info, self.you(game), scores=not game.rated))
        self.show(game, record)

    def on_undo(self, game: Game, undone: List[MoveRecord]) -> None:
        taken = "; ".join(f"{SIDE_NAMES[r.player]} {move_text(r)}" for r in reversed(undone))
        self.out(f"Took back {_moves(len(undone))}: {taken}.")
        self.out("")
        self.show(game, game.board.peek() if game.board.ply else None)

    def on_hint(self, game: Game, hint: Hint) -> None:
        played = game.board.copy(stack=False).push(hint.pit)
        self.out(f"Hint: pit {move_text(played)}: {hint.score.text(you=game.to_move)}.")

    def on_saved(self, game: Game, path: str) -> None:
        shown = storage.shown_path(os.path.abspath(path))
        self.out(f"Saved to {printable(shown)}; continue it with python -m mancala play --load "
                 f"{printable(shlex.quote(shown) if shown[:1] != '~' else shown)}")

    def on_loaded(self, game: Game, path: str) -> None:
        self.out(f"Loaded {path}.")

    def on_error(self, game: Game, message: str) -> None:
        self.out(self.style(message, "bad"))

    def on_end(self, game: Game, outcome) -> None:
        self.out("")
        if not game.board.move_stack:
            self.out("No moves were played.")
            return
        self.out("Game record (moves numbered as review numbers them; pits 1-6 from each "
                 "mover's left):")
        for line in describe_turns(game.board.move_stack):
            self.out(line)

    def result(self, game: Game, rating: str) -> None:
        """The result line, in the person's words, with what it did to their rating
        (a game between computers: that it was not kept)."""
        text = describe_outcome(game.outcome(), self.you(game), game.resigned)
        rating = _not_kept(game) or rating
        self.out(self.style(text, "good") + (f" {rating}" if rating else ""))


# -- the command -----------------------------------------------------------------------

def _game_number(text: str) -> int:
    number = parse_whole(text.strip())
    if number is None or not 1 <= number <= 10 ** 6:
        raise argparse.ArgumentTypeError(f"N is a saved game's number in the list, "
                                         f"from 1, not {quote(text, 20)}")
    return number


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play", help="play Kalah in the terminal (menus, or flags for scripts)",
        description="Play Kalah. Without flags on a terminal: menus. Without a terminal and "
                    "without players: the computer plays itself (a demo). Players: "
                    + VALID_SPECS + ". " + levels_help(),
        epilog="In game: a pit 1-6 (from your left) or letter A-F (South) / G-L (North), "
               "or hint, undo, save [FILE], load FILE, resign, help, quit (a rated game has "
               "no hint, undo or load; save NAME.kalah writes a game record people can read). "
               "Every move is autosaved; "
               f"resume with `{RESUME_HINT}`.")
    p.add_argument("--south", type=options.player, metavar="PLAYER",
                   help="who plays South, the side that moves first (default: human; "
                        f"{DEMO_PLAYER} in the demo, with no terminal and no players given)")
    p.add_argument("--north", type=options.player, metavar="PLAYER",
                   help=f"who plays North (default: {DEMO_PLAYER})")
    p.add_argument("--seeds", type=options.seeds, metavar="N",
                   help=f"seeds per pit, {MIN_SEEDS}..{MAX_SEEDS_PER_PIT} (default {DEFAULT_SEEDS})")
    options.add_capture(p, default=None)
    source = p.add_mutually_exclusive_group()
    source.add_argument("--load", metavar="FILE",
                        help="continue a saved game: a save file, or a game record (.kalah, "
                             "from any position its FEN tag sets up)")
    source.add_argument("--resume", nargs="?", const=0, type=_game_number, metavar="N",
                        help="continue the autosaved game where it stopped; with several, "
                             "list them (newest first) and N picks one")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--casual", action="store_true",
                      help="a casual game: hints and takebacks allowed, kept in your history "
                           "but not rated (a person against a computer level is rated by default)")
    mode.add_argument("--rated", action="store_true",
                      help="a rated game (the default where it can be: a person against a "
                           "computer level with an Elo): no hint, undo or score until it ends")
    p.add_argument("--seed", type=options.seed, metavar="N",
                   help="seed for the random choices of random players and ai:easy/medium")
    p.add_argument("--no-color", action="store_true", help="plain text even on a terminal")
    p.add_argument("--threads", type=options.threads, default=1, metavar="N",
                   help="threads of ai:depth=N and ai:time=S players (default 1; the levels play on one)")
    p.set_defaults(run=run)


def _interactive() -> bool:
    return is_terminal(sys.stdin)


def _start(args: argparse.Namespace, term: Terminal, interactive: bool,
           found: autosaves.Scan) -> Tuple[Optional[storage.SavedGame], Optional[autosaves.Slot]]:
    """What to play, from the flags or the menus (None to stop), and the slot of a resumed game."""
    resume = args.resume is not None
    if (args.load or resume) and (args.seeds is not None or args.capture is not None):
        raise CommandError("--seeds and --capture come from the save file; "
                           "leave them out with --load or --resume")
    if (args.load or resume) and (args.casual or args.rated):
        raise CommandError("a game is rated or casual from its start: the save file says "
                           "which; leave out --casual and --rated with --load or --resume")
    slot = None
    if resume:
        saved, slot = _resume(args.resume, term, interactive, found)
        if saved is None:
            return None, None
    elif args.load:
        saved = storage.load(os.path.expanduser(args.load), players=canonical_spec)
        refused = program_in(saved, (args.south, args.north))
        if refused:
            raise CommandError(f"{args.load!r}: {refused}: give --south or --north to name it")
    elif interactive and not any((args.south, args.north, args.seeds, args.capture)):
        return menu(term, found)
    else:
        demo = not interactive and args.south is None and args.north is None
        saved = storage.SavedGame(
            args.seeds or 4, args.capture or "standard",
            args.south or (DEMO_PLAYER if demo else "human"), args.north or DEMO_PLAYER, [])
    if args.south:
        saved.south = args.south
    if args.north:
        saved.north = args.north
    why = unrated_because(saved.south, saved.north, saved.seeds, saved.capture)
    if not (args.load or resume):
        saved.rated = why is None and not args.casual
        if args.rated and why is not None:
            raise CommandError(f"South {saved.south} vs North {saved.north} cannot be rated: {why}")
    elif why is not None:       # saved rated before the rules were asked: it goes on casual
        saved.rated = False
    return saved, slot


def _resume(number: int, term: Terminal, interactive: bool, found: autosaves.Scan
            ) -> Tuple[Optional[storage.SavedGame], Optional[autosaves.Slot]]:
    """``--resume [N]``: the saved game to continue, claimed for this process."""
    entries = found.entries
    if not entries:
        raise CommandError(f"no game to resume: nothing autosaved in {autosaves.folder()}")
    if number > len(entries):
        _list(term, entries)
        raise CommandError(f"there is no saved game {number}: "
                           f"{len(entries)} {'is' if len(entries) == 1 else 'are'} listed above")
    if number:
        entry = entries[number - 1]
    elif len(found.free) == 1:
        entry = found.free[0]
    elif not found.free:
        _list(term, entries)
        raise CommandError("no game to resume: every saved game is in use by a running game")
    elif interactive:
        entry = choose(term, "Saved games, newest first:",
                       [(entry.describe(), entry) for entry in entries] + [("quit", None)])
        if entry is None:
            return None, None
    else:
        _list(term, entries)
        raise CommandError(f"{len(entries)} saved games: pick one with `{RESUME_HINT} N`")
    slot, saved = autosaves.Slot.claim(entry.path)
    return saved, slot


def _list(term: Terminal, entries: List[autosaves.Entry]) -> None:
    term.out("Saved games, newest first:")
    for number, entry in enumerate(entries, 1):
        term.out(f"  {number}. {entry.describe()}")


def _new_slot(term: Terminal) -> Optional[autosaves.Slot]:
    """A slot for a new game, or None (and one line) when the data folder cannot be written."""
    try:
        return autosaves.Slot.create()
    except autosaves.AutosaveError as exc:
        term.out(f"autosave is off: {exc}")
        return None


def run(args: argparse.Namespace) -> int:
    interactive = _interactive()
    term = Terminal(Style(want_color(args.no_color)), echo=not interactive)
    game: Optional[Game] = None
    slot: Optional[autosaves.Slot] = None
    try:
        try:
            found = settle_left(autosaves.scan())    # rated games left for good: lost
        except OSError as exc:           # the saved games are out of reach; a new game is not
            reason = (exc.strerror or str(exc)).lower()
            found = autosaves.Scan(notices=[f"The saved games in {autosaves.folder()} "
                                            f"cannot be listed ({reason})."])
        for notice in found.notices:
            term.out(printable(notice))
        saved, slot = _start(args, term, interactive, found)
        if saved is None:
            return 0
        if args.seed is not None:
            saved.seed = args.seed
        while True:
            if slot is None and _has_person((saved.south, saved.north)):
                slot = _new_slot(term)
            keyboard = Keyboard(term.ask, term.out)
            game = keyboard.game = Game.from_saved(saved, observer=term,
                                                   autosave=None if slot is None else slot.path,
                                                   ask=keyboard.ask, threads=args.threads)
            outcome = game.run()
            if outcome is None:
                term.out(_resume_line(game))
                return 0
            rating = "" if _not_kept(game) else record_finished(game, term.out)
            if slot is not None:                # only then is its autosave let go
                slot.finish()
                slot = None
            term.result(game, rating)
            wants_again = interactive or any(p.is_human for p in game.players)
            if not wants_again or not ask_again(term):
                return 0
            saved = storage.SavedGame(game.seeds, game.capture, *game.specs, [],
                                      None if game.seed is None else game.seed + 2, game.rated)
            term.out("")
    except EOFError:
        term.out("")
        if game is not None and not game.is_over():
            term.out(_resume_line(game))
        return 0
    except KeyboardInterrupt:
        term.out("")
        if game is not None and not game.is_over():
            term.out(_resume_line(game))
        else:
            term.out("Interrupted.")
        return 130
    finally:
        if slot is not None:
            if game is not None and not game.board.ply:
                slot.finish()            # nothing played: nothing to resume
            else:
                slot.release()


def _has_person(specs) -> bool:
    """Whether a person plays (:func:`mancala.game.has_person`, the web's rule too): a game
    between two computers (the demo) is neither autosaved nor kept in the history."""
    return has_person(*specs)


def _not_kept(game: Game) -> str:
    """Why a finished game is not kept in the history ('' when it is): a game between
    computers is no person's; one from a set-up position (a game record's FEN) is no
    whole game."""
    if not _has_person(game.specs):
        return COMPUTERS_NOT_KEPT
    if records.setup_of(game.board, game.seeds) is not None:
        return "A game from a set-up position: not kept in your history."
    return ""


def _resume_line(game: Game) -> str:
    if not _has_person(game.specs):
        return "Stopped; a game between computers is not saved."
    if game.autosave is None:
        return "Stopped; this game was not saved (autosave is off)."
    if not game.board.ply:
        return "Stopped before the first move; nothing to resume."
    return f"Stopped after {_moves(game.board.ply)}; the game is saved: {RESUME_HINT}"


def _moves(count: int) -> str:
    return f"{count} move" + ("" if count == 1 else "s")
