"""The terminal game's start menus: new game, resume, load; who plays; rules; rated or casual.

Each menu is numbered, and the numbers stay put: the start menu always reads
1 new game, 2 resume, 3 load, 4 quit, whether or not a game is saved to
resume (choosing 2 with nothing saved says so and asks again).
:mod:`mancala.cli.play` opens them on a terminal when no flag says what to play.
"""
from __future__ import annotations

import argparse
import os
from typing import Callable, List, Optional, Tuple

from mancala import autosaves, storage
from mancala.board import CAPTURE_WORDS
from mancala.cli import options
from mancala.errors import quote
from mancala.game import can_be_rated
from mancala.levels import elo_range
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS, parse_whole
from mancala.players import EnginePlayer, canonical_spec, level_elo, program_in
from mancala.specs import LEVELS, VALID_SPECS
from mancala.untrusted import printable

RATED_HELP = ("rated: no hints, takebacks or scores while it lasts; it counts for your rating",
              "casual: hints and takebacks allowed; kept in your history, not rated")


def choose(term, title: str, options: List[tuple], default: int = 1,
           free: Optional[Callable[[str], object]] = None):
    """A numbered menu that re-asks until it gets a valid choice; returns the option's value.

    ``options`` are (label, value). With ``free``, any other text is passed to it
    and its result returned, unless it raises ValueError.
    """
    if title:
        term.out(title)
    for number, (label, _) in enumerate(options, 1):
        term.out(f"  {number}. {label}")
    while True:
        answer = term.ask(f"Choice [{default}]: ").strip()
        if not answer:
            return options[default - 1][1]
        number = parse_whole(answer)
        if number is not None and 1 <= number <= len(options):
            return options[number - 1][1]
        if free is not None:
            try:
                return free(answer)
            except ValueError:
                pass
        also = f", or a player ({VALID_SPECS})" if free is not None else ""
        term.out(f"{quote(answer)} is not a choice; type a number from 1 to {len(options)}{also}.")


def ask_player(term, side: str, default: int) -> str:
    kind = choose(term, f"Who plays {side}?", [
        ("a person (human)", "human"),
        ("the computer", "ai"),
        ("a random mover", "random"),
    ], default, free=canonical_spec)
    if kind != "ai":
        return kind
    lowest, highest = elo_range()
    spec = choose(term, f"How strong is the computer playing {side}? (Elo: random moves are 0)", [
        (f"{level:<9}{_elo_text(f'ai:{level}')}  {EnginePlayer.DESCRIPTIONS[level]}", f"ai:{level}")
        for level in LEVELS
    ] + [(f"another strength: ai:elo=N, any N from {lowest} to {highest}", "elo")], 2,
        free=canonical_spec)
    while spec == "elo":
        answer = term.ask(f"Elo, {lowest}-{highest}: ").strip()
        try:
            spec = canonical_spec(f"ai:elo={answer}")
        except ValueError:
            term.out(f"{quote(answer)} is not a whole number from {lowest} to {highest}.")
    return spec


def _elo_text(spec: str) -> str:
    """'Elo 1340' for a level of the table, blanks for one without."""
    level = level_elo(spec)
    return f"Elo {level.elo:4.0f}" if level is not None else " " * 8


def levels_help() -> str:
    """The levels and their Elo, for --help: 'ai:easy 620, ai:medium 1340, ...'."""
    lowest, highest = elo_range()
    found = [level_elo(spec) for spec in ("random", *(f"ai:{level}" for level in LEVELS))]
    named = ", ".join(f"{level.spec} {level.elo:.0f}" for level in found if level is not None)
    return (f"The levels' Elo (random moves are 0): {named}; ai:elo=N plays at any N from "
            f"{lowest} to {highest} (python -m mancala levels lists them all).")


def ask_seeds(term) -> int:
    while True:
        answer = term.ask(f"Seeds per pit, {MIN_SEEDS}-{MAX_SEEDS_PER_PIT} [{DEFAULT_SEEDS}]: ").strip()
        if not answer:
            return DEFAULT_SEEDS
        try:
            return options.seeds(answer)
        except argparse.ArgumentTypeError:
            term.out(f"{quote(answer)} is not a number from {MIN_SEEDS} to {MAX_SEEDS_PER_PIT}.")


def ask_rated(term, south: str, north: str, seeds: int, capture: str) -> bool:
    """Rated or casual, for a game that can be rated (else casual, unasked: the game's
    first lines say why)."""
    if not can_be_rated(south, north, seeds, capture):
        return False
    return choose(term, "Rated or casual?", [(RATED_HELP[0], True), (RATED_HELP[1], False)])


def menu(term, found: autosaves.Scan
         ) -> Tuple[Optional[storage.SavedGame], Optional[autosaves.Slot]]:
    """The start menus: a SavedGame to play (or None to quit), and the slot of a resumed game."""
    term.out(term.style("Kalah (Mancala)", "bold"))
    while True:
        if len(found.entries) == 1:
            resume = "resume the autosaved game (" + found.entries[0].describe() + ")"
        elif found.entries:
            resume = f"resume a saved game ({len(found.entries)} saved)"
        else:
            resume = "resume a saved game (none saved yet)"
        action = choose(term, "", [("new game", "new"), (resume, "resume"),
                                   ("load a saved game", "load"), ("quit", "quit")])
        if action == "quit":
            return None, None
        if action == "resume":
            if not found.entries:
                term.out("No game is saved to resume: every game is saved as it is played, "
                         "so start one with 1.")
                continue
            entry = found.entries[0]
            if len(found.entries) > 1:
                entry = choose(term, "Saved games, newest first:", [
                    (entry.describe(), entry) for entry in found.entries] + [("back", None)])
                if entry is None:
                    continue
            try:
                slot, saved = autosaves.Slot.claim(entry.path)
            except storage.SaveFileError as exc:
                term.out(str(exc))
                found = autosaves.scan()
                continue
            return saved, slot
        if action == "load":
            saved = _ask_file(term)
            if saved is not None:
                return saved, None
            continue
        south = ask_player(term, "South (moves first)", 1)
        north = ask_player(term, "North", 2)
        seeds = ask_seeds(term)
        capture = choose(term, "Capture rule:", [
            (f"{name:<10}{words}", name) for name, words in CAPTURE_WORDS.items()])
        rated = ask_rated(term, south, north, seeds, capture)
        return storage.SavedGame(seeds, capture, south, north, [], rated=rated), None


def _ask_file(term) -> Optional[storage.SavedGame]:
    while True:
        name = term.ask("Save file to load (empty to go back): ").strip()
        if not name:
            return None
        try:
            saved = storage.load(os.path.expanduser(name), players=canonical_spec)
            refused = program_in(saved)     # --load FILE --south/--north names the program
            if refused is None:
                return saved
            term.out(printable(f"{name!r}: {refused}"))
        except storage.SaveFileError as exc:
            term.out(printable(str(exc)))


def ask_again(term) -> bool:
    while True:
        answer = term.ask("Play again? [y/N]: ").strip().lower()
        if answer in ("", "n", "no", "q", "quit"):
            return False
        if answer in ("y", "yes"):
            return True
        term.out(f"{quote(answer)}: type y or n.")


__all__ = ["choose", "ask_player", "ask_seeds", "ask_rated", "menu", "ask_again", "levels_help"]
