"""mancala.specs: a player's spelling parsed once into a PlayerSpec, checked against
values written out by hand, and every face (arena, web, environments) taking the value."""
import pathlib
import re

import pytest

import mancala
from mancala.arena import ArenaConfig
from mancala.errors import InvalidLimitError, PlayerSpecError
from mancala.players import EnginePlayer, ExternalPlayer, MinimaxPlayer, make_player
from mancala.specs import PlayerSpec, machine_spec


@pytest.mark.parametrize("text, spec, canonical", [
    ("human", PlayerSpec("human"), "human"),
    (" Random ", PlayerSpec("random"), "random"),
    ("minimax:3", PlayerSpec("minimax", depth=3), "minimax:3"),
    ("alphabeta:30", PlayerSpec("alphabeta", depth=30), "alphabeta:30"),
    ("ai", PlayerSpec("ai", level="medium"), "ai:medium"),
    ("AI:Perfect", PlayerSpec("ai", level="perfect"), "ai:perfect"),
    ("ai:depth=254", PlayerSpec("ai", depth=254), "ai:depth=254"),
    ("ai:time=0.25", PlayerSpec("ai", time=0.25), "ai:time=0.25"),
    ("ai:time=2", PlayerSpec("ai", time=2.0), "ai:time=2"),
    ("ai:depth=3,temp=0.5", PlayerSpec("ai", depth=3, temperature=0.5), "ai:depth=3,temp=0.5"),
    (" AI:Depth=12, Temp=2.0 ", PlayerSpec("ai", depth=12, temperature=2.0), "ai:depth=12,temp=2"),
    ("ai:depth=1,temp=0", PlayerSpec("ai", depth=1, temperature=0.0), "ai:depth=1,temp=0"),
    ("ai:elo=1000", PlayerSpec("ai", elo=1000), "ai:elo=1000"),
    ('engine:"Prog --Level 3"@0.5', PlayerSpec("engine", command="Prog --Level 3", time=0.5),
     'engine:"Prog --Level 3"@0.5'),
    ("engine:/opt/kalah", PlayerSpec("engine", command="/opt/kalah"), 'engine:"/opt/kalah"'),
    ("engine:/opt/kalah@3", PlayerSpec("engine", command="/opt/kalah", time=3.0),
     'engine:"/opt/kalah"@3'),
])
def test_every_spelling_parses_to_its_value_and_back(text, spec, canonical):
    assert PlayerSpec.parse(text) == spec
    assert str(spec) == canonical
    assert PlayerSpec.parse(canonical) == spec
    assert PlayerSpec.parse(spec) is spec           # a value passes through


def test_an_engine_plays_a_tenth_of_a_second_unless_told():
    assert PlayerSpec.parse("engine:prog").seconds == 0.1
    assert PlayerSpec.parse("engine:prog@2").seconds == 2.0
    assert PlayerSpec.parse("ai:depth=3").seconds is None


@pytest.mark.parametrize("make, words", [
    (lambda: PlayerSpec("robot"), "kind is one of human, random"),
    (lambda: PlayerSpec("random", depth=3), "random takes nothing, not depth"),
    (lambda: PlayerSpec("ai", level="hard", depth=3), "give one of level, elo, depth or time"),
    (lambda: PlayerSpec("ai", elo=1000, depth=3), "give one of level, elo, depth or time"),
    (lambda: PlayerSpec("ai", time=1, temperature=1), "a temperature goes with a depth"),
    (lambda: PlayerSpec("ai", depth=3, temperature=-0.5), "temp is seeds, from 0 to 100, not -0.5"),
    (lambda: PlayerSpec("ai", depth=3, temperature=float("inf")), "temp is seeds, from 0 to 100"),
    (lambda: PlayerSpec("ai", depth=3, temperature=True), "temp is seeds"),
    (lambda: PlayerSpec("ai", elo=1.5), "elo is a whole number from"),
    (lambda: PlayerSpec("random", elo=100), "random takes nothing, not elo"),
    (lambda: PlayerSpec("ai", level="brutal"), "unknown level 'brutal'"),
    (lambda: PlayerSpec("minimax"), "depth is a whole number from 1 to 30, not None"),
    (lambda: PlayerSpec("ai", depth=255), "from 1 to 254, not 255"),
    (lambda: PlayerSpec("ai", time=0), "time is seconds, more than 0 and at most 3600, not 0"),
    (lambda: PlayerSpec("ai", time=float("nan")), "not nan"),
    (lambda: PlayerSpec("engine", command='say "hi"'), "cannot hold a double quote"),
    (lambda: PlayerSpec("engine", command="   "), "engine command is empty"),
])
def test_a_value_is_checked_when_it_is_made(make, words):
    with pytest.raises(PlayerSpecError, match=words):
        make()


def test_a_levels_elo_is_checked_against_the_measured_range():
    from mancala.levels import elo_range, level_table
    lowest, highest = elo_range()
    table = level_table()
    # the range is the table's, from its weakest engine level to its strongest (perfect play)
    assert table[1].elo <= lowest < table[1].elo + 1 and table[-1].elo - 1 < highest <= table[-1].elo
    assert PlayerSpec.parse(f"ai:elo={lowest}").elo == lowest
    assert PlayerSpec.parse(f"ai:elo={highest}").elo == highest
    for bad in (lowest - 1, highest + 1, 0, -5):
        with pytest.raises(PlayerSpecError, match=f"elo is a whole number from {lowest} to {highest}"):
            PlayerSpec("ai", elo=bad)
    for text in (f"ai:elo={highest + 1}", "ai:elo=", "ai:elo=12.5", "ai:elo=\u0664\u0660\u0660",
                 "ai:elo=1e3", "ai:depth=3,temp=", "ai:depth=3,temp=x", "ai:depth=3,tmp=1",
                 "ai:depth=3,temp=nan", "ai:depth=,temp=1", "ai:depth=3,temp=1,temp=2",
                 "ai:elo=900,temp=1"):
        with pytest.raises(PlayerSpecError, match="unknown player"):
            PlayerSpec.parse(text)


def test_ai_time_alone_waits_for_the_arenas_time():
    with pytest.raises(PlayerSpecError, match="'ai:time'"):
        PlayerSpec.parse("ai:time")
    waiting = PlayerSpec.parse("ai:time", open_time=True)
    assert waiting.needs_time and str(waiting) == "ai:time"
    assert waiting.timed(0.5) == PlayerSpec("ai", time=0.5)
    with pytest.raises(PlayerSpecError, match="needs its seconds"):
        make_player(waiting)
    # a time of its own, or no clock at all: the arena's time changes nothing
    for text in ("ai:time=0.2", "engine:x@0.2", "ai:hard", "ai:depth=4", "random"):
        assert PlayerSpec.parse(text).timed(0.5) == PlayerSpec.parse(text)
    assert PlayerSpec.parse("engine:x").timed(0.5).seconds == 0.5


def test_machine_specs_refuse_a_person_and_list_only_what_a_machine_plays():
    with pytest.raises(PlayerSpecError) as info:
        machine_spec("human", needed_by="the arena")
    assert "the arena plays computer players, not 'human'" in str(info.value)
    with pytest.raises(PlayerSpecError) as info:
        machine_spec("rnadom")
    assert "human" not in str(info.value) and "ai:time=S" in str(info.value)


def test_players_are_made_from_the_value():
    assert isinstance(make_player(PlayerSpec("ai", depth=6)), EnginePlayer)
    assert make_player(PlayerSpec("ai", depth=6)).spec == "ai:depth=6"
    assert isinstance(make_player(PlayerSpec("minimax", depth=2)), MinimaxPlayer)
    external = make_player(PlayerSpec("engine", command="prog", time=0.3))
    assert isinstance(external, ExternalPlayer) and external.time == 0.3
    assert EnginePlayer(time=1).spec == "ai:time=1" == str(PlayerSpec("ai", time=1))


def test_the_arena_and_the_environments_take_the_value():
    config = ArenaConfig(PlayerSpec("ai", depth=2), "random", games=2)
    assert config.player_a == PlayerSpec("ai", depth=2) and config.player_b == PlayerSpec("random")
    assert config == ArenaConfig("ai:depth=2", " RANDOM ", games=2)     # parsed into the same value
    with pytest.raises(InvalidLimitError, match="time is seconds, more than 0 and at most 3600"):
        ArenaConfig("random", "random", time=3601)
    from mancala.env._common import computer_player
    assert computer_player(PlayerSpec("ai", level="easy")).spec == "ai:easy"
    with pytest.raises(PlayerSpecError, match="the environment plays computer players"):
        computer_player(PlayerSpec("human"))


def test_no_face_parses_a_spelling_or_checks_a_time_per_move_by_hand():
    """Spellings are parsed in mancala.specs alone and the time per move is checked by
    mancala.limits.check_move_seconds: no other module splits "ai:..." or compares
    against MAX_MOVE_SECONDS."""
    root = pathlib.Path(mancala.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name in ("specs.py", "limits.py"):
            continue
        text = path.read_text()
        for pattern in (r"MAX_MOVE_SECONDS\s*[:)]|<=\s*MAX_MOVE_SECONDS", r"split\(\":\", 1\)\[1\]",
                        r"startswith\(\"engine:\"\)", r"\"ai:depth=\(", r"partition\(\":\"\)"):
            if re.search(pattern, text):
                found.append(f"{path.relative_to(root)}: {pattern}")
    assert found == []
