"""The search-tree explorer (mancala.explain, ``python -m mancala explain``) against
the pure-Python twin's minimax/alphabeta (nodes, values, best moves), a full-width
search written here from the twin's rules alone, and trees worked by hand."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import sample_positions
from mancala import _reference as twin
from mancala import explain
from mancala.errors import InvalidBoardError, InvalidLimitError, InvalidRuleError

ROOT = pathlib.Path(__file__).resolve().parents[1]
POSITIONS = sample_positions(30, seed=25) + [(([4] * 6 + [0]) * 2, 0, 0), (([3] * 6 + [0]) * 2, 0, 2)]


def true_value(slots, to_move, depth, capture, max_player):
    """The depth-limited full-width value from max_player's view, from the twin's rules
    alone (play, legal_moves, is_game_over): no search code of the twin or of explain."""
    if twin.is_game_over(slots):
        south = slots[6] + sum(slots[0:6])
        north = slots[13] + sum(slots[7:13])
        return south - north if max_player == 0 else north - south
    if depth == 0:
        return slots[6] - slots[13] if max_player == 0 else slots[13] - slots[6]
    values = [true_value(child, nxt, depth - 1, capture, max_player)
              for child, nxt, _ in (twin.play(slots, to_move, pit, capture)
                                    for pit in twin.legal_moves(slots, to_move))]
    return max(values) if to_move == max_player else min(values)


# -- the same search as the twin's ----------------------------------------------------------

@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_minimax_and_alphabeta_visit_the_twins_nodes(depth):
    for slots, to_move, capture in POSITIONS:
        rule = twin.CAPTURE_RULES[capture]
        for prune, reference in ((False, twin.minimax), (True, twin.alphabeta)):
            tree = explain.search_tree(slots, to_move, depth, rule, prune=prune)
            assert (tree.value, tree.best_move, tree.nodes) == \
                reference(slots, to_move, depth, capture), (slots, to_move, depth, rule, prune)
            walked = list(tree.root.walk())
            assert [node.number for node in walked] == list(range(1, tree.nodes + 1))


def test_a_deeper_search_still_counts_the_twins_nodes():
    for slots, to_move, capture in POSITIONS[:4] + POSITIONS[-2:]:
        for prune, reference in ((False, twin.minimax), (True, twin.alphabeta)):
            tree = explain.search_tree(slots, to_move, 5, twin.CAPTURE_RULES[capture],
                                       prune=prune, max_nodes=0)
            assert tree.root is None
            assert (tree.value, tree.best_move, tree.nodes) == reference(slots, to_move, 5, capture)


@pytest.mark.parametrize("order", explain.ORDERS)
@pytest.mark.parametrize("table", [False, True])
def test_every_node_holds_its_true_value_or_the_bound_its_window_allows(order, table):
    """Minimax nodes hold the full-width value; an alpha-beta node searched with
    [alpha, beta] holds it exactly inside the window, and a bound on it outside
    (fail-soft): value <= alpha means true <= value, value >= beta true >= value."""
    for slots, to_move, capture in POSITIONS[:12]:
        for depth in (1, 2, 3):
            rule = twin.CAPTURE_RULES[capture]
            for prune in (False, True):
                tree = explain.search_tree(slots, to_move, depth, rule, prune=prune, order=order,
                                           table=table)
                assert tree.value == true_value(slots, to_move, depth, capture, to_move)
                for node in tree.root.walk():
                    true = true_value(list(node.board), node.to_move, node.depth, capture, to_move)
                    if node.kind == "table":
                        assert {"exact": true == node.value, "lower": true >= node.value,
                                "upper": true <= node.value}[node.bound]
                    elif not prune or node.alpha < node.value < node.beta:
                        assert node.value == true, (slots, depth, node.number)
                    elif node.value <= node.alpha:
                        assert true <= node.value
                    else:
                        assert true >= node.value


def test_alphabeta_with_a_table_keeps_the_value_and_its_entries_keep_their_bounds():
    bounds = []
    for slots, to_move, capture in POSITIONS:
        for depth in (4, 5):
            value = twin.minimax(slots, to_move, depth, capture)[0]
            for order in explain.ORDERS:
                tree = explain.search_tree(slots, to_move, depth, twin.CAPTURE_RULES[capture],
                                           order=order, table=True)
                assert tree.value == value, (slots, to_move, depth, order)
                for node in tree.root.walk():
                    if node.kind != "table":
                        continue
                    true = twin.minimax(list(node.board), node.to_move, node.depth, capture)[0]
                    true = true if node.to_move == to_move else -true
                    assert {"exact": true == node.value, "lower": true >= node.value,
                            "upper": true <= node.value}[node.bound]
                    bounds.append(node.bound)
    assert {"exact", "lower", "upper"} <= set(bounds)       # every kind of entry was put to use


def test_cuts_happen_where_the_window_closes_and_skip_exactly_the_later_moves():
    for slots, to_move, capture in POSITIONS:
        for order in explain.ORDERS:
            tree = explain.search_tree(slots, to_move, 3, twin.CAPTURE_RULES[capture], order=order)
            for node in tree.root.walk():
                if node.cut is None:
                    continue
                cut = node.cut
                if node.role == "max":
                    assert cut.value >= cut.beta
                else:
                    assert cut.value <= cut.alpha
                searched = [child.move for child in node.children]
                legal = twin.legal_moves(list(node.board), node.to_move)
                assert sorted(searched + cut.pits) == legal
                assert node.children[-1].value == cut.value


def test_minimax_visits_the_same_nodes_in_any_order_and_ordering_helps_alphabeta():
    for slots, to_move, capture in POSITIONS[:10] + POSITIONS[-2:]:
        rule = twin.CAPTURE_RULES[capture]
        for table in (False, True):
            natural, engine = (explain.search_tree(slots, to_move, 4, rule, prune=False,
                                                   order=order, table=table, max_nodes=0).nodes
                               for order in explain.ORDERS)
            assert natural == engine
        counts = explain.node_counts(slots, to_move, 4, rule)
        assert counts["minimax"]["natural"]["plain"] == twin.minimax(slots, to_move, 4, capture)[2]
        assert counts["alphabeta"]["natural"]["plain"] == twin.alphabeta(slots, to_move, 4, capture)[2]
        for order in explain.ORDERS:
            assert counts["minimax"][order]["table"] <= counts["minimax"][order]["plain"]
    # from the start, the engine's order cuts most of the tree (390 -> 102 nodes at depth 4)
    start = ([4] * 6 + [0]) * 2
    counts = explain.node_counts(start, 0, 4, "standard")
    assert counts["alphabeta"]["engine"]["plain"] < counts["alphabeta"]["natural"]["plain"] \
        == twin.alphabeta(start, 0, 4, 0)[2]


def test_the_engine_order_puts_extra_turns_then_store_gains_first():
    # South: pit index 2 holds 4 seeds (3, 4, 5, store: an extra turn), pit 0 holds 1 seed
    # landing in the empty pit 1 with 3 seeds opposite in slot 11 (a capture of 4),
    # pit 4 holds 3 seeds (5, store, North's 7: one seed in the store)
    #            12  11  10   9   8   7
    #             1   3   0   0   0   1
    #       [0]                          [0]
    #             1   0   4   0   3   0
    slots = [1, 0, 4, 0, 3, 0, 0, 1, 0, 0, 0, 3, 1, 0]
    tree = explain.search_tree(slots, 0, 1, "standard", order="engine")
    assert [child.move for child in tree.root.children] == [2, 0, 4]
    assert [(child.extra_turn, child.captured) for child in tree.root.children] == \
        [(True, 0), (False, 4), (False, 0)]


# -- trees worked by hand -------------------------------------------------------------------

# South (MAX) to move, two legal moves; North has two pits:
#            12  11  10   9   8   7          <- North
#             0   0   1   0   1   0
#       [0]                          [0]
#             0   1   0   0   1   0          <- South
#             0   1   2   3   4   5          (pit indices)
HAND = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0]
# South pit 1: its seed lands in the empty pit 2, North's slot 10 opposite holds 1: captures 2.
#   North's one move, pit 1 (slot 8 -> 9, nothing opposite): leaf, South 2 - North 0 = +2.
# South pit 4: its seed lands in pit 5, nothing opposite (slot 7 is empty): no capture.
#   North pit 1 (slot 8 -> 9): leaf 0 - 0 = 0.
#   North pit 3 (slot 10 -> 11, South's pit 1 opposite holds 1): captures 2: leaf -2.
# Minimax: South pit 1 = +2; South pit 4 = min(0, -2) = -2; the root max(+2, -2) = +2.
# Alpha-beta: after South pit 1 alpha is +2; under South pit 4 North's first reply gives 0,
# which is <= alpha: MAX will not come here, so North pit 3 is cut (window [+2, +inf]).


def test_a_two_move_tree_worked_by_hand():
    minimax = explain.search_tree(HAND, 0, 2, "standard", prune=False)
    assert (minimax.value, minimax.best_move, minimax.nodes) == (2, 1, 6)
    first, second = minimax.root.children
    assert (first.move, first.captured, first.role, first.value) == (1, 2, "min", 2)
    assert [(leaf.move, leaf.kind, leaf.value) for leaf in first.children] == [(1, "leaf", 2)]
    assert (second.move, second.captured, second.value, second.best) == (4, 0, -2, 3)
    assert [(leaf.move, leaf.captured, leaf.value) for leaf in second.children] == \
        [(1, 0, 0), (3, 2, -2)]
    assert minimax.root.alpha is None and all(node.cut is None for node in minimax.root.walk())

    alphabeta = explain.search_tree(HAND, 0, 2, "standard")
    assert (alphabeta.value, alphabeta.best_move, alphabeta.nodes) == (2, 1, 5)
    first, second = alphabeta.root.children
    assert (first.alpha, first.beta, first.value) == (-explain.INF, explain.INF, 2)
    assert (second.alpha, second.beta, second.value) == (2, explain.INF, 0)
    assert [leaf.move for leaf in second.children] == [1]
    assert (second.cut.pits, second.cut.value, second.cut.alpha, second.cut.beta) == \
        ([3], 0, 2, explain.INF)

    # the engine's order tries North's capture first: -2 <= +2 cuts North pit 1 instead
    ordered = explain.search_tree(HAND, 0, 2, "standard", order="engine")
    second = ordered.root.children[1]
    assert ordered.nodes == 5 and second.value == -2 and second.cut.pits == [1]


def test_a_transposition_is_answered_by_the_table():
    #            12  11  10   9   8   7
    #             1   0   1   0   0   1
    #       [0]                          [0]
    #             0   1   0   2   1   0
    # South pit index 1 (1 seed into the empty pit 2; slot 10 opposite holds 1) captures 2,
    # then North pit index 0 (into the empty slot 8; South's pit 4 opposite holds 1) captures 2;
    # South pit index 4 (into the empty pit 5; slot 7 opposite holds 1) captures 2,
    # then North pit index 3 (into the empty slot 11; South's pit 1 opposite holds 1) captures 2:
    # both reach [0,0,0,2,0,0 | 2 | 0,0,0,0,0,1 | 2], South to move, one move left to search.
    slots = [0, 1, 0, 2, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0]
    same = (0, 0, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0, 1, 2)
    plain = explain.search_tree(slots, 0, 3, "standard", prune=False)
    tabled = explain.search_tree(slots, 0, 3, "standard", prune=False, table=True)
    (hit,) = [node for node in tabled.root.walk() if node.kind == "table"]
    assert (hit.board, hit.to_move, hit.depth, hit.bound) == (same, 0, 1, "exact")
    first = [node for node in tabled.root.walk() if node.board == same]
    assert [node.kind for node in first] == ["inner", "table"]     # searched once, then remembered
    assert tabled.value == plain.value and hit.value == first[0].value
    # the table saves the subtree the twin's minimax would search there, less the node itself
    assert tabled.nodes == plain.nodes - (twin.minimax(list(same), 0, 1, 0)[2] - 1)
    for slots, to_move, capture in POSITIONS[:10]:
        plain = explain.search_tree(slots, to_move, 4, twin.CAPTURE_RULES[capture], prune=False)
        tabled = explain.search_tree(slots, to_move, 4, twin.CAPTURE_RULES[capture], prune=False,
                                     table=True)
        hits = [node for node in tabled.root.walk() if node.kind == "table"]
        saved = sum(twin.minimax(list(node.board), node.to_move, node.depth, capture)[2] - 1
                    for node in hits)
        assert tabled.nodes == plain.nodes - saved


def test_a_finished_game_is_one_node_worth_its_final_margin():
    # South's row is empty: North sweeps its one seed, 20 - (27 + 1) = -8 for South
    tree = explain.search_tree([0, 0, 0, 0, 0, 0, 20, 1, 0, 0, 0, 0, 0, 27], 0, 3)
    assert (tree.nodes, tree.value, tree.best_move) == (1, -8, None)
    assert (tree.root.kind, tree.root.children) == ("end", [])


# -- bad input ------------------------------------------------------------------------------

def test_bad_input_is_refused_with_one_line():
    for bad in (0, 9, "3", True):
        with pytest.raises(InvalidLimitError):
            explain.search_tree(HAND, 0, bad)
    with pytest.raises(InvalidBoardError):
        explain.search_tree([1, 2, 3], 0, 2)
    with pytest.raises(InvalidBoardError):
        explain.search_tree(HAND, 2, 2)
    with pytest.raises(InvalidRuleError):
        explain.search_tree(HAND, 0, 2, "steal")
    with pytest.raises(InvalidLimitError):
        explain.search_tree(HAND, 0, 2, order="random")


# -- python -m mancala explain -----------------------------------------------------------------

def mancala(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_explain_json_as_a_subprocess():
    board = ",".join(map(str, HAND))
    result = mancala("explain", "--board", board, "--depth", "2", "--json")
    assert result.returncode == 0 and result.stderr == ""
    report = json.loads(result.stdout)
    assert (report["board"], report["to_move"], report["capture"], report["depth"]) == \
        (HAND, 0, "standard", 2)
    minimax, alphabeta = report["minimax"], report["alphabeta"]
    assert (minimax["nodes"], minimax["value"], minimax["best_index"]) == (6, 2, 1)
    assert (alphabeta["nodes"], alphabeta["value"], alphabeta["best_index"]) == (5, 2, 1)
    root = alphabeta["root"]
    assert (root["role"], root["alpha"], root["beta"], root["pit_index"]) == ("max", None, None, None)
    second = root["children"][1]
    assert (second["pit_index"], second["alpha"], second["beta"], second["value"]) == (4, 2, None, 0)
    assert second["cut"] == {"pit_indices": [3], "value": 0, "alpha": 2, "beta": None}
    assert second["children"][0]["board"] == [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0]
    counts = report["counts"]
    assert counts["minimax"]["natural"]["plain"] == twin.minimax(HAND, 0, 2, 0)[2] == 6
    assert counts["alphabeta"]["natural"]["plain"] == twin.alphabeta(HAND, 0, 2, 0)[2] == 5


def count_rows(out):
    """{label: [natural, engine]} of the node-count table."""
    rows = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] in ("minimax", "alpha-beta") and words[-1][0].isdigit():
            rows[" ".join(words[:-2])] = words[-2:]
    return rows


def test_explain_text_as_a_subprocess():
    result = mancala("explain", "--board", ",".join(map(str, HAND)), "--depth", "2")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "MAX is South (to move), MIN is North" in out
    assert "Minimax, 2 moves deep: 6 nodes, value +2, best pit 2." in out
    assert "Alpha-beta (natural move order), 2 moves deep: 5 nodes, value +2, best pit 2." in out
    assert "*#2 pit 2 (B) captures 2: MIN (North to move) [-inf, +inf] = +2" in out
    assert "x cut pit 4 (J): +0 <= alpha +2 (window [+2, +inf])" in out
    assert count_rows(out) == {"minimax": ["6", "6"], "minimax + table": ["6", "6"],
                               "alpha-beta": ["5", "5"], "alpha-beta + table": ["5", "5"]}


def test_explain_from_moves_and_its_mistakes_as_a_subprocess():
    result = mancala("explain", "--moves", "3", "--depth", "1", "--show", "counts")
    assert result.returncode == 0, result.stderr
    # after South's pit 3 (an extra turn) South moves again: 5 moves, 6 nodes at depth 1
    assert count_rows(result.stdout)["minimax"] == ["6", "6"]
    assert "Minimax," not in result.stdout and "Alpha-beta (" not in result.stdout
    for args, message in ((("--depth", "9"), "depth is a whole number from 1 to 8"),
                          (("--board", "1,2,3"), "14"),
                          (("--moves", "3 3"), "not legal")):
        bad = mancala("explain", *args)
        assert bad.returncode == 2, bad.stderr
        assert message in bad.stderr.splitlines()[-1] and "Traceback" not in bad.stderr


def test_a_long_tree_is_cut_with_how_many_more_and_all_draws_every_node():
    whole = mancala("explain", "--depth", "4", "--all")
    cut = mancala("explain", "--depth", "4")
    assert whole.returncode == cut.returncode == 0
    full, short = whole.stdout.splitlines(), cut.stdout.splitlines()
    more = [line for line in short if "more lines: --all draws every node" in line]
    assert len(more) == 2                       # both trees are longer than SHOWN_LINES
    hidden = sum(int(line.split()[1].replace(",", "")) for line in more)
    assert len(full) == len(short) - len(more) + hidden
    assert len(short) < 200 < len(full)
    assert short[-6:] == full[-6:]               # the counts come whole either way


def test_all_is_paged_on_a_terminal():
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, PAGER="wc -l")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "explain", "--depth", "4", "--all"],
                          env=env, encoding="utf-8", timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    lines = len(mancala("explain", "--depth", "4", "--all").stdout.splitlines())
    assert child.before.strip() == str(lines)    # the pager got the whole text, not the terminal
