"""The game loop in-process: humans typing through the terminal's Keyboard (scripted), an
observer that records, undo, hint, save/load."""
import json

import pytest

import mancala
from mancala import storage
from mancala.cli.entry import HELP, Keyboard
from mancala.game import Game, GameError, GameObserver
from mancala.players import Player, RandomPlayer

from conftest import depth_limited_values


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


class Recorder(GameObserver):
    """Keeps every event as (name, details)."""

    def __init__(self):
        self.events = []
        self.said = []          # what the keyboard wrote

    def on_start(self, game):
        self.events.append(("start", game.board.ply))

    def on_move(self, game, record, info):
        self.events.append(("move", record, info))

    def on_undo(self, game, undone):
        self.events.append(("undo", [r.pit for r in undone]))

    def on_hint(self, game, hint):
        self.events.append(("hint", hint))

    def on_saved(self, game, path):
        self.events.append(("saved", path))

    def on_loaded(self, game, path):
        self.events.append(("loaded", path))

    def on_error(self, game, message):
        self.events.append(("error", message))

    def on_end(self, game, outcome):
        self.events.append(("end", outcome))

    def named(self, name):
        return [e for e in self.events if e[0] == name]


def script(*lines):
    """An input function that reads the given lines, then end of input."""
    feed = iter(lines)

    def read(prompt):
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return read


def game_with(*lines, south="human", north="ai:depth=2", **options):
    recorder = Recorder()
    keyboard = Keyboard(script(*lines), recorder.said.append)
    game = keyboard.game = Game(south, north, observer=recorder, ask=keyboard.ask, **options)
    return game, recorder


def test_computer_game_runs_to_the_end_and_reports_every_move():
    game, recorder = game_with(south="random", north="ai:depth=3", seed=4)
    outcome = game.run()
    assert outcome is not None and game.is_over()
    assert outcome.south + outcome.north == 48
    moves = recorder.named("move")
    assert len(moves) == game.board.ply == len(game.moves)
    assert recorder.events[0] == ("start", 0)
    assert recorder.events[-1] == ("end", outcome)
    assert all(info is not None for _, _, info in moves)


def test_same_seed_same_game():
    first = Game("random", "ai:easy", seed=11)
    second = Game("random", "ai:easy", seed=11)
    first.run(), second.run()
    assert first.moves == second.moves


def test_rules_reach_the_board():
    game = Game("random", "random", seeds=3, capture="none", seed=1)
    assert game.board.pits == [3] * 6 + [0] + [3] * 6 + [0]
    assert game.board.capture == "none"
    outcome = game.run()
    assert outcome.south + outcome.north == 36


def test_player_objects_can_be_given_directly():
    class FirstPit(Player):
        spec = "first"

        def choose(self, board):
            return board.legal_moves[0]

    game = Game(FirstPit(), RandomPlayer(seed=2))
    game.run()
    assert game.specs == ("first", "random")
    assert game.is_over()


def test_a_player_returning_an_illegal_pit_is_an_error():
    class Broken(Player):
        spec = "broken"

        def choose(self, board):
            return 9

    with pytest.raises(mancala.IllegalMoveError):
        Game(Broken(), "random").step()


def test_human_moves_and_commands_come_from_the_input():
    game, recorder = game_with("zzz", "3", "help", "quit")
    assert game.run() is None            # quit
    assert game.quit_requested
    assert game.moves[0] == 2            # "3" is pit 2 from South's left
    assert HELP in recorder.said


def test_end_of_input_passes_out_of_run():
    game, _ = game_with("1")
    with pytest.raises(EOFError):
        game.run()
    assert game.moves[0] == 0


def test_hint_suggests_a_best_move_with_its_score():
    # South's hint at the start, 4 moves deep, against a full-width search of
    # the twin's rules written out in conftest (not the engine the hint uses)
    game, recorder = game_with("hint", "quit", hint_depth=4)
    game.run()
    (_, hint), = recorder.named("hint")
    values = depth_limited_values(mancala.Board().pits, 0, 4, 0)
    assert hint.depth == 4 and hint.score.side == 0 and not hint.score.exact
    assert hint.score.seeds == max(values.values()), values
    assert values[hint.pit] == hint.score.seeds


def test_hint_after_the_end_is_an_error():
    game = Game("random", "random", seed=1)
    game.run()
    with pytest.raises(GameError):
        game.hint()


# -- undo -----------------------------------------------------------------------------------
#
# From the start, North's pit 3 (slot 9, 4 seeds) ends in North's store: after
# South plays pit 1, North can answer 3 (extra turn) and then 6.

def test_undo_takes_back_the_computers_extra_turn_chain_and_the_humans_move():
    game, recorder = game_with("undo", "quit", moves=[0, 2, 5])
    assert [r.player for r in game.board.move_stack] == [0, 1, 1]
    assert game.board.move_stack[1].extra_turn
    game.run()
    assert recorder.named("undo") == [("undo", [5, 2, 0])]
    assert game.board.ply == 0 and game.to_move == 0


def test_undo_inside_the_humans_own_extra_turn_takes_back_one_move():
    # South's pit 3 (4 seeds) ends in South's store: South moves again
    game, recorder = game_with("undo", "quit", moves=[2])
    game.run()
    assert recorder.named("undo") == [("undo", [2])]
    assert game.board.ply == 0


def test_undo_for_north_when_the_computer_moved_first():
    game = Game("ai:depth=2", "human", moves=[0, 2, 5, 1])
    # South 1, North 3 (extra) 6, South 2; North (human) undoes: South 2 and North 6 go
    assert [r.pit for r in game.undo()] == [1, 5]
    assert game.moves == [0, 2]
    assert game.to_move == 1
    # again: North's 3 goes, and nothing of South's before it
    assert [r.pit for r in game.undo()] == [2]
    assert game.moves == [0]
    assert game.to_move == 1


def test_undo_with_nothing_of_a_human_to_take_back_is_refused_and_the_game_goes_on():
    game, recorder = game_with("undo", "quit", south="ai:depth=1", north="human", moves=[0])
    game.run()
    (_, message), = recorder.named("error")
    assert "no move of a human" in message
    assert game.moves == [0]


def test_undo_between_two_humans_takes_back_the_last_move():
    game, recorder = game_with("undo", "quit", north="human", moves=[0, 1])
    game.run()
    assert recorder.named("undo") == [("undo", [1])]
    assert game.moves == [0]


def test_undo_refused_with_no_humans():
    game = Game("random", "random", moves=[0, 1])
    with pytest.raises(GameError):
        game.undo()


# -- record, save, load, autosave ------------------------------------------------------------

def test_turns_group_extra_turn_chains():
    game = Game("random", "random", moves=[0, 2, 5, 2])
    turns = game.turns()
    assert [(t.player, [r.pit for r in t.moves]) for t in turns] == [
        (0, [0]), (1, [2, 5]), (0, [2])]


def test_save_command_writes_a_file_that_loads_to_the_same_game(tmp_path):
    game, recorder = game_with("2", "save mine.json", "quit", seed=3)
    game.run()
    assert recorder.named("saved") == [("saved", str(tmp_path / "mine.json"))]
    saved = storage.load(tmp_path / "mine.json")
    assert saved.moves == game.moves
    assert (saved.south, saved.north, saved.seed) == ("human", "ai:depth=2", 3)
    again = Game.from_saved(saved)
    assert again.board == game.board and again.moves == game.moves


def test_save_without_a_name_goes_to_the_data_folder_not_the_current_one(tmp_path):
    game, _ = game_with("save", "quit")
    game.run()
    assert storage.load(tmp_path / "home" / storage.SAVES_FOLDER / storage.DEFAULT_SAVE_NAME).moves == []
    assert not (tmp_path / storage.DEFAULT_SAVE_NAME).exists()


def test_load_command_replaces_the_game(tmp_path):
    other = Game("human", "ai:depth=1", seeds=3, capture="empty", moves=[0, 1])
    other.save(tmp_path / "other.json")
    game, recorder = game_with("load other.json", "quit")
    game.run()
    assert recorder.named("loaded") == [("loaded", "other.json")]
    assert (game.seeds, game.capture, game.moves) == (3, "empty", [0, 1])
    assert game.specs == ("human", "ai:depth=1")


def test_a_bad_load_is_reported_and_the_game_goes_on(tmp_path):
    (tmp_path / "junk.json").write_text("{not json")
    game, recorder = game_with("load junk.json", "load missing.json", "1", "quit")
    game.run()
    errors = [message for _, message in recorder.named("error")]
    assert len(errors) == 2
    assert "not JSON" in errors[0] and "junk.json" in errors[0]
    assert "no such file" in errors[1]
    assert game.moves[0] == 0


def test_every_move_and_undo_is_autosaved(tmp_path):
    path = tmp_path / "auto.json"
    seen = []

    game, recorder = game_with("1", "undo", "2", "quit", autosave=path)
    original_play = game.play

    def play_and_look(pit, info=None):
        record = original_play(pit, info)
        seen.append(storage.load(path).moves == game.moves)
        return record

    game.play = play_and_look
    game.run()
    assert seen and all(seen)
    assert storage.load(path).moves == game.moves


def test_autosave_that_cannot_be_written_is_switched_off_with_one_message(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    game, recorder = game_with("1", "2", "quit", autosave=blocker / "auto.json")
    game.run()
    errors = recorder.named("error")
    assert len(errors) == 1 and errors[0][1].startswith("autosave is off")
    assert game.autosave is None


def test_from_saved_replays_the_moves():
    saved = storage.SavedGame(5, "none", "random", "ai:easy", [0, 1, 2], 9)
    game = Game.from_saved(saved)
    board = mancala.Board(seeds=5, capture="none")
    for pit in (0, 1, 2):
        board.push(pit)
    assert game.board == board
    assert game.seed == 9
    assert json.loads(storage.dumps(game.to_saved()))["moves"] == [0, 1, 2]


# -- rated games and resigning ------------------------------------------------------------------

def test_a_rated_game_refuses_hint_undo_and_load_and_goes_on(tmp_path):
    storage.save(storage.SavedGame(3, "none", "human", "random", [0]), tmp_path / "other.json")
    game, recorder = game_with("1", "hint", "undo", f"load {tmp_path / 'other.json'}", "quit",
                               rated=True)
    game.run()
    errors = [event[1] for event in recorder.events if event[0] == "error"]
    assert errors == ["no hints in a rated game: it is played unaided",
                      "no takebacks in a rated game: it is played unaided",
                      "a rated game is not swapped for another: resign it, or quit (it is saved "
                      "to resume)"]
    assert recorder.named("hint") == [] and recorder.named("undo") == []
    assert game.moves[0] == 0 and game.seeds == 4          # the same game, played on


def test_a_resigned_game_is_over_and_lost_by_the_side_that_resigned():
    game = Game("human", "ai:depth=1", moves=[0, 2])      # North (the computer) to move
    assert not game.is_over() and game.outcome() is None and game.to_move == 1
    assert game.resign() == 0 == game.resigned              # the one person: South
    assert game.is_over()
    outcome = game.outcome()
    assert outcome.winner == 1
    assert (outcome.south, outcome.north) == (game.board.pits[6], game.board.pits[13])
    with pytest.raises(GameError, match="the game is over"):
        game.resign()


def test_a_game_without_a_person_cannot_resign():
    with pytest.raises(GameError, match="only a person can resign"):
        Game("random", "random").resign()


def test_a_rated_game_resumes_rated(tmp_path):
    game = Game("human", "ai:easy", rated=True, moves=[0])
    storage.save(game.to_saved(), tmp_path / "g.json")
    again = Game.from_saved(storage.load(tmp_path / "g.json"))
    assert again.rated and again.moves == [0]
    assert not Game.from_saved(storage.load(tmp_path / "g.json"), rated=False).rated
    casual = Game("human", "ai:easy", moves=[0])
    storage.save(casual.to_saved(), tmp_path / "c.json")
    assert "rated" not in (tmp_path / "c.json").read_text()
    assert not Game.from_saved(storage.load(tmp_path / "c.json")).rated
